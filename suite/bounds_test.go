package suite

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"eventsvc/conformance/contract"
	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
	"eventsvc/docs/openapi"
	"eventsvc/eventsvctest"
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
	counter := &loginCounter{proxy: proxyTo(t, startReference(t, target.ServerConfig{}, func(o *server.Options) { o.TokenRate = -1 }))}
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

const cutFeature = `Feature: Answers past the run's bounds
  @ref @API-11
  Scenario: A link leads to an answer too long
    When a caller reads the API root
    And the caller follows the "profile" link
    Then the answer has status 200

  @spec @API-7 @SVC-5
  Scenario: The event a read-only run looks for is too long
    Given the user manages an event
    When a caller reads the event
    Then the answer has status 200
`

// tooLong is a reference server, with its demo events, behind a proxy
// that answers the requests hostile matches with 1 MiB.
func tooLong(t *testing.T, hostile *regexp.Regexp) string {
	t.Helper()
	ref := eventsvctest.NewServer(t, eventsvctest.Options{})
	rp := proxyTo(t, ref.URL)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && hostile.MatchString(r.URL.Path) {
			w.Header().Set("Content-Type", "application/hal+json")
			w.Write(bytes.Repeat([]byte(" "), 1<<20))
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestAnAnswerCutIsAFindingOfItsOwnKind: an answer longer than MaxAnswer
// fails its scenario as cut, blaming no rule, whether the OpenAPI check of
// a @ref scenario read it first or an arranging step met it; it is no
// setup failure, and the run fails.
func TestAnAnswerCutIsAFindingOfItsOwnKind(t *testing.T) {
	base := tooLong(t, regexp.MustCompile(`^/docs/index\.html$|^/api/events/[0-9]+$`))
	c, err := contract.Load(openapi.Document())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep, err := Run(Options{
		Target:   target.Target{BaseURL: base, Credentials: target.DemoCredentials, RunID: "cut", Contract: c, MaxAnswer: 64 << 10},
		Features: fstest.MapFS{"cut.feature": {Data: []byte(cutFeature)}},
		Tags:     "@ref or @spec", ReadOnly: true, Output: &out,
	})
	if !errors.Is(err, ErrFailed) || rep == nil {
		t.Fatalf("Run = %v, want ErrFailed\n%s", err, out.String())
	}
	if n := rep.AnswersCut(); n != 2 {
		t.Errorf("%d answers cut, want 2\n%s", n, out.String())
	}
	for _, s := range rep.Scenarios {
		f := s.Failure
		if s.Verdict != report.Failed || f == nil || !f.AnswerCut || f.Setup || len(s.Blamed()) != 0 {
			t.Errorf("%s: %s, failure %+v, blames %v; want failed with the answer cut, blaming no rule", s.Place(), s.Verdict, f, s.Blamed())
			continue
		}
		if !strings.Contains(f.Message, "was cut at 64 KiB after ") || !strings.Contains(f.Exchange, "[… the first 1 KiB of the 64 KiB read before the cut]") {
			t.Errorf("%s: the failure does not say where the answer was cut, or shows more of it:\n%s", s.Place(), f.Text())
		}
	}
	if !strings.Contains(out.String(), "answer cut: an answer of the target was longer than -max-answer") {
		t.Errorf("the output does not say the answers were cut:\n%s", out.String())
	}
}

// TestThePreflightSaysWhenAnAnswerIsCut: an API root longer than MaxAnswer
// stops the run before any scenario, with one line that says so.
func TestThePreflightSaysWhenAnAnswerIsCut(t *testing.T) {
	base := tooLong(t, regexp.MustCompile(`^/api$`))
	_, err := target.Preflight(target.Target{BaseURL: base, Credentials: target.DemoCredentials, RunID: "cut", MaxAnswer: 64 << 10}, !writing)
	if !errors.Is(err, target.ErrPreflight) || !strings.Contains(err.Error(), "the answer to GET /api was cut at 64 KiB after ") || strings.Contains(err.Error(), "\n") {
		t.Errorf("Preflight = %v; want one line that says the answer to GET /api was cut", err)
	}
}
