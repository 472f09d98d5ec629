package suite

import (
	"context"
	"slices"
	"time"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v21"

	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
	"eventsvc/steps"
)

// The watch of token lifetimes (-slow). Against a deployment whose clock
// the run cannot move (no control API), the @slow scenarios wait in real
// time for tokens to age: the watch runs them in a godog run of their
// own, all at once, started before every other scenario, so that they
// take their tokens at the start and each lifetime is checked when it
// falls due while the rest of the run goes on. The run then takes about
// the longest lifetime, not the sum of the waits. Their verdicts, steps,
// failures and reproductions are those of any scenario, in the same
// reports.
//
// No @clock scenario runs against such a target (it needs a control
// API), so none moves a clock under the watched tokens. With a control
// API there is no watch: the @slow scenarios move its clock, as the
// @clock ones do, one at a time after the others (phases).

// watchesLifetimes reports whether a run of o watches the lifetimes: it
// selects @slow scenarios, against a deployment without a control API.
func watchesLifetimes(o Options, plan []*selection.Planned) bool {
	if !o.Target.Remote() || o.Target.ControlURL != "" {
		return false
	}
	return slices.ContainsFunc(plan, func(p *selection.Planned) bool { return p.Run && slow(p) })
}

// slow reports whether p waits in real time for tokens to age.
func slow(p *selection.Planned) bool { return slices.Contains(p.Tags, "@slow") }

// watchLifetimes starts the watch of token lifetimes when a run of o has
// one (watchesLifetimes): it returns it, the plan the rest of the run
// runs, without the watched scenarios, and the godog tags that select
// those of the rest from tags. Without a watch, it returns nil, plan and
// tags.
func watchLifetimes(o Options, col *collector, out *report.Console, plan []*selection.Planned, effective selection.TagExpr, tags string, watch *target.Watch) (*lifetimeWatch, []*selection.Planned, string, error) {
	if !watchesLifetimes(o, plan) {
		return nil, plan, tags, nil
	}
	notSlow, err := selection.ParseTags("~@slow")
	if err != nil {
		return nil, nil, "", err
	}
	if tags, err = effective.And(notSlow).Godog(); err != nil {
		return nil, nil, "", err
	}
	w, err := startLifetimes(o, col, out, plan, effective, watch)
	if err != nil {
		return nil, nil, "", err
	}
	return w, slices.DeleteFunc(slices.Clone(plan), slow), tags, nil
}

// lifetimeWatch is a watch of token lifetimes under way.
type lifetimeWatch struct {
	out    *report.Console
	clock  target.Clock
	checks []report.LifetimeCheck // in the order they fall due
	byKey  map[string]*selection.Planned

	done   chan struct{}
	status int // godog's, once done
	cancel context.CancelFunc
}

// startLifetimes starts the @slow scenarios of plan, those of effective
// that are, in a godog run of their own, after saying on out when each
// lifetime is checked. The target stopping the run (watch.Stopped) cuts
// their waits short. Wait waits for their end.
func startLifetimes(o Options, col *collector, out *report.Console, plan []*selection.Planned, effective selection.TagExpr, watch *target.Watch) (*lifetimeWatch, error) {
	onlySlow, err := selection.ParseTags("@slow")
	if err != nil {
		return nil, err
	}
	tags, err := effective.And(onlySlow).Godog()
	if err != nil {
		return nil, err
	}
	w := &lifetimeWatch{out: out, clock: o.Target.Clock, byKey: map[string]*selection.Planned{}, done: make(chan struct{})}
	if w.clock == nil {
		w.clock = target.SystemClock{}
	}
	from := w.clock.Now()
	n := 0
	for _, p := range plan {
		if !p.Run || !slow(p) {
			continue
		}
		n++
		w.byKey[p.Key()] = p
		for _, s := range p.Steps {
			if after, upTo, ok := steps.Due(o.Target.Lifetimes, s.Text); ok {
				w.checks = append(w.checks, report.LifetimeCheck{At: from.Add(after), UpTo: upTo, Step: s.Text, Scenario: p})
			}
		}
	}
	slices.SortStableFunc(w.checks, func(a, b report.LifetimeCheck) int { return a.At.Compare(b.At) })
	out.LifetimesWatched(from, w.checks)

	ctx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	go func() {
		select {
		case <-watch.Stopped():
			cancel()
		case <-ctx.Done():
		}
	}()
	go w.tell(ctx, o.Progress*10)
	p := o
	p.Concurrency = n // all at once: each waits for its own tokens
	go func() {
		defer close(w.done)
		w.status = runGodog(ctx, p, col, tags, []string{"."}, w.checked)
	}()
	return w, nil
}

// watches reports whether r is one of the watched scenarios: none, of
// no watch.
func (w *lifetimeWatch) watches(r *report.ScenarioResult) bool {
	return w != nil && w.byKey[r.Key()] != nil
}

// Wait waits for the watched scenarios to end, and returns godog's
// status; 0 at once, of no watch.
func (w *lifetimeWatch) Wait() int {
	if w == nil {
		return 0
	}
	<-w.done
	w.cancel()
	return w.status
}

// checked is a hook of the watched scenarios: a line on the console when
// a step of theirs checks a token (a Then step).
func (w *lifetimeWatch) checked(sc *godog.ScenarioContext) {
	var planned *selection.Planned
	sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
		planned = w.byKey[pickleKey(p)]
		return ctx, nil
	})
	sc.StepContext().After(func(ctx context.Context, st *godog.Step, status godog.StepResultStatus, err error) (context.Context, error) {
		if planned == nil || st.Type != messages.PickleStepType_OUTCOME {
			return ctx, nil
		}
		verdict := status.String()
		if status == godog.StepPassed && err != nil {
			verdict = godog.StepFailed.String()
		}
		w.out.LifetimeChecked(planned, st.Text, verdict, w.clock.Now())
		return ctx, nil
	})
}

// tell says, every period until ctx is done, that the watch goes on and
// when it checks a token next: a CI job that prints nothing for long may
// be taken for stuck.
func (w *lifetimeWatch) tell(ctx context.Context, period time.Duration) {
	if period <= 0 {
		return
	}
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			now := w.clock.Now()
			for _, c := range w.checks {
				if c.At.After(now) {
					w.out.LifetimesWaiting(c, now)
					break
				}
			}
		}
	}
}
