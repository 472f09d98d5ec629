package suite

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"eventsvc/conformance/explore"
	"eventsvc/conformance/explore/flawed"
	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
)

// TestExplorationFindsWhatTheScenariosMiss breaks the reference server in
// each way of flawed.Flaws: the scenarios of a remote run pass against it
// (or, for the flaws marked Audited, fail by the audit of their answers
// alone), and the default exploration finds the fault, blames its rule,
// and shrinks it to a few actions.
//
// make test runs it with the package's other whole runs, without the
// race detector (make mutation runs it alone): under it, the runs of the
// scenarios and of the exploration take minutes, and the tests of what
// runs at once run the same code under the detector.
func TestExplorationFindsWhatTheScenariosMiss(t *testing.T) {
	if raceBuild {
		t.Skip("make test runs it without the race detector (make mutation alone)")
	}
	for _, f := range flawed.Flaws {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			suite := target.Target{BaseURL: flawed.Start(t, f), Credentials: target.DemoCredentials, RunID: "flaw"}
			_, err := Run(Options{Target: suite, Tags: selection.RemoteTags, Output: &out, NoSummary: true})
			switch {
			case f.Audited && err == nil:
				t.Fatalf("the scenarios pass against the flaw: the audit of their answers should see it\n%s", out.String())
			case f.Audited && !strings.Contains(failingLines(out.String()), "audit:"):
				t.Fatalf("the scenarios fail against the flaw, but not by the audit of their answers\n%s", failingLines(out.String()))
			case !f.Audited && err != nil:
				t.Fatalf("the scenarios catch the flaw (%v): it is not one only exploration finds\n%s", err, failingLines(out.String()))
			}
			out.Reset()
			explored := target.Target{BaseURL: flawed.Start(t, f), Credentials: target.DemoCredentials, RunID: "flaw"}
			rep, err := explore.Run(context.Background(), explore.Options{Target: explored, Seed: 1, Output: &out, ReportDir: t.TempDir()})
			if !errors.Is(err, explore.ErrFailed) {
				t.Fatalf("exploration did not find the flaw: Run = %v\n%s", err, out.String())
			}
			var found []string
			for _, s := range rep.Scenarios {
				// The sequences; the audit's findings that follow them
				// aside, which may find what the flaw causes too.
				if !s.Sequence() || s.Verdict != report.Failed {
					continue
				}
				what := findingName(s.Failure)
				found = append(found, what)
				if shrunk := !strings.Contains(s.Name, "another finding"); shrunk && len(s.Steps) > maxShrunk {
					t.Errorf("the finding of %s is %d actions long after shrinking, want at most %d:\n%s", what, len(s.Steps), maxShrunk, out.String())
				}
			}
			for _, what := range found {
				if !slices.Contains(f.Rules, what) {
					t.Fatalf("exploration blames %v, want %s\n%s", found, strings.Join(f.Rules, " or "), out.String())
				}
			}
		})
	}
}

// findingName is what a finding of the exploration is about, as package
// explore names it: an answer cut, a server error, or the rule it blames.
func findingName(f *report.Failure) string {
	switch {
	case f.AnswerCut:
		return "answer cut"
	case f.ServerError || len(f.Rules) == 0:
		return "server error"
	}
	return f.Rules[0]
}

// maxShrunk is the longest a shrunk finding of a flaw may be.
const maxShrunk = 5

// failingLines are the lines of a run's output about failures.
func failingLines(out string) string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "FAILED") || strings.HasPrefix(l, "SETUP") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}
