package conformance

import (
	"eventsvc/selection"

	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"

	"eventsvc/redact"
	"eventsvc/steps"
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
// them; none for a setup failure.
func (s *ScenarioResult) Blamed() []string {
	switch s.Verdict {
	case Failed, ExpectedFailure, Flaky:
	default:
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
	// failure, masked, in order.
	Exchanges []string
	// Script replays them with curl (steps.Reproduction); ScriptFile is
	// where the reports keep it, under the report folder.
	Script, ScriptFile string
}

// Text is the failure as one text: message, then exchange.
func (f *Failure) Text() string {
	if f.Exchange == "" {
		return f.Message
	}
	return f.Message + "\n\n" + f.Exchange
}

// collector records every scenario of a godog run through hooks of its
// own, added to every scenario's context. It is safe for concurrent
// scenarios.
type collector struct {
	redactor *redact.Redactor

	mu        sync.Mutex
	results   []*ScenarioResult
	unclaimed map[string][]*ScenarioResult // pickle key → results not yet begun
	attempt   int                          // 1, then 2… on retries
	retry     map[*ScenarioResult]bool     // the scenarios a retry runs
	running   map[*ScenarioResult]time.Time
	throttle  *throttleWatch
	ended     func(*ScenarioResult) // told when a scenario's attempt ends
	now       func() time.Time
}

func newCollector(plan []*selection.Planned, redactor *redact.Redactor, throttle *throttleWatch, ended func(*ScenarioResult)) *collector {
	c := &collector{
		redactor: redactor, throttle: throttle, ended: ended, now: time.Now,
		unclaimed: map[string][]*ScenarioResult{}, running: map[*ScenarioResult]time.Time{},
	}
	for _, p := range plan {
		r := &ScenarioResult{Planned: p, Verdict: NotRun}
		c.results = append(c.results, r)
	}
	c.startAttempt(1, nil)
	return c
}

// startAttempt prepares a godog run: the first one, or a retry of some.
func (c *collector) startAttempt(n int, only map[*ScenarioResult]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.attempt, c.retry = n, only
	c.unclaimed = map[string][]*ScenarioResult{}
	for _, r := range c.results {
		if r.Run && (only == nil || only[r]) {
			c.unclaimed[r.Key()] = append(c.unclaimed[r.Key()], r)
		}
	}
}

// scenarioRun is one attempt of one scenario.
type scenarioRun struct {
	res       *ScenarioResult
	start     time.Time
	stepStart time.Time
	steps     []StepResult
	skip      string // why a step or hook skipped it
	err       error
	repro     *steps.Reproduction // of the first failed step
}

// wrap adds the collector's hooks around inner's.
func (c *collector) wrap(inner func(*godog.ScenarioContext)) func(*godog.ScenarioContext) {
	return func(sc *godog.ScenarioContext) {
		var run *scenarioRun
		sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
			run = c.begin(p)
			if run == nil {
				return ctx, fmt.Errorf("%w: not part of this attempt", godog.ErrSkip)
			}
			if c.throttle != nil && c.throttle.hit() != nil {
				run.skip = selection.ReasonThrottle
				return ctx, fmt.Errorf("%w: %s", godog.ErrSkip, selection.ReasonText(selection.ReasonThrottle))
			}
			if c.throttle != nil && c.throttle.unreachable() != nil {
				run.skip = selection.ReasonUnreachable
				return ctx, fmt.Errorf("%w: %s", godog.ErrSkip, selection.ReasonText(selection.ReasonUnreachable))
			}
			return ctx, nil
		})
		inner(sc)
		sc.StepContext().Before(func(ctx context.Context, _ *godog.Step) (context.Context, error) {
			if run != nil {
				run.stepStart = c.now()
			}
			return ctx, nil
		})
		sc.StepContext().After(func(ctx context.Context, st *godog.Step, status godog.StepResultStatus, err error) (context.Context, error) {
			if run != nil {
				if r, ok := steps.ReproductionOf(ctx); ok && run.repro == nil {
					run.repro = &r
				}
				c.step(run, st, status, err)
			}
			return ctx, nil
		})
		sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
			if run != nil {
				c.end(run)
				run = nil
			}
			return ctx, nil
		})
	}
}

