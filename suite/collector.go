package suite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"

	"eventsvc/conformance/cutoff"
	"eventsvc/conformance/deadlink"
	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
	"eventsvc/internal/redact"
	"eventsvc/steps"
)

// collector records every scenario of a godog run through hooks of its
// own, added to every scenario's context. It is safe for concurrent
// scenarios.
type collector struct {
	redactor *redact.Redactor

	mu        sync.Mutex
	results   []*report.ScenarioResult
	unclaimed map[string][]*report.ScenarioResult // pickle key → results not yet begun
	attempt   int                                 // 1, then 2… on retries
	retry     map[*report.ScenarioResult]bool     // the scenarios a retry runs
	running   map[*report.ScenarioResult]time.Time
	throttle  *target.Watch
	ended     func(*report.ScenarioResult) // told when a scenario's attempt ends
	now       func() time.Time
}

func newCollector(plan []*selection.Planned, redactor *redact.Redactor, throttle *target.Watch, ended func(*report.ScenarioResult)) *collector {
	c := &collector{
		redactor: redactor, throttle: throttle, ended: ended, now: time.Now,
		unclaimed: map[string][]*report.ScenarioResult{}, running: map[*report.ScenarioResult]time.Time{},
	}
	for _, p := range plan {
		r := &report.ScenarioResult{Planned: p, Verdict: report.NotRun}
		c.results = append(c.results, r)
	}
	c.startAttempt(1, nil)
	return c
}

// startAttempt prepares a godog run: the first one, or a retry of some.
func (c *collector) startAttempt(n int, only map[*report.ScenarioResult]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.attempt, c.retry = n, only
	c.unclaimed = map[string][]*report.ScenarioResult{}
	for _, r := range c.results {
		if r.Run && (only == nil || only[r]) {
			c.unclaimed[r.Key()] = append(c.unclaimed[r.Key()], r)
		}
	}
}

