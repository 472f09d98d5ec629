package conformance

import (
	"slices"
	"strings"
	"testing"

	"eventsvc/docs"
)

// bugReport is a breakage of the second implementation written as the bug
// report of a real service reads: what its user saw, and the cause. Each
// is one fault that a correct reading of docs/spec/RULES.md forbids, in a
// server that is otherwise correct; shows does what the user did, against
// a server started with config, and returns nil when the user sees the
// fault. today records what caught it when it was written
// (TestMeasureCatches measures it again).
type bugReport struct {
	name   string
	report string   // what a user saw, and the cause
	rules  []string // the @spec rules it breaks
	config otherConfig
	shows  func(c *otherClient) error
	today  caught
}

// caught is what caught a breakage: the rules a default remote run of the
// scenarios failed, and those a default exploration with seed 7 failed,
// each as a space-separated list; "" when a run passed, "preflight" when
// the scenarios' preflight refused the target, "setup" when the
// exploration could not start, "finding" for a finding that blames no rule
// (a server error, an answer cut).
type caught struct {
	scenarios, explorer string
}

// bugReports are every bug report, by family.
var bugReports = slices.Concat(issueReports, cacheReports, routerReports, serializerReports, columnReports, raceReports, lastReports)

// TestBugReportsShowTheirFault: each bug report shows its fault against a
// server with its flaw, and not against the same server without it, so
// that a breakage nothing catches is a breakage indeed. Each names the
// @spec rules it breaks, and says what a user saw.
func TestBugReportsShowTheirFault(t *testing.T) {
	catalogue, err := docs.RuleCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, b := range bugReports {
		if names[b.name] {
			t.Errorf("two bug reports are named %q", b.name)
		}
		names[b.name] = true
		if len(strings.Fields(b.report)) < 20 {
			t.Errorf("%s: the report does not say what a user saw and why", b.name)
		}
		if len(b.rules) == 0 {
			t.Errorf("%s: no rule named", b.name)
		}
		for _, id := range b.rules {
			if r, ok := catalogue.Rule(id); !ok || r.Kind != docs.Spec {
				t.Errorf("%s: %s is no @spec rule of docs/rules.md", b.name, id)
			}
		}
		if b.config.flaws == (otherFlaws{}) {
			t.Errorf("%s: no flaw", b.name)
		}
	}
	for _, b := range bugReports {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			if err := b.shows(newOtherClient(t, b.config)); err != nil {
				t.Fatalf("the fault does not show: %v", err)
			}
			fixed := b.config
			fixed.flaws = otherFlaws{}
			if err := b.shows(newOtherClient(t, fixed)); err == nil {
				t.Fatal("the same server without the flaw shows the fault too")
			}
		})
	}
}
