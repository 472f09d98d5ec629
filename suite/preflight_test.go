package suite

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"eventsvc/conformance/report"
	"eventsvc/conformance/report/reporttest"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
	"eventsvc/server"
)

func TestPreflightTellsTheCauseOfEachSetupProblem(t *testing.T) {
	ref := startReference(t, target.ServerConfig{}, nil)
	status := func(code int, retryAfter string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			w.WriteHeader(code)
			w.Write([]byte(`{"message": "no"}`))
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	otherAPI := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"name": "some other service", "version": 3}`))
	}))
	defer otherAPI.Close()
	tokenThrottled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api" {
			w.Write([]byte(`{"_links": {"events": {"href": "/api/events"}}}`))
			return
		}
		w.Header().Set("Retry-After", "300")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer tokenThrottled.Close()

	wrongSecret := remote(ref)
	wrongSecret.Credentials.ClientSecret = "not-the-secret"
	wrongPassword := remote(ref)
	wrongPassword.Credentials.OtherPass = "not-the-password"
	wrongPasswords := wrongPassword // both tokens are asked for at once: the user's refusal is told
	wrongPasswords.Credentials.Password = "not-the-password either"
	badEvent := remote(ref)
	badEvent.EventBody = []byte(`{"name": "x", "startsAt": "tomorrow"}`)

	tests := []struct {
		name   string
		target target.Target
		writes bool
		want   []string
	}{
		{"a path prefix", remote(ref + "/v1"), false, []string{"is not the Event Service API: GET " + ref + "/v1/api gave 401 Unauthorized", "BASE_URL has the path /v1"}},
		{"the API root as BASE_URL", remote(ref + "/api"), false, []string{"BASE_URL ends in /api, and the suite adds /api itself: try " + ref}},
		{"another service", remote(otherAPI.URL), false, []string{"is not the Event Service API", "gave an answer without _links.events"}},
		{"a failing target", remote(status(503, "")), false, []string{"the target is failing: GET /api answered 503 Service Unavailable"}},
		{"a wrong client secret", wrongSecret, false, []string{`refused the client "myApp" (status 401, error "invalid_client"): check CONFORMANCE_CLIENT_ID / CONFORMANCE_CLIENT_SECRET`}},
		{"a wrong password", wrongPassword, false, []string{`refused the other user "admin@email.com" (status 400, error "invalid_grant"): check CONFORMANCE_OTHER_USERNAME / CONFORMANCE_OTHER_PASSWORD`}},
		{"wrong passwords of both users", wrongPasswords, false, []string{`refused the user "user@email.com" (status 400, error "invalid_grant"): check CONFORMANCE_USERNAME / CONFORMANCE_PASSWORD`}},
		{"an event body the target refuses", badEvent, writing, []string{"refused the event body of CONFORMANCE_EVENT_FILE: POST /api/events gave 400 Bad Request: ", `"field":"description"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := target.Preflight(tt.target, tt.writes)
			if !errors.Is(err, target.ErrPreflight) {
				t.Fatalf("Preflight = %v, want a preflight error", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q:\n%v", w, err)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("not one line: %q", err)
			}
			for _, secret := range target.DemoCredentials.Secrets() {
				if strings.Contains(err.Error(), "="+secret) || strings.Contains(err.Error(), `"`+secret+`"`) {
					t.Errorf("the error shows the secret %q: %v", secret, err)
				}
			}
		})
	}

	_, err := target.Preflight(remote(tokenThrottled.URL), false)
	var throttled *target.ThrottledError
	if !errors.As(err, &throttled) || throttled.RetryAfter != "300" || !strings.Contains(err.Error(), "429 Too Many Requests to POST /oauth/token (Retry-After: 300)") {
		t.Errorf("a 429 from the token endpoint: %v", err)
	}
	if _, err := target.Preflight(remote(ref), writing); err != nil {
		t.Errorf("the reference server with the demo credentials fails the preflight: %v", err)
	}
}

func TestPreflightStopsARunWhoseClientCannotWrite(t *testing.T) {
	// A client without the API's resource: its tokens are issued, and the
	// API does not take them.
	ref := startReference(t, target.ServerConfig{Clients: []target.ClientConfig{{
		ID: target.DemoCredentials.ClientID, Secret: target.DemoCredentials.ClientSecret,
		GrantTypes: []string{"password", "refresh_token"}, Scopes: []string{"read", "write"}, ResourceIDs: []string{"other"},
	}}}, nil)
	_, err := target.Preflight(remote(ref), writing)
	if !errors.Is(err, target.ErrPreflight) || !strings.Contains(err.Error(), `does not offer the user "user@email.com" a create-new-event link`) {
		t.Fatalf("Preflight = %v", err)
	}
}

