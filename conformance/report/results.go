package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"eventsvc/conformance/selection"
)

// Verdicts of a scenario and of a rule.
const (
	Passed          = "passed"
	Failed          = "failed"
	ExpectedFailure = "expected failure" // failed, as a baseline entry says it does
	Flaky           = "flaky"            // failed, then passed on a retry
	NotRun          = "not run"
	// SetupFailed is a scenario whose arranging steps failed: it checked
	// none of its rules, and blames none.
	SetupFailed = "setup failed"
)

// ScenarioResult is what became of one planned scenario.
type ScenarioResult struct {
	*selection.Planned
	Verdict string
	// Detail says more about why a scenario was not run, such as the
	// reason a step gave for skipping it.
	Detail string
	// Attempts is how many times it ran: more than one after retries.
	Attempts int
	Duration time.Duration
	Steps    []StepResult // of its last attempt
	// Failure is the failure of its first failing attempt.
	Failure *Failure
	// Expectation is the reason of the baseline entry that expects it to
	// fail, when there is one.
	Expectation string
}

// Blamed returns the rules the scenario's failure proves broken: those
// its failing check names, among the scenario's rules (all of them when
// the check names none of them), or as they are when the check requires
// them; none for a setup failure, a server error or an answer cut.
func (s *ScenarioResult) Blamed() []string {
	switch s.Verdict {
	case Failed, ExpectedFailure, Flaky:
	default:
		return nil
	}
	if s.Failure != nil && (s.Failure.ServerError || s.Failure.AnswerCut) {
		return nil
	}
	if s.Failure == nil || len(s.Failure.Rules) == 0 {
		return s.Rules
	}
	if s.Failure.Required {
		return s.Failure.Rules
	}
	var out []string
	for _, r := range s.Failure.Rules {
		if slices.Contains(s.Rules, r) {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return s.Rules
	}
	return out
}

// VerdictFor is the scenario's verdict for one of its rules: a failure
// (expected or flaky too) counts for the rules it blames; for its other
// rules the scenario is not checked, or, flaky, passed on its retry.
func (s *ScenarioResult) VerdictFor(rule string) string {
	switch s.Verdict {
	case Failed, ExpectedFailure:
		if slices.Contains(s.Blamed(), rule) {
			return s.Verdict
		}
		return NotRun
	case Flaky:
		if slices.Contains(s.Blamed(), rule) {
			return Flaky
		}
		return Passed
	case SetupFailed:
		return NotRun
	}
	return s.Verdict
}

// StepResult is one step of a scenario as it ran.
type StepResult struct {
	selection.PlannedStep
	Status   string // passed, failed, skipped, undefined, pending, ambiguous; "" when it did not run
	Duration time.Duration
	Error    string   // masked
	Rules    []string // the rules its failure proves broken, when it names them
	Required bool     // blamed whatever the scenario checks (Failure.Required)
	// Setup is true when the step could not go on and nothing was found
	// at fault: a setup failure, whatever its keyword.
	Setup bool
	// Cause names the fault its failure shows (Failure.Cause).
	Cause string
	// AnswerCut is true when an answer of the step was cut
	// (Failure.AnswerCut).
	AnswerCut bool
	// DeadLink, when set, says that the step failed at a dead link of
	// the target (deadlink.Error): it checked nothing.
	DeadLink string
}

// Failure says where and how a scenario failed. Every text is masked.
type Failure struct {
	Step     string // the failing step, with its keyword
	Line     int    // the failing step's line
	Message  string // what was expected and what came
	Exchange string // the request and the answer that caused it, if any
	// Rules are the rules the failing check names (empty: it names none).
	Rules []string
	// Required is true when those rules are blamed whatever the scenario
	// checks: the target broke them on the way to the check.
	Required bool
	// Setup is true when a step that only arranges failed.
	Setup bool
	// Exchanges are the scenario's requests and answers up to the
	// failure, masked, in order: up to and including the failing one,
	// when the failure is about one; those sent after it (the checks'
	// probes that tell which rule is broken) are left out.
	Exchanges []string
	// FailingExchange is the number, from 1, of the exchange of Exchanges
	// the failure is about: the last. 0 when it is about none of them.
	FailingExchange int
	// Script replays them with curl (steps.Reproduction); ScriptFile is
	// where the reports keep it, under the report folder.
	Script, ScriptFile string
	// ServerError is true for an answer of 5xx an exploration met: a
	// fault of its own kind, which blames no rule.
	ServerError bool
	// AnswerCut is true when the failure is an answer cut by a bound of
	// the run (cutoff.CutError): longer than it may be, or not over in
	// time. It is a finding of its own kind, which blames no rule.
	AnswerCut bool
	// Replay is, of an exploration's finding, the file that `conformance
	// explore -replay` runs again; ReplayFile is where the reports keep
	// it, under the report folder.
	Replay, ReplayFile string
	// SameAs is the place of another failure of the same kind, told in
	// full (an exploration's finding of a kind it shrank in another
	// sequence): the console tells this one in a line pointing to it.
	SameAs string
	// Cause names the fault the failure shows, when the registry's
	// finding that failed it names one (audit.Finding.Cause); SameCause
	// is, of the failure told in full, how many others show it
	// (TellCausesOnce).
	Cause     string
	SameCause int
}

// Text is the failure as one text: message, then exchange.
func (f *Failure) Text() string {
	if f.Exchange == "" {
		return f.Message
	}
	return f.Message + "\n\n" + f.Exchange
}

// blameText says what a failed scenario blames: "fails API-8", "setup
// failed: no rule checked", and which of its rules it did not check.
func blameText(s *ScenarioResult) string {
	if s.Verdict == SetupFailed {
		return "setup failed: none of " + strings.Join(s.Rules, ", ") + " checked"
	}
	if s.Failure != nil && s.Failure.ServerError {
		return "server error: the target failed (5xx), which no rule allows"
	}
	if s.Failure != nil && s.Failure.AnswerCut {
		return "answer cut: an answer of the target was longer than -max-answer or slower than -timeout; no rule is blamed"
	}
	blamed := s.Blamed()
	text := "fails " + strings.Join(blamed, ", ")
	var unchecked []string
	for _, r := range s.Rules {
		if !slices.Contains(blamed, r) {
			unchecked = append(unchecked, r)
		}
	}
	switch {
	case len(unchecked) > 0 && s.Failure != nil && s.Failure.Required:
		text += "; not checked: " + strings.Join(unchecked, ", ") + ", as the scenario could not go on past that fault"
	case len(unchecked) > 0:
		text += "; not checked: " + strings.Join(unchecked, ", ")
	}
	return text
}

// Findings counts the scenarios of the run that failed, server errors
// included.
func (r *Report) Findings() int {
	return r.count(func(s *ScenarioResult) bool { return s.Verdict == Failed })
}

// ServerErrors counts the failures that are server errors.
func (r *Report) ServerErrors() int {
	return r.count(func(s *ScenarioResult) bool { return s.Verdict == Failed && s.Failure != nil && s.Failure.ServerError })
}

// AnswersCut counts the failures that are answers cut.
func (r *Report) AnswersCut() int {
	return r.count(func(s *ScenarioResult) bool { return s.Verdict == Failed && s.Failure != nil && s.Failure.AnswerCut })
}

// SetupFailures counts the scenarios of the run whose setup failed.
func (r *Report) SetupFailures() int {
	return r.count(func(s *ScenarioResult) bool { return s.Verdict == SetupFailed })
}

// count counts the scenarios of the run that is says yes to.
func (r *Report) count(is func(s *ScenarioResult) bool) int {
	n := 0
	for _, s := range r.Scenarios {
		if is(s) {
			n++
		}
	}
	return n
}

// NameReproductions gives each failure with a script the file its
// reproduction is kept in, under the report folder: repro/<the first rule
// it blames, or setup>-<feature>-<line>.sh.
func NameReproductions(scenarios []*ScenarioResult) {
	for _, s := range scenarios {
		f := s.Failure
		if f == nil || f.Script == "" || s.Verdict == NotRun {
			continue
		}
		what := "setup"
		if b := s.Blamed(); len(b) > 0 {
			what = b[0]
		}
		if f.ServerError {
			what = "server-error"
		}
		if f.AnswerCut {
			what = "answer-cut"
		}
		f.ScriptFile = fmt.Sprintf("%s/%s-%s-%d.sh", ReproDir, what, strings.TrimSuffix(s.File, ".feature"), s.Line)
	}
}
