package report

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"eventsvc/conformance/selection"
	"eventsvc/docs"
	"eventsvc/internal/version"
)

// Report file names, written in Options.ReportDir.
const (
	JUnitReport    = "junit.xml"
	CucumberReport = "cucumber.json"
	// ReproDir holds a shell script for each failure, that replays its
	// scenario's requests with curl.
	ReproDir = "repro"
	// RulesPage is the project's documentation page, saved beside the
	// report so that its rule links lead to the rule catalogue whatever
	// the target serves.
	RulesPage = "rules.html"
)

// Writer writes a run's reports in a folder. Each file is written whole,
// under a temporary name that is then renamed: a reader sees the last
// complete version, never a part of one.
type Writer struct {
	// Dir is the folder; "" writes nothing.
	Dir string
	// Keep is a file the run reads, such as the conformance.json of
	// -rerun-failed: only the reports of a run in which a scenario ran
	// replace it, so that a run stopped before its end, or one that could
	// not start, leaves it to be read again.
	Keep string
}

// reportFiles are the reports and how each is rendered.
var reportFiles = []struct {
	name   string
	render func(*Report) ([]byte, error)
}{
	{JUnitReport, junitXML},
	{CucumberReport, cucumberJSON},
	{JSONReport, reportJSON},
	{HTMLReport, reportHTML},
	{RulesPage, func(*Report) ([]byte, error) { return docs.Page() }},
}

// Start replaces the reports of an earlier run by ones saying that this
// run has not finished: what stays if it is killed.
func (w *Writer) Start(rep *Report) error {
	if w.Dir == "" {
		return nil
	}
	if err := os.MkdirAll(w.Dir, 0o755); err != nil {
		return fmt.Errorf("create the report directory: %w", err)
	}
	// The reproductions and replay files of an earlier run would pass
	// for this one's.
	for _, dir := range []string{ReproDir, ReplayDir} {
		if err := os.RemoveAll(filepath.Join(w.Dir, dir)); err != nil {
			return fmt.Errorf("remove the earlier reproductions: %w", err)
		}
	}
	pending := *rep
	pending.Outcome = OutcomeIncomplete
	pending.Error = fmt.Sprintf("the run %s started at %s did not finish: it was stopped, or it is still going", rep.RunID, rep.Started.Format("2006-01-02 15:04:05Z"))
	return w.write(&pending, true)
}

// Finish writes every report of rep, and the reproduction of every
// failure (and the replay file of every finding of an exploration); the
// file it keeps only when a scenario of rep ran.
func (w *Writer) Finish(rep *Report) error {
	return w.write(rep, len(rep.Ran()) == 0)
}

// write writes every report of rep but, with keep, the file w keeps.
func (w *Writer) write(rep *Report, keep bool) error {
	if w.Dir == "" {
		return nil
	}
	for _, s := range rep.Scenarios {
		f := s.Failure
		if f == nil {
			continue
		}
		for _, file := range []struct {
			name, text string
			mode       os.FileMode
		}{{f.ScriptFile, f.Script, 0o755}, {f.ReplayFile, f.Replay, 0o644}} {
			if file.name == "" || file.text == "" {
				continue
			}
			path := filepath.Join(w.Dir, filepath.FromSlash(file.name))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return fmt.Errorf("create the reproductions' folder: %w", err)
			}
			if err := os.WriteFile(path, []byte(file.text), file.mode); err != nil {
				return fmt.Errorf("write a reproduction: %w", err)
			}
		}
	}
	for _, f := range reportFiles {
		path := filepath.Join(w.Dir, f.name)
		if keep && w.keeps(path) {
			continue
		}
		b, err := f.render(rep)
		if err != nil {
			return err
		}
		if err := writeAtomic(path, b); err != nil {
			return err
		}
	}
	return nil
}

// keeps reports whether path is the file w keeps.
func (w *Writer) keeps(path string) bool {
	if w.Keep == "" {
		return false
	}
	a, err := os.Stat(path)
	if err != nil {
		return false
	}
	b, err := os.Stat(w.Keep)
	return err == nil && os.SameFile(a, b)
}

// WriteNotStarted writes in dir the reports of a run that could not
// start, saying why, in place of an earlier run's: a CI job never reads an
// old green report after a run that did not happen. rep may be nil.
func WriteNotStarted(dir string, rep *Report, why error) error {
	return (&Writer{Dir: dir}).NotStarted(rep, why)
}

// NotStarted writes the reports of a run that could not start, saying
// why, in place of an earlier run's, but for the file w keeps. rep may be
// nil.
func (w *Writer) NotStarted(rep *Report, why error) error {
	if rep == nil {
		rep = &Report{Started: time.Now().UTC(), Version: version.Get(), Target: "unknown"}
	}
	failed := *rep
	failed.Outcome, failed.Error = OutcomeNotStarted, why.Error()
	if len(failed.Rules) == 0 {
		// No plan: every rule is listed as not started all the same.
		if catalogue, err := docs.RuleCatalogue(); err == nil {
			failed.Rules = RuleResults(catalogue, nil)
			for _, r := range failed.Rules {
				r.Reasons, r.Selected = []string{selection.ReasonNoStart}, true
			}
		}
	}
	failed.Duration = time.Since(rep.Started)
	if w.Dir != "" {
		if err := os.MkdirAll(w.Dir, 0o755); err != nil {
			return fmt.Errorf("create the report directory: %w", err)
		}
	}
	return w.write(&failed, true)
}

// writeAtomic writes b to path through a temporary file in the same folder.
func writeAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, werr)
	}
	return nil
}
