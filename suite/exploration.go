package suite

import (
	"context"
	"errors"
	"strings"

	"eventsvc/conformance/deadlink"
	"eventsvc/conformance/explore"
	"eventsvc/conformance/report"
	"eventsvc/conformance/target"
)

// exploration is what an exploration after the scenarios found: its
// report, never nil (empty when the run did not explore), and why it
// could not start, if it could not.
type exploration struct {
	*report.Report
	err error
}

// exploreAfter builds the explorer of o (Options.Explore) and runs it
// against t, which the run opened and its preflight checked, read-only
// when t.ReadOnly is, telling out of each sequence as it ends. The explorer returns the
// sequences as a report it has not written: their places explore:N after
// the scenarios', each finding with its replay file, the rules with the
// exploration's checks, the seed in its Selection, and whether the target
// throttled it or stopped answering in its Outcome. The target's origin
// log is the run's: the report's foreign origins are those of the
// scenarios and the sequences.
func exploreAfter(o explore.Options, t target.Target, out *report.Console) exploration {
	rep, err := explore.Explorer{Options: o}.Explore(context.Background(), t, out.ScenarioEnded)
	if rep == nil {
		rep = &report.Report{}
	}
	var dead *deadlink.Error
	if errors.As(err, &dead) {
		// Not a fault of its own: the run tells the dead link as API-10.
		out.Note("The exploration did not start: " + strings.TrimPrefix(dead.Error(), "not checked: "))
		return exploration{Report: &report.Report{}}
	}
	if err != nil && rep.Outcome != report.OutcomeThrottled {
		return exploration{Report: rep, err: err}
	}
	return exploration{Report: rep}
}

// addTo adds the exploration to the report of the run, whose rules
// RuleResults gave their verdicts from the scenarios and the sequences
// (failed when a scenario or a sequence failed it, passed when one passed
// it and none failed it): its seed to the selection, its checks to the
// rules, its failed logins to the run's (its waits the run's Watch counted).
func (x exploration) addTo(rep *report.Report) {
	if x.Selection != "" {
		rep.Selection += ", then " + x.Selection
	}
	rep.FailedLogins += x.FailedLogins
	rep.Varied = x.Varied
	checks := map[string]int{}
	for _, r := range x.Rules {
		checks[r.ID] = r.Checks
	}
	for _, r := range rep.Rules {
		r.Checks = checks[r.ID]
	}
}

// found reports whether a sequence of rep found a fault the baseline
// does not expect.
func found(rep *report.Report) bool {
	for _, s := range rep.Scenarios {
		if s.Sequence() && s.Verdict == report.Failed {
			return true
		}
	}
	return false
}

// notStarted says why the exploration could not start: the cause its
// error wraps (explore.SetupError), or the error.
func (x exploration) notStarted() string {
	why := x.err
	if cause := errors.Unwrap(why); cause != nil {
		why = cause
	}
	return "the exploration after the scenarios could not start: " + why.Error()
}
