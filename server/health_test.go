package server

import (
	"eventsvc/server/servertest"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestProbesArePublicCheapAndQuiet: /healthz and /readyz answer without a
// token, whatever Authorization says, and are not logged at info level.
func TestProbesArePublicCheapAndQuiet(t *testing.T) {
	var log servertest.Log
	addr, _ := listenWith(t, Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	for path, want := range map[string]string{"/healthz": `"alive"`, "/readyz": `"ready"`} {
		for _, auth := range []string{"", "Bearer not-a-token", basicHeader("myApp:wrong")} {
			h := map[string]string{}
			if auth != "" {
				h["Authorization"] = auth
			}
			resp, body := rawRequest(t, addr, "GET", path, h, "")
			if resp.StatusCode != http.StatusOK || !strings.Contains(body, want) || resp.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("GET %s (Authorization %q): %d %s %q", path, auth, resp.StatusCode, body, resp.Header.Get("Cache-Control"))
			}
		}
	}
	rawRequest(t, addr, "GET", "/api", nil, "")
	if strings.Contains(log.String(), "/healthz") || strings.Contains(log.String(), "/readyz") {
		t.Errorf("probes are logged at info level:\n%s", log.String())
	}
	if !strings.Contains(log.String(), "path=/api") {
		t.Errorf("other requests are not logged:\n%s", log.String())
	}
}

// TestReadyzSaysWhichBackendIsDown: a replica whose Redis or PostgreSQL
// does not answer is not ready, and says which, while /healthz still
// answers; it is ready again once the backend is back.
func TestReadyzSaysWhichBackendIsDown(t *testing.T) {
	sh := startShared(t)
	if status, _, body := sh.call(t, "GET", "/readyz", "", ""); status != http.StatusOK {
		t.Fatalf("all up: %d %s", status, body)
	}
	sh.postgres.Cut()
	until(t, "not ready without PostgreSQL", func() bool {
		status, _, body := sh.call(t, "GET", "/readyz", "", "")
		return status == http.StatusServiceUnavailable && strings.Contains(body, `"postgresql (events)"`) && !strings.Contains(body, "redis")
	})
	sh.redis.Stall()
	until(t, "not ready without either", func() bool {
		status, _, body := sh.call(t, "GET", "/readyz", "", "")
		return status == http.StatusServiceUnavailable && strings.Contains(body, `"postgresql (events)"`) && strings.Contains(body, `"redis (tokens)"`)
	})
	if status, _, body := sh.call(t, "GET", "/healthz", "", ""); status != http.StatusOK {
		t.Errorf("healthz with both backends down: %d %s", status, body)
	}
	sh.postgres.Restore()
	sh.redis.Restore()
	until(t, "ready again", func() bool {
		status, _, _ := sh.call(t, "GET", "/readyz", "", "")
		return status == http.StatusOK
	})
}

// TestReadyzIsNotReadyWhileShuttingDown: once Shutdown has begun, a load
// balancer is told to send requests elsewhere.
func TestReadyzIsNotReadyWhileShuttingDown(t *testing.T) {
	s := New(Options{Config: testConfig(t)})
	s.mu.Lock()
	s.draining = true // what Shutdown sets first
	s.mu.Unlock()
	resp, err := s.App().Test(httptest.NewRequest("GET", "/readyz", nil))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("readyz while shutting down: %d", resp.StatusCode)
	}
}
