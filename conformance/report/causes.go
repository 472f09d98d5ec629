package report

import (
	"fmt"
	"strings"
)

// TellCausesOnce tells the failures that share a cause as one: of the
// failed results of one verdict whose failure names the same cause
// (Failure.Cause, a finding's of the registry) and blames the same
// rules, the first is told in full and counts the others
// (Failure.SameCause), and each other points to it (Failure.SameAs),
// which the console tells in a line. Every one of them still fails the
// rules it blames. It runs after the baseline is applied, so that a
// failure is never told as one the baseline excuses.
func TellCausesOnce(results []*ScenarioResult) {
	first := map[string]*ScenarioResult{}
	for _, s := range results {
		f := s.Failure
		if f == nil || f.Cause == "" || (s.Verdict != Failed && s.Verdict != ExpectedFailure && s.Verdict != Flaky) {
			continue
		}
		key := s.Verdict + "\n" + strings.Join(s.Blamed(), " ") + "\n" + f.Cause
		lead, ok := first[key]
		if !ok {
			first[key] = s
			continue
		}
		lead.Failure.SameCause++
		if f.SameAs == "" {
			f.SameAs = lead.Place()
		}
	}
}

// causeText is the line that follows a failure told in full, of the
// others that share its cause; "" when none does.
func causeText(f *Failure) string {
	if f == nil || f.SameCause == 0 {
		return ""
	}
	return fmt.Sprintf("and %d more of the same cause: %s", f.SameCause, f.Cause)
}
