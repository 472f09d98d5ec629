package report

import (
	"strings"
	"testing"

	"eventsvc/conformance/selection"
)

// TestAnAnswerCutBlamesNoRule: a scenario that failed because an answer
// was cut fails the run, blames none of its rules, says so, and keeps its
// reproduction under a name of its kind.
func TestAnAnswerCutBlamesNoRule(t *testing.T) {
	s := &ScenarioResult{
		Planned: &selection.Planned{File: "reading.feature", Line: 15, Rules: []string{"API-7", "SVC-5"}},
		Verdict: Failed,
		Failure: &Failure{AnswerCut: true, Rules: []string{"API-7"}, Script: "#!/bin/sh\n"},
	}
	if b := s.Blamed(); len(b) != 0 {
		t.Errorf("Blamed() = %v, want none", b)
	}
	if v := s.VerdictFor("API-7"); v != NotRun {
		t.Errorf("VerdictFor(API-7) = %q, want %q", v, NotRun)
	}
	if text := blameText(s); !strings.HasPrefix(text, "answer cut: ") || !strings.Contains(text, "no rule is blamed") {
		t.Errorf("blameText = %q", text)
	}
	NameReproductions([]*ScenarioResult{s})
	if s.Failure.ScriptFile != ReproDir+"/answer-cut-reading-15.sh" {
		t.Errorf("ScriptFile = %q", s.Failure.ScriptFile)
	}
	rep := &Report{Scenarios: []*ScenarioResult{s}}
	if rep.AnswersCut() != 1 || rep.Findings() != 1 || rep.ServerErrors() != 0 {
		t.Errorf("answers cut %d, findings %d, server errors %d; want 1, 1, 0", rep.AnswersCut(), rep.Findings(), rep.ServerErrors())
	}
}
