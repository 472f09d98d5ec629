package report

import (
	"fmt"
	"slices"
	"strings"

	"eventsvc/conformance/selection"
	"eventsvc/docs"
)

// Why rules of the specification were not checked (NotCheckedGroup.Why),
// the group a reader can act on first first.
const (
	WhyDeadLink    = "dead link"     // their scenarios met a link that leads nowhere, told as API-10
	WhyFailure     = "failure first" // their scenarios failed first, on another rule or in their setup
	WhyThrottled   = "throttled"     // the target throttled the run before them
	WhyUnreachable = "unreachable"   // the target stopped answering before them
	WhyTarget      = "target's data" // the target's data could not show them
	WhyReadOnly    = "read-only"     // they need writes, and the run was read-only
	WhyLifetimes   = "lifetimes"     // token lifetimes: real time (-slow) or a clock to move (-control-url)
	WhyTags        = "tags"          // the tag expression left them out
	WhyFiltered    = "filtered"      // -run, -rerun-failed or go test -run left them out
	WhyLocal       = "local"         // the reference server's configuration, checked in-process only
	WhyNotExplored = "not explored"  // an exploration checked no answer against them
	WhyNotStarted  = "not started"   // the run did not start
)

// whyOrder lists the groups in the order a report tells them, and says
// what each reason of a rule not run (RuleResult.Reasons) falls under:
// a rule with several reasons goes to the first group of this order.
var whyOrder = []struct {
	why     string
	reasons []string
	how     string
	// beyond is true for a group no other run against the same kind of
	// target can check: -fail-on-not-run does not fail for it.
	beyond bool
}{
	{WhyDeadLink, []string{selection.ReasonDeadLink}, "their scenarios met a link of the target that leads nowhere, told as API-10: fix it, then run again", false},
	{WhyFailure, []string{selection.ReasonNotChecked}, "their scenarios failed first, on another rule or in their setup: fix that, then run again", false},
	{WhyThrottled, []string{selection.ReasonThrottle}, "the target throttled the run before them", false},
	{WhyUnreachable, []string{selection.ReasonUnreachable}, "the target stopped answering before them", false},
	{WhyTarget, []string{selection.ReasonTarget}, "the target's data could not show them (each rule says why): more data, or a run that may write, checks them", false},
	{WhyReadOnly, []string{selection.ReasonReadOnly}, "they need writes: run without -read-only (READ_ONLY)", false},
	{WhyLifetimes, []string{selection.ReasonSlow, selection.ReasonClock}, "token lifetimes need -slow (about 1 h) or -control-url", false},
	{WhyTags, []string{selection.ReasonTags, selection.ReasonRef}, "the tags left them out: the default selection checks them", false},
	{WhyFiltered, []string{selection.ReasonFiltered}, "-run, -rerun-failed or go test -run left them out", false},
	{WhyLocal, []string{selection.ReasonLocal}, "the reference server's configuration rules, checked in-process: a remote run cannot see them", true},
	{WhyNotExplored, []string{selection.ReasonNotExplored}, "not explored: the scenarios check them (conformance, without explore)", true},
	{WhyNotStarted, []string{selection.ReasonNoStart}, "the run did not start", true},
}

// NotCheckedGroup is rules of the specification a run did not check, for
// one reason, with what would check them.
type NotCheckedGroup struct {
	// Why is the reason, one of the Why constants.
	Why string
	// Rules are the rules' ids, in the catalogue's order but for the
	// token lifetimes, the limits (LIM) first.
	Rules []string
	// How says why, and what checks them: "token lifetimes need -slow
	// (about 1 h) or -control-url".
	How string
	// Beyond is true when no run against the same kind of target can
	// check them: the reference server's configuration against a
	// deployment, the rules an exploration does not check.
	Beyond bool
}

// NotChecked returns the rules of the specification the run did not
// check, whatever the reason, grouped by why, in the order of the Why
// constants. A report that has no rules yet (its run not finished) has
// none.
func (r *Report) NotChecked() []NotCheckedGroup {
	byWhy := map[string][]string{}
	for _, rr := range r.Rules {
		if rr.Kind != string(docs.Spec) || rr.Verdict != NotRun {
			continue
		}
		why := whyOf(rr.Reasons)
		byWhy[why] = append(byWhy[why], rr.ID)
	}
	var out []NotCheckedGroup
	for _, w := range whyOrder {
		if ids := byWhy[w.why]; len(ids) > 0 {
			if w.why == WhyLifetimes {
				slices.SortStableFunc(ids, func(a, b string) int {
					return boolOrder(strings.HasPrefix(a, "LIM-"), strings.HasPrefix(b, "LIM-"))
				})
			}
			out = append(out, NotCheckedGroup{Why: w.why, Rules: ids, How: w.how, Beyond: w.beyond})
		}
	}
	return out
}

// whyOf is the group of a rule not run for reasons: that of its first
// reason in whyOrder.
func whyOf(reasons []string) string {
	for _, w := range whyOrder {
		if slices.ContainsFunc(reasons, func(r string) bool { return slices.Contains(w.reasons, r) }) {
			return w.why
		}
	}
	return WhyTags
}

