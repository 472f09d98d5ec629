package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// scrape returns the metrics of s as Prometheus's text format.
func scrape(t *testing.T, s *Server) string {
	t.Helper()
	rec := httptest.NewRecorder()
	s.Metrics().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("scrape: %d", rec.Code)
	}
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}

// TestAScrapeShowsRequestsGrantsLockoutsTokensAndEvents: after a few
// requests, the metrics count them by route, method and status, time them,
// count grants by type and outcome and the lockout, and show the live
// tokens and the events; no token or password is in them.
func TestAScrapeShowsRequestsGrantsLockoutsTokensAndEvents(t *testing.T) {
	addr, s := listenWith(t, Options{TokenRate: -1})
	c := clientFrom("127.0.0.2")
	if status, _, _ := grant(t, c, addr, "pass", "user"); status != http.StatusOK {
		t.Fatal("grant")
	}
	for i := range 10 {
		grant(t, c, addr, "pass", "wrong-password-"+strconv.Itoa(i))
	}
	grant(t, c, addr, "pass", "user") // locked: 429
	for _, path := range []string{"/api", "/api/events", "/api/events", "/api/events/999", "/nowhere", "/docs/index.html", "/healthz"} {
		rawRequest(t, addr, "GET", path, nil, "")
	}
	m := scrape(t, s)
	for _, want := range []string{
		`eventsvc_http_requests_total{method="GET",route="/api/events",status="200"} 2`,
		`eventsvc_http_requests_total{method="GET",route="/api",status="200"} 1`,
		`eventsvc_http_requests_total{method="GET",route="/api/events/:id",status="404"} 1`,
		`eventsvc_http_requests_total{method="GET",route="other",status="401"} 1`,
		`eventsvc_http_requests_total{method="GET",route="static",status="200"} 1`,
		`eventsvc_http_requests_total{method="GET",route="/healthz",status="200"} 1`,
		`eventsvc_http_requests_total{method="POST",route="/oauth/token",status="200"} 1`,
		`eventsvc_http_requests_total{method="POST",route="/oauth/token",status="400"} 10`,
		`eventsvc_http_requests_total{method="POST",route="/oauth/token",status="429"} 1`,
		`eventsvc_http_request_duration_seconds_count{method="GET",route="/api/events"} 2`,
		`eventsvc_http_request_duration_seconds_bucket{method="GET",route="/api/events",le="+Inf"} 2`,
		`eventsvc_token_grants_total{grant_type="password",outcome="issued"} 1`,
		`eventsvc_token_grants_total{grant_type="password",outcome="invalid_grant"} 10`,
		`eventsvc_token_grants_total{grant_type="password",outcome="too_many_attempts"} 1`,
		`eventsvc_lockouts_total{kind="user"} 1`,
		`eventsvc_tokens_live 1`,
		`eventsvc_events 0`,
	} {
		if !strings.Contains(m, want+"\n") {
			t.Errorf("the scrape lacks %s", want)
		}
	}
	for _, secret := range []string{"wrong-password", "user@email.com", "myApp", "127.0.0.2"} {
		if strings.Contains(m, secret) {
			t.Errorf("the scrape shows %q", secret)
		}
	}
	if n := len(regexp.MustCompile(`(?m)^eventsvc_http_requests_total`).FindAllString(m, -1)); n > 12 {
		t.Errorf("%d request series for a dozen kinds of request", n)
	}
}

// The metrics are not on the public port.
func TestMetricsAreNotOnThePublicPort(t *testing.T) {
	addr, _ := listenWith(t, Options{})
	if resp, _ := rawRequest(t, addr, "GET", "/metrics", nil, ""); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET /metrics on the public port: %d, want 401 like any path outside the API", resp.StatusCode)
	}
}

// The method label never shares the memory of the method it was given,
// which fasthttp reuses for the next request on the connection.
func TestMethodLabelIsAStringOfItsOwn(t *testing.T) {
	buf := []byte("GET")
	label := methodLabel(unsafe.String(&buf[0], len(buf)))
	copy(buf, "PUT")
	if label != "GET" {
		t.Fatalf("the label changed with the buffer: %q", label)
	}
	if got := methodLabel("PROPFIND"); got != "other" {
		t.Fatalf("methodLabel(PROPFIND) = %q, want other", got)
	}
}
