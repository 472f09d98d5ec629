package server

import (
	"log/slog"
	"strings"
	"testing"

	"eventsvc/server/clientcheck"
	"eventsvc/server/clock"
	"eventsvc/server/servertest"
)

// TestEachClientFindingIsLoggedOnce: the log writes a finding when an
// exchange starts it, once per rule, caller and shape, whatever the
// exchanges that add to it; a live access token in a cookie is told, and
// never written.
func TestEachClientFindingIsLoggedOnce(t *testing.T) {
	var log servertest.Log
	checks := clientcheck.New(clock.System{})
	addr, _ := listenWith(t, Options{ClientChecks: checks, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	token := tokenFor(t, addr, "user@email.com", "user")
	for _, path := range []string{"/api/events/1", "/api/events/2", "/api/events?size=3", "/api/events/3"} {
		if resp, _ := rawRequest(t, addr, "GET", path, map[string]string{"Cookie": "jwt=" + token}, ""); resp.StatusCode >= 500 {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
	}
	text := log.String()
	if n := strings.Count(text, `msg="client finding"`); n != 3 {
		t.Errorf("%d findings logged, want 3 (API-1 of an event, API-1 of a page, SVC-4):\n%s", n, text)
	}
	if strings.Contains(text, token) {
		t.Errorf("the log shows the token:\n%s", text)
	}
	if f := checks.Findings(clientcheck.Filter{Rule: "SVC-4"}); len(f) != 1 || f[0].Count != 4 || f[0].User != "user@email.com" {
		t.Errorf("SVC-4 findings %v, want one of 4 exchanges, of the token's user", f)
	}
}