// PlannedNotChecked returns the rules of the specification a run of plan
// leaves unchecked whatever its scenarios find: those none of whose
// scenarios the selection runs.
func PlannedNotChecked(catalogue *docs.Catalogue, plan []*selection.Planned) []NotCheckedGroup {
	scenarios := make([]*ScenarioResult, len(plan))
	for i, p := range plan {
		scenarios[i] = &ScenarioResult{Planned: p, Verdict: NotRun}
		if p.Run {
			scenarios[i].Verdict = Passed // as far as the selection can tell
		}
	}
	return (&Report{Rules: RuleResults(catalogue, scenarios)}).NotChecked()
}

// boolOrder puts true before false.
func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// Unchecked returns the rules of the specification the run did not check
// and another run against the same target could: every group of
// NotChecked but those Beyond it. -fail-on-not-run fails a run that has
// any.
func (r *Report) Unchecked() []string {
	var ids []string
	for _, g := range r.NotChecked() {
		if !g.Beyond {
			ids = append(ids, g.Rules...)
		}
	}
	return ids
}

// notCheckedCount is how many rules the groups hold.
func notCheckedCount(groups []NotCheckedGroup) int {
	n := 0
	for _, g := range groups {
		n += len(g.Rules)
	}
	return n
}

// maxListed is how many rule ids of a group a line lists; the others are
// counted.
const maxListed = 12

// notCheckedText is the groups as one text: "9 spec rules NOT CHECKED:
// LIM-1, LIM-2, CLI-5, CLI-6 — token lifetimes need -slow (about 1 h) or
// -control-url; ACC-2, … — …". A group of many rules lists some of them,
// unless all is set.
func notCheckedText(groups []NotCheckedGroup, all bool) string {
	n := notCheckedCount(groups)
	return fmt.Sprintf("%d spec rule%s NOT CHECKED: %s", n, plural(n), notCheckedList(groups, all))
}

// notCheckedList is each group's rules and what checks them, "LIM-1,
// LIM-2, CLI-5, CLI-6 — token lifetimes need …; ACC-2, … — …".
func notCheckedList(groups []NotCheckedGroup, all bool) string {
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = idList(g.Rules, all) + " — " + g.How
	}
	return strings.Join(parts, "; ")
}

// idList is ids separated by commas, the first maxListed of them and how
// many more, unless all is set.
func idList(ids []string, all bool) string {
	if all || len(ids) <= maxListed {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:maxListed-2], ", "), len(ids)-maxListed+2)
}

// Headline is the run's verdict in one line, without its timing: what the
// console's closing line begins with, conformance.json's headline and
// the top of every report. A run that passed but left rules of the
// specification unchecked says so at once: "PASSED, but 4 spec rules NOT
// CHECKED: LIM-1, LIM-2, CLI-5, CLI-6 — token lifetimes need -slow (about
// 1 h) or -control-url".
func (r *Report) Headline() string {
	counts := countsText(r.Counts())
	groups := r.NotChecked()
	notChecked := ""
	if len(groups) > 0 {
		notChecked = notCheckedText(groups, false)
	}
	switch r.Outcome {
	case OutcomeThrottled:
		return "THROTTLED: " + r.Error
	case OutcomeUnreachable:
		return "UNREACHABLE: " + r.Error + "; the rules not yet checked were not run"
	case OutcomeNotStarted:
		return "NOT STARTED: " + r.Error
	case OutcomeIncomplete:
		return "INCOMPLETE: " + r.Error
	case OutcomeFailed:
		line := fmt.Sprintf("FAILED: %s (%s)", counts, strings.Join(r.failedWhat(), ", "))
		if notChecked != "" {
			line += "; " + notChecked
		}
		return line
	}
	if notChecked != "" {
		return "PASSED, but " + notChecked + ". Rules: " + counts
	}
	return "PASSED: " + counts
}

// failedWhat says what failed a run: the rules, stale baseline entries,
// setups, server errors, answers cut, or rules not checked.
func (r *Report) failedWhat() []string {
	what := rulesWith(r, Failed)
	for _, b := range r.Baseline {
		if b.Status == EntryStale {
			what = append(what, "stale baseline entry: "+b.Expectation.String())
		}
	}
	if n := r.SetupFailures(); n > 0 {
		what = append(what, fmt.Sprintf("the setup of %d scenario%s", n, plural(n)))
	}
	if n := r.ServerErrors(); n > 0 {
		what = append(what, fmt.Sprintf("%d server error%s", n, plural(n)))
	}
	if n := r.AnswersCut(); n > 0 {
		what = append(what, fmt.Sprintf("%d answer%s cut", n, plural(n)))
	}
	if r.Error != "" { // such as an exploration after the scenarios that could not start
		what = append(what, r.Error)
	}
	if n := len(r.Unchecked()); n > 0 && r.FailOnNotRun {
		what = append(what, fmt.Sprintf("%d rule%s not checked, -fail-on-not-run", n, plural(n)))
	}
	return what
}
