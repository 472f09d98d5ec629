// Package suite is the conformance suite's runner: its configuration, the
// session a run shares, the scenarios (the features of the features
// package, driven by the steps package) against an in-process reference
// server or a deployed URL, and the exploration after them. It selects the
// scenarios, checks a remote target before any of them, prints a line per
// scenario and a verdict per rule, and writes the reports.
//
// The suite's parts are the packages under conformance/: explore
// (generated sequences of actions), inprocess (the in-process launcher),
// selection, report, target, deadlink, cutoff, origin, repro, hal,
// jsonvalue, contract, audit and mutate.
package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/cucumber/godog"

	"eventsvc/conformance/explore"
	"eventsvc/conformance/origin"
	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
	"eventsvc/docs"
	"eventsvc/features"
	"eventsvc/internal/version"
	"eventsvc/steps"
)

// Errors of Run; the binary's exit status follows from them.
var (
	// ErrFailed: a selected rule failed, or a baseline entry is stale.
	ErrFailed = report.ErrFailed
	// ErrUsage: the options cannot make a run (tags, baseline, files).
	ErrUsage = report.ErrUsage
	// ErrThrottled: the target answered 429 Too Many Requests.
	ErrThrottled = report.ErrThrottled
	// ErrUnreachable: the target stopped answering during the run.
	ErrUnreachable = report.ErrUnreachable
)

// Options configure a run of the suite.
type Options struct {
	// Target is what the suite checks.
	Target target.Target
	// Tags is a tag expression selecting scenarios (TagExpr), such as
	// "@spec && not @local". Empty: every scenario.
	Tags string
	// Scenarios, when set, narrows the run to these scenarios, each named
	// "file:line" as the reports show it (an outline's line runs all its
	// rows, a row's line that row): -run and -rerun-failed.
	Scenarios []string
	// DefaultTags says that Tags is the target's default selection, so that
	// a scenario it leaves out is reported with the precise reason (@ref,
	// @local, @slow) rather than "tags".
	DefaultTags bool
	// ReportDir receives the reports. Empty: no files.
	ReportDir string
	// KeepReport is a report the run reads, the conformance.json of
	// -rerun-failed: when it is one of ReportDir's, only the reports of a
	// run in which a scenario ran replace it (report.Writer.Keep).
	KeepReport string
	// Output receives the progress report. Default: os.Stdout.
	Output io.Writer
	// Format is FormatCompact (the default) or FormatPretty.
	Format string
	// Color colours the output: for a terminal only.
	Color bool
	// TestingT, when set, runs each scenario as a subtest of it, so that
	// `go test -run` selects scenarios by name.
	TestingT *testing.T
	// Features holds the *.feature files. Default: features.FS.
	Features fs.FS
	// Concurrency is how many scenarios run at once. Default: 1. The
	// verdicts and reports are those of a serial run.
	Concurrency int
	// Retries is how many more times a failed scenario runs; one that then
	// passes is flaky, never a plain pass. Not with TestingT.
	Retries int
	// Baseline expects some failures; nil: none.
	Baseline *report.Baseline
	// ReadOnly leaves out the scenarios that create or change data
	// (@writes).
	ReadOnly bool
	// FailOnNotRun fails the run when it left a rule of the specification
	// unchecked that another run against the target could check
	// (Report.Unchecked): read-only, the target's data did not allow it,
	// its scenario failed first, the token lifetimes without -slow or a
	// control API, the tags left it out; not the reference server's
	// configuration, which no remote run checks.
	FailOnNotRun bool
	// Slow checks the token lifetimes in real time: the @slow scenarios,
	// which the default selections leave out, are selected as any other
	// (-slow). Against a deployment without a control API they run
	// beside the rest of the run, started first (Run); in-process, or
	// with a control API, they move a clock and take no time.
	Slow bool
	// NoSummary leaves out the per-rule summary at the end.
	NoSummary bool
	// DemoCredentials says that the credentials are the reference
	// server's demo ones, no CONFORMANCE_* credential variable being set.
	DemoCredentials bool
	// Steps makes the scenario initializer of a target. Default:
	// steps.Initializer.
	Steps func(target.Target) func(*godog.ScenarioContext)
	// Progress is how often a line tells of scenarios still running after
	// that long (such as the @slow ones, which wait). Default: 30 s.
	Progress time.Duration
	// Explore, when set, is the budget, seed, concurrency and output of
	// an exploration of the target after the scenarios, unless the
	// target throttled the run or stopped answering: the run builds the
	// explorer (explore.Explorer) and gives it the target it checked.
	// The sequences are reported after the scenarios, in the same reports
	// and summary, a rule a sequence failed is failed, and a fault a
	// sequence found fails the run. The binary sets it from its explore
	// flags; nil, as in the in-process suite of go test, explores nothing.
	Explore *explore.Options
	// Settings are what the user set, as the reports show them
	// (report.Setting): the command's flags and variables, secrets masked.
	Settings []report.Setting

	// plan and effective are the run's scenarios and the expression that
	// selected them, once Prepare planned them; prepared says it did.
	plan      []*selection.Planned
	effective selection.TagExpr
	prepared  bool
}

