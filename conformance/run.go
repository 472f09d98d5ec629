// Package conformance runs the Event Service conformance suite: the features
// of the features package, driven by the steps package, against an
// in-process reference server or a deployed URL. It selects the scenarios,
// checks a remote target before any of them, prints a line per scenario
// and a verdict per rule, and writes the reports.
package conformance

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cucumber/godog"

	"eventsvc/docs"
	"eventsvc/features"
	"eventsvc/redact"
	"eventsvc/steps"
)

// Errors of Run; the binary's exit status follows from them.
var (
	// ErrFailed: a selected rule failed, or a baseline entry is stale.
	ErrFailed = errors.New("conformance suite failed")
	// ErrUsage: the options cannot make a run (tags, baseline, files).
	ErrUsage = errors.New("usage")
	// ErrThrottled: the target answered 429 Too Many Requests.
	ErrThrottled = errors.New("throttled by the target")
)

// Output formats.
const (
	FormatCompact = "compact" // a line per scenario, the failures in full at the end
	FormatPretty  = "pretty"  // every scenario with its steps
)

// Options configure a run of the suite.
type Options struct {
	// Target is what the suite checks.
	Target steps.Target
	// Tags is a tag expression selecting scenarios (TagExpr), such as
	// "@spec && not @local". Empty: every scenario.
	Tags string
	// DefaultTags says that Tags is the target's default selection, so that
	// a scenario it leaves out is reported with the precise reason (@ref,
	// @local, @slow) rather than "tags".
	DefaultTags bool
	// ReportDir receives the reports. Empty: no files.
	ReportDir string
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
	// Concurrency is how many scenarios run at once. Default: 1.
	Concurrency int
	// ReadOnly leaves out the scenarios that create or change data
	// (@writes).
	ReadOnly bool
	// NoSummary leaves out the per-rule summary at the end.
	NoSummary bool
	// DemoCredentials says that the credentials are the reference
	// server's demo ones, no CONFORMANCE_* credential variable being set.
	DemoCredentials bool
	// Steps makes the scenario initializer of a target. Default:
	// steps.Initializer.
	Steps func(steps.Target) func(*godog.ScenarioContext)
	// Progress is how often a line tells of scenarios still running after
	// that long (such as the @slow ones, which wait). Default: 30 s.
	Progress time.Duration
}

// Report is what a run found.
type Report struct {
	Target    string // the address checked, or "in-process"
	RunID     string
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
}

