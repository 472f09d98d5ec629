package othersvc

import (
	"strings"
	"testing"

	"eventsvc/docs"
)

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
	for _, b := range BugReports {
		if names[b.Name] {
			t.Errorf("two bug reports are named %q", b.Name)
		}
		names[b.Name] = true
		if len(strings.Fields(b.Report)) < 20 {
			t.Errorf("%s: the report does not say what a user saw and why", b.Name)
		}
		if len(b.Rules) == 0 {
			t.Errorf("%s: no rule named", b.Name)
		}
		for _, id := range b.Rules {
			if r, ok := catalogue.Rule(id); !ok || r.Kind != docs.Spec {
				t.Errorf("%s: %s is no @spec rule of docs/rules.md", b.Name, id)
			}
		}
		if b.Config.Flaws == (Flaws{}) {
			t.Errorf("%s: no flaw", b.Name)
		}
	}
	for _, b := range BugReports {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			if err := b.Shows(NewClient(t, b.Config)); err != nil {
				t.Fatalf("the fault does not show: %v", err)
			}
			fixed := b.Config
			fixed.Flaws = Flaws{}
			if err := b.Shows(NewClient(t, fixed)); err == nil {
				t.Fatal("the same server without the flaw shows the fault too")
			}
		})
	}
}