// Run runs the suite with godog in strict mode: an undefined or pending step
// fails its scenario. A remote target is checked by target.Preflight first. At the
// end it prints a verdict for every selected rule and writes the reports.
// The report is returned with every error but ErrUsage.
func Run(o Options) (*report.Report, error) {
	r, err := begin(o.withDefaults())
	if err != nil {
		return nil, err
	}
	if err := r.open(); err != nil {
		return r.rep, err
	}
	lifetimes, rest, tags, err := watchLifetimes(r.o, r.col, r.out, r.o.plan, r.o.effective, r.godogTags, r.o.Target.Watch)
	if err != nil {
		r.o.Target.Audit.Close()
		return nil, err
	}
	r.godogTags = tags
	stop := r.out.Watch(func(d time.Duration) map[*report.ScenarioResult]time.Duration {
		long := r.col.longRunning(d)
		maps.DeleteFunc(long, func(res *report.ScenarioResult, _ time.Duration) bool { return lifetimes.watches(res) }) // the watch tells of them
		return long
	}, r.o.Progress)
	status := r.scenarios(rest, lifetimes.watches)
	// The exploration, when the default run explores, runs after the
	// other scenarios, beside the watch of the token lifetimes.
	x := exploration{Report: &report.Report{}}
	if watch := r.o.Target.Watch; r.o.Explore != nil && watch.Throttled() == nil && watch.Unreachable() == nil {
		fmt.Fprintln(r.o.Output)
		x = exploreAfter(*r.o.Explore, r.o.Target, r.out)
	}
	status |= lifetimes.Wait()
	r.gather(x)
	stop()
	r.judge(x, status)
	if !r.o.NoSummary {
		r.out.Summary(r.rep)
	}
	if err := r.w.Finish(r.rep); err != nil {
		return r.rep, err
	}
	return r.rep, r.rep.Err()
}

// withDefaults is o with the defaults of what it leaves unset.
func (o Options) withDefaults() Options {
	if o.Output == nil {
		o.Output = os.Stdout
	}
	if o.Features == nil {
		o.Features = features.FS
	}
	if o.Format == "" {
		o.Format = report.FormatCompact
	}
	if o.Progress == 0 {
		o.Progress = 30 * time.Second
	}
	return o
}

// run is one run of the suite as Run drives it: its options, prepared,
// and once open, its target with the run's session; its report, the
// writer of its reports and the rule catalogue they judge by; the godog
// tag expression of its scenarios; the console and the collector of the
// scenarios' results.
type run struct {
	o         Options
	rep       *report.Report
	w         *report.Writer
	catalogue *docs.Catalogue
	godogTags string
	out       *report.Console
	col       *collector
}

// begin plans the run of o, unless o was prepared, checks its baseline
// against the plan, and starts its reports. What stops it is written
// to the reports as a run that did not start.
func begin(o Options) (*run, error) {
	rep := &report.Report{RunID: o.Target.RunID, Version: version.Get(), Tags: o.Tags, ReadOnly: o.ReadOnly, Started: time.Now().UTC(),
		Target: o.Target.BaseURL, Concurrency: max(o.Concurrency, 1), Retries: o.Retries, FailOnNotRun: o.FailOnNotRun, Settings: o.Settings}
	if rep.Target == "" {
		rep.Target = "in-process"
	}
	catalogue, err := docs.RuleCatalogue()
	if err != nil {
		return nil, err
	}
	w := &report.Writer{Dir: o.ReportDir, Keep: o.KeepReport}
	notStarted := func(err error) (*run, error) {
		if werr := w.NotStarted(rep, err); werr != nil {
			return nil, fmt.Errorf("%w (and the reports that say so could not be written: %v)", err, werr)
		}
		return nil, err
	}
	if !o.prepared {
		if o, err = Prepare(o); err != nil {
			return notStarted(err)
		}
	}
	rep.Selection = o.effective.String()
	rep.FailedLogins = selection.FailedLogins(o.plan)
	if o.Baseline != nil {
		if err := o.Baseline.Check(catalogue, o.plan); err != nil {
			return notStarted(err)
		}
	}
	godogTags, err := o.effective.Godog()
	if err != nil {
		return nil, report.Usage("%w", err)
	}
	if err := w.Start(rep); err != nil {
		return nil, err
	}
	return &run{o: o, rep: rep, w: w, catalogue: catalogue, godogTags: godogTags}, nil
}

