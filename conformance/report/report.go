// Package report holds what a run found (Report: a verdict per scenario and
// per rule, the failures with their reproductions, the baseline) and
// writes it for people and for tools: the console, JUnit XML, Cucumber
// JSON, conformance.json and conformance.html. The scenario runner and the
// explorer both report through it.
package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"eventsvc/conformance/origin"
	"eventsvc/conformance/selection"
	"eventsvc/internal/version"
)

// ErrUsage is wrapped by the errors of what a run is given that cannot
// make one: a baseline, a previous report to run again.
var ErrUsage = errors.New("usage")

// UsageError is what a run was given that cannot make a run (a flag, a
// variable, a tag expression, a file): its message says what is wrong
// and nothing else, and errors.Is(err, ErrUsage) holds of it, so that a
// caller chooses its exit status by its type, not by its text.
type UsageError struct {
	err error
}

// Usage is a UsageError whose message is fmt.Sprintf(format, args...); a
// %w verb wraps its error as fmt.Errorf does.
func Usage(format string, args ...any) error {
	return &UsageError{err: fmt.Errorf(format, args...)}
}

func (e *UsageError) Error() string { return e.err.Error() }

// Unwrap returns the error a %w of the message wrapped, if any.
func (e *UsageError) Unwrap() error { return errors.Unwrap(e.err) }

// Is reports whether target is ErrUsage.
func (e *UsageError) Is(target error) bool { return target == ErrUsage }

// The errors a run's Report ends with (Err); a binary's exit status
// follows from them.
var (
	// ErrFailed: a rule failed, a baseline entry is stale, or an
	// exploration found a fault.
	ErrFailed = errors.New("failed")
	// ErrThrottled: the target answered 429 Too Many Requests.
	ErrThrottled = errors.New("throttled by the target")
	// ErrUnreachable: the target stopped answering during the run.
	ErrUnreachable = errors.New("the target stopped answering")
)

// Err is the error the run ends with: nil when it passed, ErrFailed,
// ErrThrottled or ErrUnreachable (with the report's Error) otherwise.
func (r *Report) Err() error {
	switch r.Outcome {
	case OutcomeThrottled:
		return fmt.Errorf("%w: %s", ErrThrottled, r.Error)
	case OutcomeUnreachable:
		return fmt.Errorf("%w: %s", ErrUnreachable, r.Error)
	case OutcomeFailed:
		return ErrFailed
	}
	return nil
}

// Report is what a run found.
type Report struct {
	Target string // the address checked, or "in-process"
	RunID  string
	// Version is the build of the suite that ran (version.Get).
	Version   version.Info
	Tags      string // the expression as given
	Selection string // the expression in effect, with what the runner adds
	ReadOnly  bool
	Started   time.Time
	Duration  time.Duration
	// Outcome is passed, failed, throttled or "not started".
	Outcome string
	// Error says why the run did not start, or that it was throttled.
	Error     string
	Scenarios []*ScenarioResult
	Rules     []*RuleResult
	// Baseline is what became of each expected failure.
	Baseline    []BaselineStatus
	Concurrency int
	Retries     int
	// FailedLogins is how many token requests with wrong credentials the
	// selected scenarios send (FailedLogins), and an exploration after
	// them may send.
	FailedLogins int
	// Waits counts the 429s with a short Retry-After the run waited out
	// before sending the request again; Waited is how long it waited in
	// all.
	Waits  int
	Waited time.Duration
	// FailOnNotRun says that the run fails when it left rules of the
	// specification unchecked that another run could check (Unchecked):
	// -fail-on-not-run.
	FailOnNotRun bool
	// Foreign are the origins other than the target's that the run sent
	// requests to, where a link, a Location or a redirect of the target
	// led: without credentials, which go to the target's origin only
	// (package origin).
	Foreign []origin.Foreign
	// Varied is, of a run that explored, every operator of the mutator's
	// catalogue: sent, or not and why. Empty when the run did not explore.
	Varied []Varied
	// Settings are what the user set for the run, flag by flag, secrets
	// masked: what another run needs to be the same. Empty for a run
	// started from Go (suite.Run) rather than the command.
	Settings []Setting
}

// Outcomes of a run.
const (
	OutcomePassed    = "passed"
	OutcomeFailed    = "failed"
	OutcomeThrottled = "throttled"
	// OutcomeUnreachable: the target stopped answering during the run.
	OutcomeUnreachable = "unreachable"
	OutcomeNotStarted  = "not started"
	// OutcomeIncomplete is what the reports say while the run is going,
	// and after a run that was killed.
	OutcomeIncomplete = "incomplete"
)

// Counts returns how many rules have each verdict, among those the run
// selected.
func (r *Report) Counts() map[string]int {
	out := map[string]int{}
	for _, rule := range r.Rules {
		if rule.Selected {
			out[rule.Verdict]++
		}
	}
	return out
}

// MarkBaseline marks the rules a baseline entry names, and returns how
// many entries are stale.
func MarkBaseline(rep *Report) int {
	stale := 0
	for _, b := range rep.Baseline {
		if b.Status == EntryStale {
			stale++
		}
		for _, r := range rep.Rules {
			if b.Rule == r.ID {
				r.Expectation, r.Stale = b.Reason, b.Status == EntryStale
			}
		}
	}
	return stale
}

// NotStarted is every scenario of plan, not run because the run did not
// start: those the selection left out too, since a run that did not start
// checked nothing, whatever it would have left out.
func NotStarted(plan []*selection.Planned) []*ScenarioResult {
	var out []*ScenarioResult
	for _, p := range plan {
		p.Reason = selection.ReasonNoStart
		out = append(out, &ScenarioResult{Planned: p, Verdict: NotRun})
	}
	return out
}

// FailedScenarios reads a conformance.json and returns the places of the
// scenarios whose verdict was failed, or setup failed: what -rerun-failed
// runs again. An exploration's sequences are not among them: their
// replay files replay them (conformance explore -replay).
func FailedScenarios(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, Usage("-rerun-failed: %w", err)
	}
	var doc struct {
		Scenarios []struct {
			Place, Verdict string
			Failure        *struct{ Replay string }
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, Usage("-rerun-failed: %s is not a conformance.json: %v", path, err)
	}
	var out, replays []string
	for _, s := range doc.Scenarios {
		if s.Verdict != Failed && s.Verdict != SetupFailed {
			continue
		}
		if file, _, _ := strings.Cut(s.Place, ":"); file == SequenceFile {
			if s.Failure != nil && s.Failure.Replay != "" {
				replays = append(replays, s.Failure.Replay)
			}
			continue
		}
		out = append(out, s.Place)
	}
	if len(out) == 0 && len(replays) > 0 {
		return nil, Usage("-rerun-failed: %s lists no failed scenario, only sequences of an exploration: replay each with conformance explore -replay FILE, its replay file under the report folder: %s", path, strings.Join(replays, ", "))
	}
	if len(out) == 0 {
		return nil, Usage("-rerun-failed: %s lists no failed scenario", path)
	}
	return out, nil
}
