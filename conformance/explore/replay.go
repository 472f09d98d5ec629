package explore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"eventsvc/conformance/report"
)

// ReplayDir is the folder, under the report folder, of the replay files
// of a run's findings.
const ReplayDir = report.ReplayDir

// Replay is a sequence as a file keeps it: the seed and sequence that
// drew it, what it found, and its actions, which `conformance explore
// -replay FILE` runs again.
type Replay struct {
	Seed     uint64   `json:"seed"`
	Sequence int      `json:"sequence"`
	Target   string   `json:"target"`
	Finding  string   `json:"finding"` // the rule it breaks, "server error" or "answer cut"
	Message  string   `json:"message"`
	Actions  []Action `json:"actions"`
}

// ReadReplay reads a replay file.
func ReadReplay(path string) (*Replay, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	var r Replay
	if err := d.Decode(&r); err != nil {
		return nil, fmt.Errorf("replay %s: %w", path, err)
	}
	if len(r.Actions) == 0 {
		return nil, fmt.Errorf("replay %s: no actions", path)
	}
	for i, a := range r.Actions {
		if err := a.valid(); err != nil {
			return nil, fmt.Errorf("replay %s: action %d: %w", path, i+1, err)
		}
	}
	return &r, nil
}

// nameReplays gives every finding its replay file, which the reports
// write under the report folder (report.Failure.Replay, ReplayFile).
func (r *runner) nameReplays(results []*report.ScenarioResult) error {
	for _, res := range results {
		f := res.Failure
		if f == nil || res.Verdict != report.Failed {
			continue
		}
		rp := Replay{Seed: r.o.Seed, Sequence: res.Line, Target: r.target.BaseURL, Finding: FindingName(f), Message: f.Message, Actions: r.replays[res.Line]}
		b, err := json.MarshalIndent(rp, "", "  ")
		if err != nil {
			return err
		}
		f.Replay = string(append(report.EscapeJSON(b), '\n'))
		f.ReplayFile = fmt.Sprintf("%s/%s-%d.json", ReplayDir, fileWord(FindingName(f)), res.Line)
	}
	return nil
}

// FindingName is what a finding of the exploration is about: the rule
// its failure blames, "answer cut" or "server error". It names the
// finding's replay file.
func FindingName(f *report.Failure) string {
	switch {
	case f.AnswerCut:
		return "answer cut"
	case f.ServerError || len(f.Rules) == 0:
		return "server error"
	}
	return f.Rules[0]
}

// fileWord is s as a word of a file name.
func fileWord(s string) string { return strings.ReplaceAll(s, " ", "-") }