func (c *collector) begin(p *godog.Scenario) *scenarioRun {
	var tags, texts []string
	for _, t := range p.Tags {
		tags = append(tags, t.Name)
	}
	for _, s := range p.Steps {
		texts = append(texts, s.Text)
	}
	key := selection.PickleKey(p.Uri, p.Name, tags, texts)
	c.mu.Lock()
	defer c.mu.Unlock()
	q := c.unclaimed[key]
	if len(q) == 0 {
		return nil
	}
	r := q[0]
	c.unclaimed[key] = q[1:]
	now := c.now()
	c.running[r] = now
	return &scenarioRun{res: r, start: now, stepStart: now}
}

func (c *collector) step(run *scenarioRun, st *godog.Step, status godog.StepResultStatus, err error) {
	if status == godog.StepPassed && err != nil && !errors.Is(err, godog.ErrSkip) {
		// An after-step hook of the steps (the OpenAPI check of @ref
		// answers) failed a step that passed: godog fails it too.
		status = godog.StepFailed
	}
	i := len(run.steps)
	sr := StepResult{Status: status.String(), Duration: c.now().Sub(run.stepStart)}
	if i < len(run.res.Planned.Steps) {
		sr.PlannedStep = run.res.Planned.Steps[i]
	} else {
		sr.Text = st.Text
	}
	switch {
	case errors.Is(err, godog.ErrSkip) && run.skip == "":
		run.skip = selection.ReasonTarget
		sr.Error = c.redactor.String(skipReason(err))
	case err != nil && status != godog.StepSkipped:
		sr.Error = c.redactor.String(err.Error())
		var broken interface {
			BrokenRules() []string
			Required() bool
		}
		if errors.As(err, &broken) {
			sr.Rules, sr.Required = broken.BrokenRules(), broken.Required()
		}
		if run.err == nil {
			run.err = err
		}
	}
	if status == godog.StepUndefined && sr.Error == "" {
		sr.Error = "undefined step: no step definition matches this text"
	}
	run.steps = append(run.steps, sr)
}

// skipReason is the reason a step gave with godog.ErrSkip:
// fmt.Errorf("%w: <reason>", godog.ErrSkip).
func skipReason(err error) string {
	msg := err.Error()
	for _, prefix := range []string{"before scenario hook failed: ", godog.ErrSkip.Error() + ": "} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	if msg == godog.ErrSkip.Error() {
		return "skipped"
	}
	return msg
}

