package explore

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"eventsvc/conformance/explore/flawed"
	"eventsvc/conformance/report"
)

// TestAnExplorerGivesItsSequencesToTheRunThatCallsIt: an Explorer, as a
// run of the scenarios calls it after them, explores the target the run
// gives it with the budget and seed of its options, tells the run of
// each sequence as it ends, and returns them, unwritten: its findings
// with their replay files, its rules with their checks, its seed. It
// writes no report and prints no summary (the run does both, once), and
// sends no preflight of its own to the target the run checked.
func TestAnExplorerGivesItsSequencesToTheRunThatCallsIt(t *testing.T) {
	var preflights atomic.Int64
	base := flawed.StartProxy(t, flawed.Named(t, "a body with markup fails the server"), func(r *http.Request, body []byte, _ int) {
		if r.Method == http.MethodPost && bytes.Contains(body, []byte(" preflight]")) {
			preflights.Add(1)
		}
	})
	dir := t.TempDir()
	var out bytes.Buffer
	var ended []*report.ScenarioResult
	e := Explorer{Options: Options{Seed: 3, MaxActions: 300, Output: &out, ReportDir: dir}}
	rep, err := e.Explore(context.Background(), remote(base), func(s *report.ScenarioResult) { ended = append(ended, s) })
	if err != nil {
		t.Fatalf("Explore = %v\n%s", err, out.String())
	}
	if len(rep.Scenarios) == 0 || len(ended) != len(rep.Scenarios) {
		t.Fatalf("%d sequences returned, %d told as they ended", len(rep.Scenarios), len(ended))
	}
	var finding *report.ScenarioResult
	for _, s := range rep.Scenarios {
		if !s.Sequence() {
			t.Errorf("%s is not a sequence", s.Place())
		}
		if s.Verdict == report.Failed && s.Failure.SameAs == "" {
			finding = s
		}
	}
	if finding == nil || finding.Failure.Replay == "" || !strings.HasPrefix(finding.Failure.ReplayFile, report.ReplayDir+"/") {
		t.Fatalf("no finding with its replay file: %+v", finding)
	}
	file := filepath.Join(t.TempDir(), "replay.json")
	if err := os.WriteFile(file, []byte(finding.Failure.Replay), 0o600); err != nil {
		t.Fatal(err)
	}
	if replay, err := ReadReplay(file); err != nil || replay.Seed != 3 || replay.Sequence != finding.Line {
		t.Errorf("the finding's replay file: %+v, %v", replay, err)
	}
	checks := 0
	for _, r := range rep.Rules {
		checks += r.Checks
	}
	if checks == 0 || !strings.Contains(rep.Selection, "seed 3") || rep.Outcome != report.OutcomeFailed {
		t.Errorf("the exploration's rules hold %d checks, its selection is %q, its outcome %q", checks, rep.Selection, rep.Outcome)
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("the explorer wrote in the report folder of its options: %v", entries)
	}
	if !strings.Contains(out.String(), "Exploring ") || strings.Contains(out.String(), "Rules: ") {
		t.Errorf("the explorer prints a summary, or does not say it explores:\n%s", out.String())
	}
	if n := preflights.Load(); n != 0 {
		t.Errorf("the explorer sent %d preflight creations to a target the run checked", n)
	}
}
