package explore

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"eventsvc/conformance/explore/flawed"
	"eventsvc/conformance/report"
	"eventsvc/conformance/report/reporttest"
)

// TestAnAnswerCutIsAFindingOfItsOwnKind: an event longer than MaxAnswer
// is a finding of its own kind, which blames no rule: the first is shrunk
// and kept in a replay file named for it, which finds it again.
func TestAnAnswerCutIsAFindingOfItsOwnKind(t *testing.T) {
	ref := flawed.Start(t, flawed.Flaw{Name: "none"})
	anEvent := regexp.MustCompile(`^/api/events/[0-9]+$`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && anEvent.MatchString(r.URL.Path) {
			w.Header().Set("Content-Type", "application/hal+json")
			w.Write(bytes.Repeat([]byte(" "), 1<<20))
			return
		}
		forward(w, r, ref)
	}))
	defer srv.Close()
	target := remote(srv.URL)
	target.MaxAnswer = 64 << 10
	dir := t.TempDir()
	var out bytes.Buffer
	rep, err := Run(context.Background(), Options{Target: target, Seed: 1, MaxActions: 40, Output: &out, ReportDir: dir})
	if !errors.Is(err, ErrFailed) || rep == nil || rep.AnswersCut() == 0 {
		t.Fatalf("Run = %v; want answers cut\n%s", err, out.String())
	}
	reporttest.Check(t, dir)
	var shrunk *report.ScenarioResult
	for _, s := range rep.Scenarios {
		f := s.Failure
		if s.Verdict != report.Failed {
			continue
		}
		if !f.AnswerCut || len(f.Rules) != 0 || len(s.Blamed()) != 0 || !strings.Contains(f.Message, "was cut at 64 KiB") {
			t.Errorf("%s: %+v blames %v; want the answer cut, blaming no rule", s.Place(), f, s.Blamed())
		}
		if shrunk == nil && !strings.Contains(s.Name, "another finding") {
			shrunk = s
		} else if !strings.Contains(s.Name, "another finding of answer cut") {
			t.Errorf("%s is named %q; want it to point at the finding of its kind shrunk", s.Place(), s.Name)
		}
	}
	if shrunk == nil || !regexp.MustCompile(`^explore/answer-cut-[0-9]+\.json$`).MatchString(shrunk.Failure.ReplayFile) {
		t.Fatalf("no shrunk finding with a replay file named for it:\n%s", out.String())
	}
	replay, err := ReadReplay(filepath.Join(dir, shrunk.Failure.ReplayFile))
	if err != nil || replay.Finding != "answer cut" {
		t.Fatalf("the replay file: %+v, %v", replay, err)
	}
	out.Reset()
	again, err := Run(context.Background(), Options{Target: target, Replay: replay, Output: &out})
	if !errors.Is(err, ErrFailed) || !again.Scenarios[0].Failure.AnswerCut {
		t.Fatalf("the replay: Run = %v\n%s", err, out.String())
	}
}
