package steps

import (
	"errors"
	"fmt"
	"strings"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/repro"
)

// The steps that say a rule holds of an answer ("every link of the answer
// leads where its relation says", "the answer offers the caller exactly
// what they may do") ask the run's audit, which checks every exchange of
// every scenario against the rules that govern it (package audit): the
// step phrases what the scenario looks at, the audit holds the rule.

// errNoAudit is the failure of a step that asks the audit in a run
// without one.
var errNoAudit = errors.New("this step asks the run's audit of every exchange, and the run has none")

// audited fails a step with the audit's first finding about x, and about
// the links the audit followed from x, that breaks one of the rules of
// e: the
// finding's rule blamed, its exchange last in the scenario's evidence
// (the audit's own requests join the scenario's log). A step that says a
// rule holds of x is not run when the audit could check none of rules on
// x, though x has links, is not checked: it would say what nothing
// checked. An answer without links (a 204, a body that is not JSON)
// offers nothing and leads nowhere.
func (s *scenario) audited(x *exchange, what string, e audit.Expectation) error {
	if s.scope == nil {
		return errNoAudit
	}
	return s.judged(x, what, s.scope.TakeAt, e.Rules())
}

// auditedAnswer is audited for what x itself shows, without waiting for
// the links the audit follows from it: what they lead to is the audit's
// to report, apart, when no step asks. A step that says what an answer
// offers its caller looks at that answer alone.
func (s *scenario) auditedAnswer(x *exchange, what string, e audit.Expectation) error {
	if s.scope == nil {
		return errNoAudit
	}
	return s.judged(x, what, s.scope.TakeOwn, e.Rules())
}

// judged fails a step with the first finding take gives about x that
// breaks one of rules, or as not run when take had no check of them on
// an answer with links.
func (s *scenario) judged(x *exchange, what string, take func(int, ...string) ([]*audit.Finding, int), rules []string) error {
	found, checked := take(x.at, rules...)
	if len(found) > 0 {
		return s.auditFailure(x, found[0])
	}
	if checked == 0 && x.jsonErr == nil && len(x.links()) > 0 {
		return notChecked("the audit could check none of %s on the answer to %s %s (status %d): it cannot tell %s, as its caller's token is not one it saw issued to the run's client with the scopes read and write, alive", strings.Join(rules, ", "), x.method, s.redactor.String(x.url.Path), x.status, what)
	}
	return nil
}

// auditFailure is a step's failure from the audit's finding f about x.
func (s *scenario) auditFailure(x *exchange, f *audit.Finding) error {
	msg := s.redactor.String(f.Message)
	if len(f.Followed) > 0 {
		msg += fmt.Sprintf(" (the audit followed %d link%s from the answer to %s %s)", len(f.Followed), plural(len(f.Followed)), x.method, s.redactor.String(x.url.String()))
	}
	return s.findingFailure(f, x.at, msg)
}

// findingFailure is a step's failure from the audit's finding f, told by
// msg, about the scenario's at-th exchange or, when the audit sent
// exchanges of its own to find it, the last of those, which join the
// scenario's log.
func (s *scenario) findingFailure(f *audit.Finding, at int, msg string) error {
	if len(f.Followed) > 0 {
		at = s.rec.adoptFollowed(f.Followed)
	}
	return &ruleError{rules: []string{f.Rule}, err: &exchangeError{at: at, err: fmt.Errorf("%s\n\n%s", msg, f.Transcript)}, required: true, finding: true, cause: f.Cause}
}

// adoptFollowed adds exchanges the audit sent for the scenario to its log, so that
// its reproduction sends them too, and returns the number of the last.
func (r *recorder) adoptFollowed(log []repro.Exchange) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, log...)
	return len(r.log) - 1
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// takeAudit returns the audit's findings about x that break one of rules,
// and none in a run without an audit.
func (s *scenario) takeAudit(x *exchange, rules ...string) []*audit.Finding {
	if s.scope == nil {
		return nil
	}
	found, _ := s.scope.TakeAt(x.at, rules...)
	return found
}