// scenarioRun is one attempt of one scenario.
type scenarioRun struct {
	res *report.ScenarioResult
	// attempt is its number: 1, then 2… on retries. A watched scenario
	// (lifetimes.go) may end while the retries of others run.
	attempt   int
	start     time.Time
	stepStart time.Time
	steps     []report.StepResult
	skip      string // why a step or hook skipped it
	err       error
	repro     *steps.Reproduction // of the first failed step
	deadLink  string              // why its first failure checked nothing
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
			if c.throttle != nil && c.throttle.Throttled() != nil {
				run.skip = selection.ReasonThrottle
				return ctx, fmt.Errorf("%w: %s", godog.ErrSkip, selection.ReasonText(selection.ReasonThrottle))
			}
			if c.throttle != nil && c.throttle.Unreachable() != nil {
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
				if cut := steps.CutOf(ctx); cut != nil {
					// An answer cut is the step's failure, whatever
					// else the step met on the way.
					status, err = godog.StepFailed, cut
				} else if dead := steps.DeadLinkOf(ctx); dead != nil {
					// A failure at a dead link checked nothing.
					err = dead
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

// pickleKey is the key of the planned scenario p is (Planned.Key).
func pickleKey(p *godog.Scenario) string {
	var tags, texts []string
	for _, t := range p.Tags {
		tags = append(tags, t.Name)
	}
	for _, s := range p.Steps {
		texts = append(texts, s.Text)
	}
	return selection.PickleKey(p.Uri, p.Name, tags, texts)
}

func (c *collector) begin(p *godog.Scenario) *scenarioRun {
	key := pickleKey(p)
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
	return &scenarioRun{res: r, attempt: c.attempt, start: now, stepStart: now}
}

func (c *collector) step(run *scenarioRun, st *godog.Step, status godog.StepResultStatus, err error) {
	if status == godog.StepPassed && err != nil && !errors.Is(err, godog.ErrSkip) {
		// An after-step hook of the steps (the OpenAPI check of @ref
		// answers) failed a step that passed: godog fails it too.
		status = godog.StepFailed
	}
	i := len(run.steps)
	sr := report.StepResult{Status: status.String(), Duration: c.now().Sub(run.stepStart)}
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
			Setup() bool
			Cause() string
		}
		var cut *cutoff.CutError
		var dead *deadlink.Error
		switch {
		case errors.As(err, &cut):
			sr.AnswerCut = true // a finding of its own kind: no rule
		case errors.As(err, &dead):
			sr.DeadLink = c.redactor.String(dead.Error()) // not checked: the run tells the link once
		case errors.As(err, &broken):
			sr.Rules, sr.Required, sr.Setup, sr.Cause = broken.BrokenRules(), broken.Required(), broken.Setup(), broken.Cause()
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
		run.steps = append(run.steps, report.StepResult{PlannedStep: r.Planned.Steps[len(run.steps)], Status: "skipped"})
	}
	r.Attempts = run.attempt
	r.Duration += c.now().Sub(run.start)
	r.Steps = run.steps
	failedNow := false
	for _, s := range run.steps {
		if s.Status == "failed" && s.DeadLink != "" {
			// The first failure was at a dead link: nothing was checked.
			run.skip = selection.ReasonDeadLink
			run.deadLink = s.DeadLink
			break
		}
		if s.Status == "failed" || s.Status == "undefined" || s.Status == "pending" || s.Status == "ambiguous" {
			failedNow = true
			if r.Failure == nil {
				f := &report.Failure{Step: strings.TrimSpace(s.Keyword + " " + s.Text), Line: s.Line, Rules: s.Rules, Required: s.Required, AnswerCut: s.AnswerCut, Cause: s.Cause}
				f.Setup = (s.Arranges || s.Setup) && len(s.Rules) == 0 && !s.AnswerCut
				f.Message, f.Exchange, _ = strings.Cut(s.Error, "\n\n")
				if run.repro != nil {
					for _, x := range run.repro.Exchanges {
						f.Exchanges = append(f.Exchanges, c.redactor.String(x))
					}
					if run.repro.LastFails {
						f.FailingExchange = len(f.Exchanges)
					}
					// Masked as it was written: masking a script
					// afterwards could cut its quoting.
					f.Script = run.repro.Script
				}
				r.Failure = f
			}
			break
		}
	}
	if c.throttle != nil && c.throttle.ThrottledSince(run.start) {
		// A 429 is the target protecting itself, not a broken rule.
		failedNow = false
		run.skip = selection.ReasonThrottle
	}
	if c.throttle != nil && c.throttle.DownSince(run.start) {
		// A target that stopped answering broke no rule that it showed.
		failedNow = false
		run.skip = selection.ReasonUnreachable
	}
	switch {
	case failedNow && run.attempt == 1 && r.Failure.Setup:
		r.Verdict = report.SetupFailed
	case failedNow && run.attempt == 1:
		r.Verdict = report.Failed
	case failedNow:
		// still failing on a retry
	case run.skip != "":
		r.Verdict, r.Reason = report.NotRun, run.skip
		r.Failure = nil
		for _, s := range run.steps {
			if s.Error != "" && run.skip == selection.ReasonTarget {
				r.Detail = s.Error
				break
			}
		}
		switch run.skip {
		case selection.ReasonDeadLink:
			r.Detail = run.deadLink
		case selection.ReasonThrottle:
			r.Detail = c.throttle.Throttled().Error()
		case selection.ReasonUnreachable:
			r.Detail = c.throttle.Unreachable().Error()
		}
	case run.attempt > 1:
		r.Verdict = report.Flaky
	default:
		r.Verdict = report.Passed
	}
	c.mu.Unlock()
	if c.ended != nil {
		c.ended(r)
	}
}

// longRunning returns the scenarios running for longer than d, and for
// how long.
func (c *collector) longRunning(d time.Duration) map[*report.ScenarioResult]time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[*report.ScenarioResult]time.Duration{}
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
func (c *collector) finish() []*report.ScenarioResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.results {
		if r.Run && r.Attempts == 0 && r.Reason == "" {
			// Not selected after all: its rules are not listed.
			r.Verdict, r.Reason, r.Run = report.NotRun, selection.ReasonFiltered, false
		}
	}
	return c.results
}