func (c *collector) end(run *scenarioRun) {
	c.mu.Lock()
	r := run.res
	delete(c.running, r)
	// Steps godog did not reach are listed as not run.
	for len(run.steps) < len(r.Planned.Steps) {
		run.steps = append(run.steps, StepResult{PlannedStep: r.Planned.Steps[len(run.steps)], Status: "skipped"})
	}
	r.Attempts = c.attempt
	r.Duration += c.now().Sub(run.start)
	r.Steps = run.steps
	failedNow := false
	for _, s := range run.steps {
		if s.Status == "failed" || s.Status == "undefined" || s.Status == "pending" || s.Status == "ambiguous" {
			failedNow = true
			if r.Failure == nil {
				f := &Failure{Step: strings.TrimSpace(s.Keyword + " " + s.Text), Line: s.Line, Rules: s.Rules, Required: s.Required}
				f.Setup = s.Arranges && len(s.Rules) == 0
				f.Message, f.Exchange, _ = strings.Cut(s.Error, "\n\n")
				if run.repro != nil {
					for _, x := range run.repro.Exchanges {
						f.Exchanges = append(f.Exchanges, c.redactor.String(x))
					}
					f.Script = c.redactor.String(run.repro.Script)
				}
				r.Failure = f
			}
			break
		}
	}
	if c.throttle != nil && c.throttle.hitSince(run.start) {
		// A 429 is the target protecting itself, not a broken rule.
		failedNow = false
		run.skip = selection.ReasonThrottle
	}
	if c.throttle != nil && c.throttle.downSince(run.start) {
		// A target that stopped answering broke no rule that it showed.
		failedNow = false
		run.skip = selection.ReasonUnreachable
	}
	switch {
	case failedNow && c.attempt == 1 && r.Failure.Setup:
		r.Verdict = SetupFailed
	case failedNow && c.attempt == 1:
		r.Verdict = Failed
	case failedNow:
		// still failing on a retry
	case run.skip != "":
		r.Verdict, r.Reason = NotRun, run.skip
		r.Failure = nil
		for _, s := range run.steps {
			if s.Error != "" && run.skip == selection.ReasonTarget {
				r.Detail = s.Error
				break
			}
		}
		switch run.skip {
		case selection.ReasonThrottle:
			r.Detail = c.throttle.hit().Error()
		case selection.ReasonUnreachable:
			r.Detail = c.throttle.unreachable().Error()
		}
	case c.attempt > 1:
		r.Verdict = Flaky
	default:
		r.Verdict = Passed
	}
	c.mu.Unlock()
	if c.ended != nil {
		c.ended(r)
	}
}

// longRunning returns the scenarios running for longer than d, and for
// how long.
func (c *collector) longRunning(d time.Duration) map[*ScenarioResult]time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[*ScenarioResult]time.Duration{}
	now := c.now()
	for r, since := range c.running {
		if now.Sub(since) >= d {
			out[r] = now.Sub(since)
		}
	}
	return out
}

// finish marks the selected scenarios godog never began as left out by
// go test -run, and returns the results in the plan's order.
func (c *collector) finish() []*ScenarioResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.results {
		if r.Run && r.Attempts == 0 && r.Reason == "" {
			// Not selected after all: its rules are not listed.
			r.Verdict, r.Reason, r.Run = NotRun, selection.ReasonFiltered, false
		}
	}
	return c.results
}

// blameText says what a failed scenario blames: "fails API-8", "setup
// failed: no rule checked", and which of its rules it did not check.
func blameText(s *ScenarioResult) string {
	if s.Verdict == SetupFailed {
		return "setup failed: none of " + strings.Join(s.Rules, ", ") + " checked"
	}
	blamed := s.Blamed()
	text := "fails " + strings.Join(blamed, ", ")
	var unchecked []string
	for _, r := range s.Rules {
		if !slices.Contains(blamed, r) {
			unchecked = append(unchecked, r)
		}
	}
	if len(unchecked) > 0 {
		text += "; not checked: " + strings.Join(unchecked, ", ")
	}
	return text
}

// setupFailures counts the scenarios of the run whose setup failed.
func (r *Report) setupFailures() int {
	n := 0
	for _, s := range r.Scenarios {
		if s.Verdict == SetupFailed {
			n++
		}
	}
	return n
}

// nameReproductions gives each failure with a script the file its
// reproduction is kept in, under the report folder: repro/<the first rule
// it blames, or setup>-<feature>-<line>.sh.
func nameReproductions(scenarios []*ScenarioResult) {
	for _, s := range scenarios {
		f := s.Failure
		if f == nil || f.Script == "" || s.Verdict == NotRun {
			continue
		}
		what := "setup"
		if b := s.Blamed(); len(b) > 0 {
			what = b[0]
		}
		f.ScriptFile = fmt.Sprintf("%s/%s-%s-%d.sh", ReproDir, what, strings.TrimSuffix(s.File, ".feature"), s.Line)
	}
}
