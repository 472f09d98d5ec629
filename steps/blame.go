package steps

import (
	"errors"
	"slices"
)

// A failing check says which rules it can prove broken (BrokenRules), so
// that a run blames those of them the scenario checks (its tags), and no
// other rule of the scenario; when the scenario checks none of them, its
// own rules. A failure that names none blames every rule of its scenario,
// unless it comes from a step that only arranges (Given): that is a setup
// failure, which blames no rule.
//
// A check that could not be made because the target broke another rule on
// the way (reading an event needs a token, where only the event's name was
// wanted) requires that rule (RequiredRules): it is blamed, whatever the
// scenario checks.

// ruleError is the failure of a check that proves rules.
type ruleError struct {
	rules    []string
	err      error
	required bool
}

// Required reports whether the rules are blamed whatever the scenario
// checks.
func (e *ruleError) Required() bool { return e.required }

// requires returns err, the failure of a check that the target's answer
// to something else made impossible, as proving rules broken whatever the
// scenario checks, in place of any rules err named; nil stays nil.
func requires(err error, rules ...string) error {
	if err == nil {
		return nil
	}
	return &ruleError{rules: rules, err: err, required: true}
}

func (e *ruleError) Error() string { return e.err.Error() }
func (e *ruleError) Unwrap() error { return e.err }

// BrokenRules returns the ids of the rules the failed check proves broken.
func (e *ruleError) BrokenRules() []string { return slices.Clone(e.rules) }

// breaks returns err, the failure of a check, as proving rules broken; nil
// stays nil. A failure that already names rules keeps them.
func breaks(err error, rules ...string) error {
	if err == nil {
		return nil
	}
	var re *ruleError
	if errors.As(err, &re) {
		return err
	}
	return &ruleError{rules: rules, err: err}
}
