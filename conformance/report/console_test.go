package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"eventsvc/conformance/selection"
)

// TestTheSummaryTellsARepeatedFailureInOneLine: a failure the same as
// another (an exploration's finding of a kind it shrank in another
// sequence) is told in one line pointing to that one, told in full.
func TestTheSummaryTellsARepeatedFailureInOneLine(t *testing.T) {
	finding := func(n int, sameAs string) *ScenarioResult {
		p := &selection.Planned{File: "explore", Line: n, Name: "Sequence", Run: true,
			Steps: []selection.PlannedStep{{Keyword: "*", Text: "a caller reads the event list", Line: 1}}}
		return &ScenarioResult{Planned: p, Verdict: Failed, Attempts: 1,
			Steps: []StepResult{{PlannedStep: p.Steps[0], Status: "failed"}},
			Failure: &Failure{Step: "* a caller reads the event list", Line: 1, Message: "GET /api/events answered 500", ServerError: true,
				Exchange: "request:\n    GET /api/events\nresponse:\n    HTTP/1.1 500 Internal Server Error", ReplayFile: fmt.Sprintf("explore/server-error-%d.json", n), SameAs: sameAs}}
	}
	rep := &Report{Outcome: OutcomeFailed, Scenarios: []*ScenarioResult{finding(2, "explore:4"), finding(4, ""), finding(7, "explore:4")}}
	var out bytes.Buffer
	c := NewConsole(&out, FormatCompact, false)
	c.ReportDir = "reports"
	c.Summary(rep)
	_, failures, _ := strings.Cut(out.String(), "Failures:\n")
	failures, _, _ = strings.Cut(failures, "\nRules: ")
	entries := regexp.MustCompile(`(?m)^\d+\) `).Split(failures, -1)[1:]
	if len(entries) != 3 {
		t.Fatalf("%d failures told, want 3:\n%s", len(entries), out.String())
	}
	for i, want := range []int{1, 0, 1} {
		lines := strings.Split(strings.TrimSpace(entries[i]), "\n")
		switch {
		case want == 1 && (len(lines) != 1 || !strings.Contains(lines[0], "told in full in 2)")):
			t.Errorf("failure %d, the same as 2), is not one line pointing to it:\n%s", i+1, entries[i])
		case want == 0 && (len(lines) < 4 || !strings.Contains(entries[i], "Replay: conformance explore -replay reports/explore/server-error-4.json")):
			t.Errorf("failure %d is not told in full:\n%s", i+1, entries[i])
		}
	}
}

// TestARulesLineSaysWhatJudgedIt: a rule that passed says what passed:
// its scenarios, or the checks of the answers when none of its scenarios
// ran; a rule nothing judged is not checked.
func TestARulesLineSaysWhatJudgedIt(t *testing.T) {
	notRun := func(line int) *ScenarioResult {
		p := &selection.Planned{File: "listing.feature", Line: line, Name: "A walk", Rules: []string{"API-5"}, Tags: []string{"@API-5"}, Run: true}
		return &ScenarioResult{Planned: p, Verdict: SetupFailed, Attempts: 1, Failure: &Failure{Setup: true}}
	}
	scenarios := []*ScenarioResult{notRun(69), notRun(80)}
	rules := []*RuleResult{
		{ID: "API-5", Kind: "spec", Selected: true, Scenarios: scenarios, Counts: map[string]int{NotRun: 2}, Verdict: NotRun, Reasons: []string{selection.ReasonNotChecked}},
		{ID: "API-3", Kind: "spec", Selected: true, Scenarios: scenarios, Counts: map[string]int{NotRun: 2}, Verdict: NotRun, Reasons: []string{selection.ReasonNotChecked}},
	}
	AddChecks(rules, map[string]int{"API-5": 48})
	var out bytes.Buffer
	NewConsole(&out, FormatCompact, false).Summary(&Report{Outcome: OutcomeFailed, Scenarios: scenarios, Rules: rules})
	line := func(id string) string {
		m := regexp.MustCompile(`(?m)^  ` + id + ` .*$`).FindString(out.String())
		if m == "" {
			t.Fatalf("no line for %s:\n%s", id, out.String())
		}
		return m
	}
	if l := line("API-5"); !strings.Contains(l, "PASSED") || !strings.Contains(l, "48 checks of the answers") {
		t.Errorf("a rule the checks of the answers passed does not say so: %q", l)
	}
	if l := line("API-3"); strings.Contains(l, "PASSED") {
		t.Errorf("a rule nothing judged passed: %q", l)
	}
}
