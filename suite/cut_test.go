package suite

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"eventsvc/conformance/contract"
	"eventsvc/conformance/report"
	"eventsvc/conformance/target"
	"eventsvc/docs/openapi"
	"eventsvc/eventsvctest"
)

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
	u, err := url.Parse(ref.URL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
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
