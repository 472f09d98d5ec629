package steps

import (
	"errors"
	"slices"

	"github.com/cucumber/godog"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/cutoff"
)

// Steps act and ask; the registry judges. A step's failure is told one of
// three ways:
//
//   - the registry's finding about the exchange the step failed on
//     (settle, findingFailure): the rule that exchange breaks, blamed alone
//     whatever the scenario checks, and the scenario's own rules not
//     checked. Whatever a step says of an exchange, a finding of the
//     registry about it comes first: one fault fails the rule it breaks,
//     not the rules of every scenario that met it on the way;
//   - an unmet expectation (unmet, unmetOnTheWay): what the step expected,
//     as a kind the registry maps to rules (audit.Expectation). A run
//     blames those of them the scenario checks (its tags), or, when it
//     checks none of them, its own rules; unmet on the way, the rules
//     themselves, whatever the scenario checks;
//   - a step that cannot go on (cannotGoOn) where the registry has no
//     finding: a setup failure, which blames no rule and keeps the run
//     red.
//
// A failure that names nothing, of a step that checks, blames the
// scenario's rules.

// ruleError is the failure of a step, with the rules it proves broken.
type ruleError struct {
	rules    []string
	err      error
	required bool
	// setup is true for a step that cannot go on: no rule is blamed.
	setup bool
	// finding is true for the registry's finding, which settle keeps;
	// cause is the fault it names, if any (audit.Finding.Cause).
	finding bool
	cause   string
}

// Cause names the fault the registry's finding shows, when it names one.
func (e *ruleError) Cause() string { return e.cause }

// Required reports whether the rules are blamed whatever the scenario
// checks.
func (e *ruleError) Required() bool { return e.required }

// Setup reports whether the step could not go on, with nothing found at
// fault: a setup failure.
func (e *ruleError) Setup() bool { return e.setup && len(e.rules) == 0 }

func (e *ruleError) Error() string { return e.err.Error() }
func (e *ruleError) Unwrap() error { return e.err }

// BrokenRules returns the ids of the rules the failed check proves broken.
func (e *ruleError) BrokenRules() []string { return slices.Clone(e.rules) }

// unmet returns err, the failure of a check, as the expectation e unmet;
// nil stays nil, and a failure that already names rules keeps them.
func unmet(err error, e audit.Expectation) error {
	if err == nil {
		return nil
	}
	var re *ruleError
	if errors.As(err, &re) {
		return err
	}
	return &ruleError{rules: e.Rules(), err: err}
}

// unmetOnTheWay returns err, the failure of a check that the target's
// answer to something else made impossible, as the expectation e unmet
// whatever the scenario checks; nil stays nil.
func unmetOnTheWay(err error, e audit.Expectation) error {
	if err == nil {
		return nil
	}
	return &ruleError{rules: e.Rules(), err: err, required: true}
}

// cannotGoOn returns err, the failure of a step that cannot go on (a link
// it needs is missing, no token was issued), as a setup failure, unless
// the registry has a finding about the exchange it is about (settle);
// nil stays nil.
func cannotGoOn(err error) error {
	if err == nil {
		return nil
	}
	return &ruleError{err: err, setup: true}
}

// settle is the failure a step ends with, err: every step's failure
// passes through it (stepRegistry). When err is about an exchange the
// registry has a finding about, of none of the rules err names (of a
// failure that names none, the scenario's; of a step that cannot go on,
// none), the finding is the failure, with the rule it names: the fault is
// that one, which the step met on its way. A finding of one of those
// rules bears the step out, and err stands. A failure of another kind
// (a skip, an answer cut, a dead link) stays as it is.
func (s *scenario) settle(err error) error {
	var re *ruleError
	var cut *cutoff.CutError
	switch {
	case err == nil || s.scope == nil || errors.Is(err, godog.ErrSkip) || errors.As(err, &cut):
		return err
	case errors.As(err, &re) && re.finding:
		return err
	case s.target.DeadLinks != nil && s.rec != nil && s.deadLinkOf(err) != nil:
		return err
	}
	at, ok := failingExchange(err)
	if !ok {
		return err
	}
	found := s.scope.OwnFindings(at)
	if len(found) == 0 && s.rec != nil {
		// A request sent where a link the registry found leading
		// elsewhere said (once it followed the scenario's links): the
		// fault is the link's.
		if log := s.rec.exchanges(); at >= 0 && at < len(log) {
			s.scope.Wait()
			found = s.scope.LinkFindings(log[at].Method, log[at].URL)
		}
	}
	if len(found) == 0 {
		return err
	}
	claims := s.rules // a failure that names no rule: the scenario's
	switch {
	case re != nil && re.setup:
		claims = nil
	case re != nil && len(re.rules) > 0:
		claims = re.rules
	}
	if slices.ContainsFunc(found, func(f *audit.Finding) bool { return slices.Contains(claims, f.Rule) }) {
		return err // the registry bears the step out: its rules stand
	}
	s.scope.Claim(found[0])
	return s.findingFailure(found[0], at, s.redactor.String(found[0].Message))
}