// Outcomes of a run.
const (
	OutcomePassed     = "passed"
	OutcomeFailed     = "failed"
	OutcomeThrottled  = "throttled"
	OutcomeNotStarted = "not started"
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

// Run runs the suite with godog in strict mode: an undefined or pending step
// fails its scenario. A remote target is checked by Preflight first. At the
// end it prints a verdict for every selected rule and writes the reports.
// The report is returned with every error but ErrUsage.
func Run(o Options) (*Report, error) {
	if o.Output == nil {
		o.Output = os.Stdout
	}
	if o.Features == nil {
		o.Features = features.FS
	}
	if o.Format == "" {
		o.Format = FormatCompact
	}
	if o.Format != FormatCompact && o.Format != FormatPretty {
		return nil, fmt.Errorf("%w: format %q: want %s or %s", ErrUsage, o.Format, FormatCompact, FormatPretty)
	}
	if o.Progress == 0 {
		o.Progress = 30 * time.Second
	}
	report := &Report{RunID: o.Target.RunID, Tags: o.Tags, ReadOnly: o.ReadOnly, Started: time.Now().UTC(), Target: o.Target.BaseURL}
	if report.Target == "" {
		report.Target = "in-process"
	}
	catalogue, err := docs.RuleCatalogue()
	if err != nil {
		return nil, err
	}
	plan, effective, err := Plan(o)
	if err != nil {
		return nil, err
	}
	report.Selection = effective.String()
	godogTags, err := effective.Godog()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	w := &writer{dir: o.ReportDir}
	if err := w.start(report); err != nil {
		return nil, err
	}

	watch := &throttleWatch{}
	base := o.Target.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	o.Target.Transport = watching{base: base, w: watch}
	target, err := Preflight(o.Target, plan)
	if err != nil {
		report.Outcome, report.Error = OutcomeNotStarted, err.Error()
		var throttled *ThrottledError
		if errors.As(err, &throttled) {
			report.Outcome = OutcomeThrottled
		}
		report.Scenarios = notStarted(plan)
		report.Rules = ruleResults(catalogue, report.Scenarios)
		report.Duration = time.Since(report.Started)
		if werr := w.finish(report); werr != nil {
			return report, werr
		}
		if report.Outcome == OutcomeThrottled {
			return report, fmt.Errorf("%w: %w", ErrThrottled, err)
		}
		return report, err
	}
	o.Target = target

	redactor := redact.New(o.Target.Credentials.Secrets()...)
	out := newConsole(o.Output, o.Format, o.Color)
	col := newCollector(plan, redactor, watch, out.scenarioEnded)
	stop := out.watch(col, o.Progress)
	status := runGodog(o, col, godogTags)
	stop()
	report.Scenarios = col.finish()
	report.Rules = ruleResults(catalogue, report.Scenarios)
	report.Duration = time.Since(report.Started)
	report.Outcome = OutcomePassed
	switch {
	case watch.hit() != nil:
		report.Outcome, report.Error = OutcomeThrottled, watch.hit().Error()
	case status != 0 || report.Counts()[Failed] > 0:
		report.Outcome = OutcomeFailed
	}
	if !o.NoSummary {
		out.summary(report)
	}
	if err := w.finish(report); err != nil {
		return report, err
	}
	switch report.Outcome {
	case OutcomeThrottled:
		return report, fmt.Errorf("%w: %s", ErrThrottled, report.Error)
	case OutcomeFailed:
		return report, ErrFailed
	}
	return report, nil
}

// Plan reads the features and selects the scenarios a run with o checks.
// It refuses (ErrUsage) a tag expression that does not parse, that names a
// tag or rule that does not exist, or that selects nothing the target can
// run. It returns the expression in effect.
func Plan(o Options) ([]*Planned, TagExpr, error) {
	if o.Features == nil {
		o.Features = features.FS
	}
	catalogue, err := docs.RuleCatalogue()
	if err != nil {
		return nil, TagExpr{}, err
	}
	plan, err := loadPlan(o.Features)
	if err != nil {
		return nil, TagExpr{}, err
	}
	expr, err := ParseTags(o.Tags)
	if err != nil {
		return nil, TagExpr{}, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if err := checkTags(expr, plan, catalogue); err != nil {
		return nil, TagExpr{}, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	sel := Selection{Tags: expr, Default: o.DefaultTags, Remote: o.Target.Launcher == nil, ReadOnly: o.ReadOnly}
	effective, err := selectPlan(plan, sel)
	if err != nil {
		return nil, TagExpr{}, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	run, left := 0, map[string]int{}
	for _, p := range plan {
		if p.Run {
			run++
		} else if expr.Match(p.Tags) {
			left[p.Reason]++
		}
	}
	if run == 0 {
		what := fmt.Sprintf("the tags %q select no scenario", expr.String())
		if len(left) > 0 {
			var parts []string
			for _, r := range []string{ReasonLocal, ReasonSlow, ReasonRef, ReasonReadOnly} {
				if left[r] > 0 {
					parts = append(parts, fmt.Sprintf("%d %s (%s)", left[r], r, reasonText[r]))
				}
			}
			what = fmt.Sprintf("the tags %q select no scenario this run can check: %s", expr.String(), strings.Join(parts, ", "))
		}
		return nil, TagExpr{}, fmt.Errorf("%w: %s", ErrUsage, what)
	}
	return plan, effective, nil
}

// runGodog runs the selected scenarios once, and its godog status.
func runGodog(o Options, col *collector, tags string) int {
	initializer := o.Steps
	if initializer == nil {
		initializer = steps.Initializer
	}
	suite := godog.TestSuite{
		Name:                "event-service-conformance",
		ScenarioInitializer: col.wrap(initializer(o.Target)),
		Options: &godog.Options{
			Format:      "progress",
			Output:      io.Discard,
			Strict:      true,
			NoColors:    true,
			Tags:        tags,
			FS:          o.Features,
			Paths:       []string{"."},
			TestingT:    o.TestingT,
			Concurrency: o.Concurrency,
		},
	}
	return suite.Run()
}

// notStarted is every scenario of plan, not run because the run did not
// start.
func notStarted(plan []*Planned) []*ScenarioResult {
	var out []*ScenarioResult
	for _, p := range plan {
		out = append(out, &ScenarioResult{Planned: p, Verdict: NotRun})
	}
	return out
}
