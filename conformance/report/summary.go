package report

import (
	"slices"
	"strings"

	"eventsvc/conformance/selection"
	"eventsvc/docs"
)

// RuleResult is the verdict on one rule, from the scenarios that check it
// (that carry its id as a tag): failed when one of them failed; expected
// failure when they failed only as the baseline expects; flaky when one
// passed only on a retry; passed when at least one passed; not run when
// none ran, with the reasons.
type RuleResult struct {
	ID      string
	Kind    string // spec or ref
	Verdict string
	// Reasons say why its scenarios were not run, when none ran: @ref,
	// @local, @slow, read-only, tags, target, throttled.
	Reasons []string
	// Selected is whether the tags select at least one of its scenarios,
	// which may then not run for a reason of the target or the run.
	Selected bool
	// Expectation is the reason of a baseline entry for the rule.
	Expectation string
	// Stale is whether a baseline entry expects the rule to fail and it
	// passed.
	Stale     bool
	Scenarios []*ScenarioResult
	Counts    map[string]int // scenarios per verdict
	// Checks is how many answers an exploration checked against the rule.
	Checks int
}

// RuleResults gives every rule of the catalogue a verdict, in its order.
func RuleResults(catalogue *docs.Catalogue, scenarios []*ScenarioResult) []*RuleResult {
	var out []*RuleResult
	for _, rule := range catalogue.Rules() {
		r := &RuleResult{ID: rule.ID, Kind: string(rule.Kind), Counts: map[string]int{}}
		for _, s := range scenarios {
			if !slices.Contains(s.Rules, rule.ID) && !slices.Contains(s.Blamed(), rule.ID) {
				continue
			}
			r.Scenarios = append(r.Scenarios, s)
			v := s.VerdictFor(rule.ID)
			r.Counts[v]++
			if v == NotRun && s.Verdict != NotRun && !slices.Contains(r.Reasons, selection.ReasonNotChecked) {
				r.Reasons = append(r.Reasons, selection.ReasonNotChecked)
			}
			r.Selected = r.Selected || s.Run || (s.Reason != selection.ReasonTags && s.Reason != selection.ReasonFiltered)
			if s.Verdict == NotRun && s.Reason != selection.ReasonTags && s.Reason != selection.ReasonFiltered && !slices.Contains(r.Reasons, s.Reason) {
				r.Reasons = append(r.Reasons, s.Reason)
			}
		}
		if !r.Selected {
			r.Reasons = []string{selection.ReasonTags}
			for _, s := range r.Scenarios {
				if s.Reason == selection.ReasonFiltered {
					r.Reasons = []string{selection.ReasonFiltered}
				}
			}
		}
		switch {
		case r.Counts[Failed] > 0:
			r.Verdict = Failed
		case r.Counts[ExpectedFailure] > 0:
			r.Verdict = ExpectedFailure
		case r.Counts[Flaky] > 0:
			r.Verdict = Flaky
		case r.Counts[Passed] > 0:
			r.Verdict = Passed
		default:
			r.Verdict = NotRun
		}
		if r.Verdict != NotRun {
			r.Reasons = nil
		}
		out = append(out, r)
	}
	return out
}

// reasonsText is the reasons of a rule that was not run, for people.
func reasonsText(reasons []string, detail string) string {
	var parts []string
	for _, r := range reasons {
		text := r
		if t := selection.ReasonText(r); t != "" && r != selection.ReasonTarget {
			text = r + ": " + t
		}
		if r == selection.ReasonTarget && detail != "" {
			text = detail
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, "; ")
}