func TestARunThatCannotStartWritesReportsSayingSo(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, report.JUnitReport), []byte(`<testsuites tests="59" failures="0"/>`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(Options{Target: remote(startReference(t, target.ServerConfig{}, nil) + "/v1"), Tags: selection.RemoteTags, DefaultTags: true, ReportDir: dir, Output: &strings.Builder{}})
	if !errors.Is(err, target.ErrPreflight) {
		t.Fatalf("Run = %v", err)
	}
	reporttest.Check(t, dir)
	doc := readJUnit(t, dir)
	if len(doc.Suites) != 1 || doc.Suites[0].Cases[0].Name != "the run could not start" || doc.Suites[0].Cases[0].Error == nil ||
		!strings.Contains(doc.Suites[0].Cases[0].Error.Text, "is not the Event Service API") {
		t.Errorf("junit.xml after a preflight failure: %+v", doc)
	}
}

func TestAThrottledRunIsNotAFailedOne(t *testing.T) {
	// A lockout after one failed login: the scenarios that send wrong
	// passwords make the target answer 429.
	ref := startReference(t, target.ServerConfig{}, func(o *server.Options) { o.LoginFailures = 1 })
	var out strings.Builder
	rep, err := Run(Options{Target: remote(ref), Tags: "@TOK-3 or @TOK-8", Output: &out})
	if !errors.Is(err, ErrThrottled) || errors.Is(err, ErrFailed) {
		t.Fatalf("Run = %v, want throttled\n%s", err, out.String())
	}
	if rep.Outcome != report.OutcomeThrottled || rep.Counts()[report.Failed] != 0 {
		t.Errorf("outcome %q, %d rules failed", rep.Outcome, rep.Counts()[report.Failed])
	}
	if !strings.Contains(out.String(), "THROTTLED: the target answered 429 Too Many Requests to POST /oauth/token (Retry-After:") {
		t.Errorf("the output does not end as throttled:\n%s", out.String())
	}
}

// TestAShortRetryAfterIsWaitedOut: a target whose budget of token
// requests answers 429 with Retry-After: 1 slows the run down, as RFC 6585
// asks, and the run still checks every rule; the summary and the report
// say how often it waited.
func TestAShortRetryAfterIsWaitedOut(t *testing.T) {
	ref := startReference(t, target.ServerConfig{}, func(o *server.Options) { o.TokenBurst, o.TokenRate = 2, 4 })
	var out strings.Builder
	rep, err := Run(Options{Target: remote(ref), Tags: "@TOK-15", Output: &out})
	if err != nil {
		t.Fatalf("Run = %v, want a pass after waiting\n%s", err, out.String())
	}
	if rep.Waits == 0 || rep.Waited < time.Second {
		t.Fatalf("the run waited %d times, %v in all; want at least once, a second", rep.Waits, rep.Waited)
	}
	if !strings.Contains(out.String(), "The target asked the run to slow down") {
		t.Errorf("the summary does not say the run waited:\n%s", out.String())
	}
}

// TestPreflightSendsNoCredentialToWhatIsNotTheAPIAndOneToARefusingClient:
// a target whose /api is not the API root gets no token request, and one
// that refuses the client gets one: the other user's token is asked for
// only once the client and the user are taken, so that a wrong secret
// does not count twice against a lockout.
func TestPreflightSendsNoCredentialToWhatIsNotTheAPIAndOneToARefusingClient(t *testing.T) {
	for _, tt := range []struct {
		name   string
		root   int // status of GET /api
		grants int
	}{
		{"not the API", http.StatusNotFound, 0},
		{"a refused client", http.StatusOK, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			grants := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/api":
					w.Header().Set("Content-Type", "application/hal+json")
					w.WriteHeader(tt.root)
					w.Write([]byte(`{"_links": {"events": {"href": "/api/events"}}}`))
				case "/oauth/token":
					mu.Lock()
					grants++
					mu.Unlock()
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusUnauthorized)
					w.Write([]byte(`{"error": "invalid_client"}`))
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			if _, err := target.Preflight(remote(srv.URL), writing); !errors.Is(err, target.ErrPreflight) {
				t.Fatalf("Preflight = %v, want a preflight error", err)
			}
			if grants != tt.grants {
				t.Errorf("%d token requests, want %d", grants, tt.grants)
			}
		})
	}
}
