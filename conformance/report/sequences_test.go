package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"eventsvc/conformance/selection"
)

// merged is a report of a run that explored after its scenarios: two
// scenarios of API-7 and TOK-1 that passed, then two sequences, one that
// passed API-7 and one whose finding fails API-6, with its replay file.
func merged(t *testing.T) *Report {
	t.Helper()
	catalogue := ruleCatalogue(t)
	scenario := func(file string, line int, rule string) *ScenarioResult {
		p := &selection.Planned{Feature: "Reading", File: file, Line: line, Name: "A scenario of " + rule, Rules: []string{rule}, Tags: []string{"@spec", "@" + rule}, Run: true}
		return &ScenarioResult{Planned: p, Verdict: Passed, Attempts: 1}
	}
	sequence := func(n int, rule string, failed bool) *ScenarioResult {
		p := &selection.Planned{Feature: "Exploration", File: SequenceFile, Line: n, Name: "Sequence", Rules: []string{rule}, Tags: []string{"@" + rule}, Run: true,
			Steps: []selection.PlannedStep{{Keyword: "*", Text: "the user creates an event", Line: 1}}}
		s := &ScenarioResult{Planned: p, Verdict: Passed, Attempts: 1, Steps: []StepResult{{PlannedStep: p.Steps[0], Status: "passed"}}}
		if failed {
			s.Verdict, s.Steps[0].Status = Failed, "failed"
			s.Failure = &Failure{Step: "* the user creates an event", Line: 1, Message: "the name reads back as another", Rules: []string{rule}, Required: true,
				Script: "#!/bin/sh\n", Replay: `{"seed": 7, "sequence": 4, "actions": []}` + "\n", ReplayFile: ReplayDir + "/API-6-4.json"}
		}
		return s
	}
	all := []*ScenarioResult{scenario("reading.feature", 15, "API-7"), scenario("tokens.feature", 13, "TOK-1"), sequence(2, "API-7", false), sequence(4, "API-6", true)}
	NameReproductions(all)
	rep := &Report{Target: "http://127.0.0.1:8080", Outcome: OutcomeFailed, Scenarios: all, Rules: RuleResults(catalogue, all)}
	for _, r := range rep.Rules {
		if r.ID == "API-7" {
			r.Checks = 5
		}
	}
	return rep
}

// TestAReportOfScenariosAndSequencesCountsEach: the console's closing
// line counts the scenarios and the sequences that ran, and a rule both
// checked tells the scenarios' verdicts and the sequences' apart, with
// the exploration's checks; the page's header counts the scenarios the
// run selected apart from its sequences.
func TestAReportOfScenariosAndSequencesCountsEach(t *testing.T) {
	rep := merged(t)
	var out bytes.Buffer
	NewConsole(&out, FormatCompact, false).Summary(rep)
	text := out.String()
	for _, want := range []string{
		"; 2 scenarios and 2 sequences in ",
		"API-7    PASSED             1 scenario: 1 passed; 5 checks in 1 sequence: 1 passed\n",
		"API-6    FAILED             1 sequence: 1 failed\n",
		"TOK-1    PASSED             1 scenario: 1 passed\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the summary does not say %q:\n%s", want, text)
		}
	}
	b, err := reportHTML(rep)
	if err != nil {
		t.Fatal(err)
	}
	_, dd, _ := strings.Cut(string(b), "<dt>Scenarios</dt><dd>")
	if want := "2 selected: 2 passed, 0 failed, 0 not run; 2 sequences: 1 passed, 1 failed;"; !strings.HasPrefix(dd, want) {
		t.Errorf("the page's header says %.120q, want %q", dd, want)
	}
}

// TestTheReportsKeepTheReplayFiles: the writer writes a finding's replay
// file where the finding names it, under the report folder, as it writes
// its reproduction script; a run that starts removes those of the run
// before, which would pass for its own.
func TestTheReportsKeepTheReplayFiles(t *testing.T) {
	rep := merged(t)
	dir := t.TempDir()
	w := &Writer{Dir: dir}
	if err := w.Finish(rep); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ReplayDir, "API-6-4.json"))
	if err != nil || !strings.Contains(string(b), `"seed": 7`) {
		t.Fatalf("the replay file: %v, %q", err, b)
	}
	if _, err := os.Stat(filepath.Join(dir, ReproDir, "API-6-explore-4.sh")); err != nil {
		t.Errorf("the reproduction script: %v", err)
	}
	if err := w.Start(&Report{RunID: "next"}); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ReplayDir, "*")); len(left) > 0 {
		t.Errorf("a run that starts leaves the replay files of the run before: %q", left)
	}
}

// TestRerunFailedRunsTheScenariosNotTheSequences: of a report's failures,
// FailedScenarios returns the scenarios' places; the sequences are
// replayed from their replay files, which a report of failed sequences
// alone names.
func TestRerunFailedRunsTheScenariosNotTheSequences(t *testing.T) {
	path := filepath.Join(t.TempDir(), JSONReport)
	write := func(doc string) {
		if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"scenarios": [{"place": "tokens.feature:13", "verdict": "failed"}, {"place": "explore:4", "verdict": "failed", "failure": {"replay": "explore/API-6-4.json"}}]}`)
	got, err := FailedScenarios(path)
	if err != nil || len(got) != 1 || got[0] != "tokens.feature:13" {
		t.Errorf("FailedScenarios = %q, %v; want tokens.feature:13 alone", got, err)
	}
	write(`{"scenarios": [{"place": "reading.feature:15", "verdict": "passed"}, {"place": "explore:4", "verdict": "failed", "failure": {"replay": "explore/API-6-4.json"}}]}`)
	if _, err := FailedScenarios(path); err == nil || !strings.Contains(err.Error(), "conformance explore -replay FILE") || !strings.Contains(err.Error(), "explore/API-6-4.json") {
		t.Errorf("a report of a failed sequence alone: %v; want an error naming its replay", err)
	}
}
