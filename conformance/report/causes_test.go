package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"eventsvc/conformance/selection"
)

// TestFailuresOfOneCauseAreToldAsOne: of the failures whose finding
// names the same cause and that blame the same rules, the first is told
// in full with how many more show it, and each other in a line pointing
// to it; each still fails the rules it blames. A failure of no cause, of
// another, or of the same cause but another rule, is told in full (or
// with those of its own rule).
func TestFailuresOfOneCauseAreToldAsOne(t *testing.T) {
	failed := func(line int, rule, cause string) *ScenarioResult {
		p := &selection.Planned{File: "listing.feature", Line: line, Name: "A scenario", Rules: []string{"AUTH-3"}, Run: true,
			Steps: []selection.PlannedStep{{Keyword: "Given", Text: "the user has created an event", Line: line + 1}}}
		return &ScenarioResult{Planned: p, Verdict: Failed, Attempts: 1,
			Steps:   []StepResult{{PlannedStep: p.Steps[0], Status: "failed"}},
			Failure: &Failure{Step: "Given the user has created an event", Line: line + 1, Message: "a page does not offer create-new-event", Rules: []string{rule}, Required: true, Cause: cause}}
	}
	const shared = "answers given to one caller are served to another"
	results := []*ScenarioResult{failed(10, "API-4", shared), failed(20, "API-4", ""), failed(30, "API-4", shared), failed(40, "API-3", shared), failed(50, "API-10", "the \"self\" links lead elsewhere"), failed(60, "API-4", shared)}
	TellCausesOnce(results)
	if n := results[0].Failure.SameCause; n != 2 {
		t.Errorf("the first failure of the cause counts %d more, want 2", n)
	}
	for i, want := range []string{"", "", "listing.feature:10", "", "", "listing.feature:10"} {
		if got := results[i].Failure.SameAs; got != want {
			t.Errorf("failure %d points to %q, want %q", i+1, got, want)
		}
	}
	if b := results[3].Blamed(); len(b) != 1 || b[0] != "API-3" {
		t.Errorf("a failure told in a line blames %v, want its own API-3", b)
	}

	var out bytes.Buffer
	NewConsole(&out, FormatCompact, false).Summary(&Report{Outcome: OutcomeFailed, Scenarios: results})
	_, told, _ := strings.Cut(out.String(), "Failures:\n")
	told, _, _ = strings.Cut(told, "\nRules: ")
	entries := regexp.MustCompile(`(?m)^\d+\) `).Split(told, -1)[1:]
	if len(entries) != 6 {
		t.Fatalf("%d failures told, want 6:\n%s", len(entries), out.String())
	}
	if !strings.Contains(entries[0], "and 2 more of the same cause: "+shared) {
		t.Errorf("the first failure does not count the others of its cause:\n%s", entries[0])
	}
	if !strings.Contains(entries[0], "not checked: AUTH-3, as the scenario could not go on past that fault") {
		t.Errorf("the scenario's own rule is not said to be unchecked, with why:\n%s", entries[0])
	}
	for _, i := range []int{2, 5} {
		if lines := strings.Split(strings.TrimSpace(entries[i]), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "told in full in 1)") {
			t.Errorf("failure %d, of the first one's cause, is not one line pointing to it:\n%s", i+1, entries[i])
		}
	}
}