// open opens the run's target (target.Open: the run's session, built
// once, which the scenarios and the exploration after them share) and
// checks it with its preflight; then the console and the collector of
// the scenarios. A preflight that fails ends the run, its reports
// written: it did not start, or the target throttled it.
func (r *run) open() error {
	o := r.o
	t, err := target.Open(o.Target, target.Sharing{ReadOnly: o.ReadOnly, Workers: auditWorkers(o.Concurrency), Ref: !o.Target.Remote()})
	if err != nil {
		return err
	}
	checked, err := target.Preflight(t, writes(o.plan) || o.Explore != nil && !o.ReadOnly)
	if err != nil {
		t.Audit.Close()
		return r.notStarted(t, err)
	}
	r.o.Target = checked
	r.out = report.NewConsole(o.Output, o.Format, o.Color)
	r.out.Baseline, r.out.ReportDir = o.Baseline, o.ReportDir
	r.out.NotCheckedAhead(report.PlannedNotChecked(r.catalogue, o.plan))
	r.col = newCollector(o.plan, checked.Redactor, checked.Watch, r.out.ScenarioEnded)
	return nil
}

// notStarted finishes the report of a run against t whose preflight
// failed with err: no scenario started, or the target throttled it.
func (r *run) notStarted(t target.Target, err error) error {
	rep := r.rep
	rep.Outcome, rep.Error = report.OutcomeNotStarted, err.Error()
	rep.Foreign = origin.Mask(t.Origins.Foreign(), t.Redactor.String)
	var throttled *target.ThrottledError
	if errors.As(err, &throttled) {
		rep.Outcome = report.OutcomeThrottled
	}
	rep.Scenarios = report.NotStarted(r.o.plan)
	rep.Rules = report.RuleResults(r.catalogue, rep.Scenarios)
	rep.Duration = time.Since(rep.Started)
	if werr := r.w.Finish(rep); werr != nil {
		return werr
	}
	if rep.Outcome == report.OutcomeThrottled {
		return fmt.Errorf("%w: %w", ErrThrottled, err)
	}
	return err
}

// scenarios runs the scenarios of rest, in phases, then again those that
// failed, up to Retries times, but the watched ones; it returns godog's
// status.
func (r *run) scenarios(rest []*selection.Planned, watched func(*report.ScenarioResult) bool) int {
	o, watch := r.o, r.o.Target.Watch
	status := 0
	if slices.ContainsFunc(rest, func(p *selection.Planned) bool { return p.Run }) {
		for _, phase := range phases(rest, o.Concurrency, o.Target.Remote()) {
			status |= runPhase(o, r.col, r.godogTags, phase)
		}
	}
	for attempt := 2; attempt <= o.Retries+1 && o.TestingT == nil && watch.Throttled() == nil && watch.Unreachable() == nil; attempt++ {
		again, paths := retries(r.col.results, o.Baseline, watched)
		if len(again) == 0 {
			break
		}
		r.col.startAttempt(attempt, again)
		serial := o
		serial.Concurrency = 1 // a few scenarios; none may overlap with another's writes
		runGodog(context.Background(), serial, r.col, r.godogTags, paths)
	}
	return status
}

// gather closes the audit and puts in the report what the run found:
// the scenarios, the sequences of x, what the audit found that no step
// took, the dead links (told on the console too, after the scenarios),
// the waits, the other origins met, masked, and the rules' verdicts.
func (r *run) gather(x exploration) {
	t, rep := r.o.Target, r.rep
	t.Audit.Close()
	// The run's shared clients (the token pool's, the preflight's) keep
	// no connection to the target open: a server shutting down after the
	// run would wait for its next request.
	t.Client().CloseIdleConnections()
	scenarios := r.col.finish()
	audited, checks := auditResults(t.Audit, r.o.plan, scenarios, t)
	linked := report.DeadLinks(t.DeadLinks.Links(), t.Redactor.String)
	for _, res := range append(audited, linked...) {
		r.out.ScenarioEnded(res)
	}
	rep.Waits, rep.Waited = t.Watch.SlowedDown()
	rep.Scenarios = append(append(append(scenarios, x.Scenarios...), audited...), linked...)
	foreign := t.Origins.Foreign()
	if x.Foreign != nil {
		foreign = x.Foreign // of both, masked by the exploration too, which knows its tokens
	}
	rep.Foreign = origin.Mask(foreign, t.Redactor.String)
	report.NameReproductions(rep.Scenarios)
	rep.Baseline = r.o.Baseline.Apply(rep.Scenarios)
	report.TellCausesOnce(rep.Scenarios)
	rep.Rules = report.RuleResults(r.catalogue, rep.Scenarios)
	x.addTo(rep)
	report.AddChecks(rep.Rules, checks)
}

