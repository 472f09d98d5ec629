package steps

import (
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/repro"
	"eventsvc/internal/redact"
)

// TestAFailureAboutAnExchangeTheRegistryFoundAtFaultIsTheRegistrys: a
// step that fails about an exchange the registry has a finding about
// fails with that finding, its rule alone and required, whatever the
// step expected; a step that cannot go on at an exchange the registry
// found nothing in is a setup failure, and one whose expectation was
// unmet there keeps the expectation's rules.
func TestAFailureAboutAnExchangeTheRegistryFoundAtFaultIsTheRegistrys(t *testing.T) {
	a := audit.New(audit.Options{ClientID: "app"})
	scope := a.Scope("http://target.example", audit.Place{Name: "a test", File: "test.feature"})
	now := time.Unix(1_800_000_000, 0)
	observe := func(at int, body string) {
		x := audit.Exchange{Exchange: repro.Exchange{Method: "GET", URL: "http://target.example/api", Header: http.Header{},
			Status: 200, RespHeader: http.Header{"Content-Type": {"application/hal+json"}}, RespBody: []byte(body)}, Start: now, End: now.Add(time.Millisecond)}
		scope.Observe(x, at)
	}
	observe(0, `{"_links":{"profile":{"href":"/docs/index.html"}}}`)                                 // no events link: API-1
	observe(1, `{"_links":{"events":{"href":"/api/events"},"profile":{"href":"/docs/index.html"}}}`) // as it should be
	observe(2, `{"_links":{"profile":{"href":"/docs/index.html"}}}`)
	observe(3, `{"_links":{"profile":{"href":"/docs/index.html"}}}`)
	s := &scenario{scope: scope, redactor: redact.New()}

	var re *ruleError
	err := s.settle(unmet(&exchangeError{at: 0, err: errors.New("no create link")}, audit.ListOffersTokenHolder))
	if !errors.As(err, &re) || !re.finding || !re.Required() || !slices.Equal(re.BrokenRules(), []string{"API-1"}) {
		t.Errorf("a failure about the root the registry found at fault: %#v, want the registry's API-1, required", re)
	}
	err = s.settle(cannotGoOn(&exchangeError{at: 1, err: errors.New("no events link")}))
	if !errors.As(err, &re) || !re.Setup() || len(re.BrokenRules()) != 0 {
		t.Errorf("a step that cannot go on where the registry found nothing: %#v, want a setup failure", re)
	}
	s.rules = []string{"API-1"}
	if err := s.settle(&exchangeError{at: 2, err: errors.New("no events link")}); errors.As(err, &re) {
		t.Errorf("a failure that names no rule, of a scenario that checks the finding's rule: %#v, want it as it is", re)
	}
	s.rules = []string{"AUTH-3"}
	if err := s.settle(unmet(&exchangeError{at: 3, err: errors.New("no events link")}, 0)); !errors.As(err, &re) || !re.finding {
		t.Errorf("a failure that names no rule, of a scenario that checks another: %v, want the registry's finding", err)
	}
	err = s.settle(unmet(&exchangeError{at: 1, err: errors.New("no create link")}, audit.ListOffersTokenHolder))
	if !errors.As(err, &re) || re.finding || re.Required() || !slices.Equal(re.BrokenRules(), audit.ListOffersTokenHolder.Rules()) {
		t.Errorf("an unmet expectation where the registry found nothing: %#v, want its own rules", re)
	}
}

// TestEveryStepsFailurePassesThroughSettle: a step definition registered
// on the scenario keeps its type, which godog reads its arguments by,
// and its failure passes through settle.
func TestEveryStepsFailurePassesThroughSettle(t *testing.T) {
	settle := func(err error) error { return errors.Join(errors.New("settled"), err) }
	step := settled(func(n int, s string) error {
		if n == 0 {
			return nil
		}
		return errors.New(s)
	}, settle).(func(int, string) error)
	if err := step(0, "x"); err != nil {
		t.Errorf("a passing step fails: %v", err)
	}
	if err := step(1, "boom"); err == nil || err.Error() != "settled\nboom" {
		t.Errorf("a failing step's error is %v, want it settled", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("a step definition that returns no error is registered")
		}
	}()
	settled(func() {}, settle)
}
