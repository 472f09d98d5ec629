package explore

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
)

// TestAReplayFileEscapesWhatATerminalActsOn: a finding's message quotes
// the target; its replay file writes the C1 controls and bidirectional
// overrides in it as \u escapes (JSON escapes the C0 controls itself), and
// reads back the same.
func TestAReplayFileEscapesWhatATerminalActsOn(t *testing.T) {
	message := "the answer said \x1b]0;pwned\x07 \u009b31m \u202eevil"
	dir := t.TempDir()
	r := &runner{o: Options{Seed: 7}, replays: map[int][]Action{3: {{Kind: KindRoot, As: AsUser}}}}
	res := &report.ScenarioResult{Planned: &selection.Planned{Name: "sequence 3", Line: 3}, Verdict: report.Failed,
		Failure: &report.Failure{Message: message, Rules: []string{"API-1"}}}
	if err := r.nameReplays([]*report.ScenarioResult{res}); err != nil {
		t.Fatal(err)
	}
	if err := (&report.Writer{Dir: dir}).Finish(&report.Report{Scenarios: []*report.ScenarioResult{res}}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, filepath.FromSlash(res.Failure.ReplayFile))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]").FindAllString(string(b), -1); m != nil {
		t.Errorf("the replay file holds %q:\n%s", m, b)
	}
	replay, err := ReadReplay(path)
	if err != nil {
		t.Fatal(err)
	}
	if replay.Message != message {
		t.Errorf("the replay's message reads back as %q, want %q", replay.Message, message)
	}
}

func TestAReplayFileHoldsActionsSentTogether(t *testing.T) {
	write := func(actions ...Action) string {
		b, err := json.Marshal(Replay{Seed: 1, Actions: actions})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "replay.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	sent := together(createAs(AsUser), updateAs(AsOther, 1, map[string]any{"name": "Renamed"}), refreshOf(AsOther))
	replay, err := ReadReplay(write(createAs(AsUser), sent))
	if err != nil {
		t.Fatal(err)
	}
	if got := replay.Actions[1]; got.String() != sent.String() || len(got.Parts) != 3 || got.Parts[1].Event != 1 {
		t.Fatalf("read back as %v", got)
	}
	for name, bad := range map[string]Action{
		"one part":          together(createAs(AsUser)),
		"five parts":        together(createAs(AsUser), createAs(AsUser), createAs(AsUser), createAs(AsUser), createAs(AsUser)),
		"a read":            together(createAs(AsUser), Action{Kind: KindRead, As: AsUser}),
		"an anonymous part": together(createAs(AsUser), createAs(AsAnonymous)),
		"nested":            together(createAs(AsUser), together(createAs(AsUser), createAs(AsOther))),
		"parts of a read":   {Kind: KindRead, As: AsUser, Parts: []Action{createAs(AsUser)}},
	} {
		if _, err := ReadReplay(write(bad)); err == nil {
			t.Errorf("%s: a replay file of %v is read", name, bad)
		}
	}
}