// judge gives the run its outcome: throttled or cut short by the target
// (the scenarios' or the exploration's), failed by a rule, a stale
// baseline entry, a setup, a sequence's finding, a rule left unchecked
// with FailOnNotRun, an exploration that could not start, or a godog
// status no rule counts; else passed.
func (r *run) judge(x exploration, status int) {
	rep, o, watch := r.rep, r.o, r.o.Target.Watch
	stale := report.MarkBaseline(rep)
	rep.Duration = time.Since(rep.Started)
	rep.Outcome = report.OutcomePassed
	switch {
	case watch.Throttled() != nil:
		rep.Outcome, rep.Error = report.OutcomeThrottled, watch.Throttled().Error()
	case watch.Unreachable() != nil:
		rep.Outcome, rep.Error = report.OutcomeUnreachable, watch.Unreachable().Error()
	case x.Outcome == report.OutcomeThrottled || x.Outcome == report.OutcomeUnreachable:
		rep.Outcome, rep.Error = x.Outcome, x.Error
	case rep.Counts()[report.Failed] > 0 || stale > 0 || rep.SetupFailures() > 0 || found(rep),
		o.FailOnNotRun && len(rep.Unchecked()) > 0:
		rep.Outcome = report.OutcomeFailed
	case x.err != nil:
		rep.Outcome, rep.Error = report.OutcomeFailed, x.notStarted()
	case status != 0 && o.Baseline == nil && rep.Counts()[report.Flaky] == 0:
		rep.Outcome = report.OutcomeFailed // a failure no rule counts
	}
}

// retries returns the scenarios that failed and no baseline entry
// expects to fail, but those of skip (the watched ones, which would wait
// for their lifetimes again), and the godog paths of their scenarios.
func retries(results []*report.ScenarioResult, bl *report.Baseline, skip func(*report.ScenarioResult) bool) (map[*report.ScenarioResult]bool, []string) {
	again := map[*report.ScenarioResult]bool{}
	var paths []string
	for _, r := range results {
		if r.Verdict != report.Failed && r.Verdict != report.SetupFailed || skip(r) {
			continue
		}
		if _, expected := bl.Covers(r); expected {
			continue
		}
		again[r] = true
		if p := fmt.Sprintf("%s:%d", r.File, r.ScenarioLine); !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	return again, paths
}

// runGodog runs the selected scenarios of paths once, each with ctx as
// its context and the hooks of more, and returns its godog status.
func runGodog(ctx context.Context, o Options, col *collector, tags string, paths []string, more ...func(*godog.ScenarioContext)) int {
	return runGodogIn(ctx, o, col, tags, paths, nil, more...)
}

// runGodogIn is runGodog with each scenario holding one of slots while it
// runs (nil: none): taken before its other hooks, given back after them.
func runGodogIn(ctx context.Context, o Options, col *collector, tags string, paths []string, slots *slot, more ...func(*godog.ScenarioContext)) int {
	initializer := o.Steps
	if initializer == nil {
		initializer = steps.Initializer
	}
	inner := initializer(o.Target)
	scenario := col.wrap(func(sc *godog.ScenarioContext) {
		inner(sc)
		for _, hook := range more {
			hook(sc)
		}
	})
	suite := godog.TestSuite{
		Name: "event-service-conformance",
		ScenarioInitializer: func(sc *godog.ScenarioContext) {
			if slots == nil {
				scenario(sc)
				return
			}
			sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
				slots.take()
				return ctx, nil
			})
			scenario(sc)
			sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
				slots.give()
				return ctx, nil
			})
		},
		Options: &godog.Options{
			DefaultContext: ctx,
			Format:         "progress",
			Output:         io.Discard,
			Strict:         true,
			NoColors:       true,
			Tags:           tags,
			FS:             o.Features,
			Paths:          paths,
			TestingT:       o.TestingT,
			Concurrency:    o.Concurrency,
		},
	}
	return suite.Run()
}

// writes reports whether a selected scenario creates or changes events.
func writes(plan []*selection.Planned) bool {
	for _, s := range plan {
		if s.Run && slices.Contains(s.Tags, "@writes") {
			return true
		}
	}
	return false
}
