package suite

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
	"eventsvc/server"
)

// loginCounter is a reverse proxy that counts the failed logins the
// answers of the token endpoint tell: a password grant refused
// invalid_grant (a wrong password, an unknown user) and a request with
// client credentials refused invalid_client (a wrong client secret); and
// the answers 429.
type loginCounter struct {
	mu                        sync.Mutex
	failed, throttled, issued int
	proxy                     *httputil.ReverseProxy
}

func (l *loginCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var grant string
	basic := r.Header.Get("Authorization") != ""
	if r.URL.Path == "/oauth/token" && r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		form, _ := url.ParseQuery(string(body))
		grant = form.Get("grant_type")
	}
	rec := httptest.NewRecorder()
	l.proxy.ServeHTTP(rec, r)
	if grant != "" || rec.Code == http.StatusTooManyRequests {
		var e struct{ Error string }
		_ = json.Unmarshal(rec.Body.Bytes(), &e)
		l.mu.Lock()
		switch {
		case rec.Code == http.StatusTooManyRequests:
			l.throttled++
		case e.Error == "invalid_client" && basic, e.Error == "invalid_grant" && grant == "password":
			l.failed++
		case rec.Code == http.StatusOK && grant == "password":
			l.issued++
		}
		l.mu.Unlock()
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// TestARemoteRunStaysWithinItsFailedLoginBudget: a remote run against the
// reference server, with its lockout as eventsvc serve sets it, passes,
// is never throttled, and fails no more logins than the run announces at
// its start (Report.FailedLogins), which a QA engineer weighs against the
// lockout of the target; and its scenarios share the accounts' tokens, so
// that it asks for far fewer than one a scenario. The budget of token
// requests per address is off: without the delay of a network, the run
// asks faster than it allows.
func TestARemoteRunStaysWithinItsFailedLoginBudget(t *testing.T) {
	backend, err := url.Parse(startReference(t, target.ServerConfig{}, func(o *server.Options) { o.TokenRate = -1 }))
	if err != nil {
		t.Fatal(err)
	}
	counter := &loginCounter{proxy: httputil.NewSingleHostReverseProxy(backend)}
	srv := httptest.NewServer(counter)
	defer srv.Close()
	var out bytes.Buffer
	rep, err := Run(Options{
		Target: target.Target{BaseURL: srv.URL, Credentials: target.DemoCredentials, RunID: "budget"},
		Tags:   selection.RemoteTags, DefaultTags: true, Concurrency: 4, Output: &out,
	})
	if err != nil {
		t.Fatalf("the remote run against the reference server: %v%s", err, failedSteps(out.String()))
	}
	counter.mu.Lock()
	defer counter.mu.Unlock()
	if counter.throttled > 0 {
		t.Errorf("the run was answered 429 %d times", counter.throttled)
	}
	if rep.FailedLogins == 0 || counter.failed > rep.FailedLogins {
		t.Fatalf("the run failed %d logins; it announced %d", counter.failed, rep.FailedLogins)
	}
	// The scenarios share a token for each account (target.Pool): most of
	// them act as the user without asking for a token of their own.
	ran := count(rep, report.Passed)
	if counter.issued*3 > ran {
		t.Errorf("%d password grants for %d scenarios: the scenarios do not share the accounts' tokens", counter.issued, ran)
	}
	t.Logf("%d failed logins, %d announced; %d password grants for %d scenarios", counter.failed, rep.FailedLogins, counter.issued, ran)
}

// TestRunsAgainAndAgainStayInsideTheReferenceServersDefaults: a team runs
// the suite again and again against its sandbox. Against a reference
// server on its default limits (the lockout of repeated failed logins,
// the budget of token requests per address), five default remote runs
// back to back, from one address, each pass without being asked to slow
// down once: the wrong credentials a run sends on purpose, the same each
// time, count once (throttle.RecentWrong), and the budget holds a run.
func TestRunsAgainAndAgainStayInsideTheReferenceServersDefaults(t *testing.T) {
	base := startReference(t, target.ServerConfig{}, nil)
	for i := range 5 {
		var out strings.Builder
		rep, err := Run(Options{Target: remote(base), Output: &out})
		if err != nil {
			t.Fatalf("run %d: %v\n%s", i+1, err, out.String())
		}
		if rep.Waits > 0 {
			t.Fatalf("run %d was asked to slow down %d times", i+1, rep.Waits)
		}
	}
}
