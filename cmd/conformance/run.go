package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"eventsvc/conformance/explore"
	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/suite"
)

// Exit statuses (docs/running-against-a-deployment.md).
const (
	exitPassed    = 0 // every selected rule holds (expected failures allowed)
	exitFailed    = 1 // a rule failed, or a baseline entry is stale
	exitUsage     = 2 // the run could not start: flags, variables, tags, preflight
	exitThrottled = 3 // the target throttled the run (429)
	// exitUnreachable: the target stopped answering mid-run (refused,
	// reset, timed out, or a gateway's 502, 503 or 504).
	exitUnreachable = 4
)

// runFlags are the flags of conformance that stand for no variable, but
// -color and -version.
type runFlags struct {
	list           *bool
	only, rerun    *string
	format         *string
	vars           *variables
	shared         *common
	lookup         func(string) (string, bool)
	stdout, stderr io.Writer
}

func run(args []string, lookup func(string) (string, bool), stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "explore" {
		return runExplore(args[1:], lookup, stdout, stderr)
	}
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	vars, shared := declare(fs, runCommand)
	f := &runFlags{
		list:   fs.Bool("list", false, "print the scenarios the tags select, with their rule ids, and run nothing"),
		only:   fs.String("run", "", "run only these scenarios, named file:line as the reports show them, separated by commas (an outline's line runs all its rows)"),
		rerun:  fs.String("rerun-failed", "", "run again the scenarios that failed in this conformance.json of an earlier run"),
		format: fs.String("format", report.FormatCompact, "output: compact (a line per scenario, failures in full at the end) or pretty (every step)"),
		vars:   vars, shared: shared, lookup: lookup, stdout: stdout, stderr: stderr,
	}
	if code, ok := shared.parse(fs, runUsage, args, stdout, stderr); !ok {
		return code
	}
	o, explored, none, code := f.options()
	if o == nil {
		return code
	}
	plan, effective := o.Planned()
	if *f.list {
		return listScenarios(plan, effective, stdout)
	}
	printStart(stdout, *o, explored, none)
	rep, err := suite.Run(*o)
	return f.exit(o.ReportDir, rep, err)
}

// fail tells what stopped the run, which could not start (exit 2).
func (f *runFlags) fail(err error) int {
	fmt.Fprintf(f.stderr, "conformance: %s\n", report.Visible(err.Error()))
	return exitUsage
}

// notStarted is fail for a run that could not start, which still
// replaces the reports in dir of the last one, unless it only lists.
func (f *runFlags) notStarted(dir string, err error) int {
	code := f.fail(err) // what stopped the run comes first
	if !*f.list {
		if dir == "" {
			dir = suite.DefaultReportDir
		}
		w := &report.Writer{Dir: dir, Keep: *f.rerun} // the report it reads, left to be read again
		if werr := w.NotStarted(nil, err); werr != nil {
			fmt.Fprintf(f.stderr, "conformance: %v\n", werr)
		}
	}
	return code
}

// options reads the run's options from the flags and the variables,
// prepared (suite.Prepare), and the exploration after its scenarios
// (nil: none, with why). When the run cannot start, it returns nil
// options and the exit status, having said why.
func (f *runFlags) options() (o *suite.Options, explored *explore.Options, none string, code int) {
	env := f.vars.env(f.lookup)
	c, err := suite.FromEnv(env)
	if err != nil {
		dir, _ := env("CONFORMANCE_REPORT_DIR")
		return nil, nil, "", f.notStarted(dir, err)
	}
	c.Settings = f.vars.settings(runCommand, env)
	if *f.only != "" {
		c.Scenarios = strings.Split(*f.only, ",")
		c.Settings = append(c.Settings, report.Setting{Name: "-run", Value: *f.only, From: report.FromFlag})
	}
	if *f.rerun != "" {
		// Left as it is until this run has run and writes its own reports,
		// so that a run stopped midway, or one that cannot start, leaves it
		// to be read again.
		failed, err := report.FailedScenarios(*f.rerun)
		if err != nil {
			return nil, nil, "", f.fail(err)
		}
		c.Scenarios = append(c.Scenarios, failed...)
		c.KeepReport = *f.rerun
		c.Settings = append(c.Settings, report.Setting{Name: "-rerun-failed", Value: *f.rerun, From: report.FromFlag})
	}
	if c.ReportDir == "" {
		c.ReportDir = suite.DefaultReportDir
	}
	focused := map[bool]string{true: "-run"}[*f.only != ""]
	if *f.rerun != "" {
		focused = "-rerun-failed"
	}
	if explored, none, err = exploration(env, focused); err != nil {
		return nil, nil, "", f.notStarted(c.ReportDir, err)
	}
	c.Output, c.Format = f.stdout, *f.format
	if c.Color, err = f.shared.colored(f.stdout, f.lookup); err != nil {
		return nil, nil, "", f.notStarted(c.ReportDir, err)
	}
	if c, err = suite.Prepare(c); err != nil {
		return nil, nil, "", f.notStarted(c.ReportDir, err)
	}
	if explored != nil {
		explored.Concurrency, explored.Output, explored.Color = c.Concurrency, f.stdout, c.Color
		c.Explore = explored
	}
	return &c, explored, none, 0
}

// printStart says, before the run, what it checks: the target, the
// credentials (no secret), the scenarios, how many at once, the
// exploration after them, and the failed logins they cause.
func printStart(stdout io.Writer, o suite.Options, explored *explore.Options, none string) {
	plan, effective := o.Planned()
	if o.Target.BaseURL == "" {
		fmt.Fprintf(stdout, "Checking an in-process reference server (run %s); to check the one make run started: BASE_URL=http://localhost:8080 make conformance, or conformance -base-url http://localhost:8080\n", o.Target.RunID)
	} else {
		fmt.Fprintf(stdout, "Checking %s (run %s)\n", o.Target.BaseURL, o.Target.RunID)
	}
	c := o.Target.Credentials
	creds := fmt.Sprintf("client %q, user %q, other user %q", c.ClientID, c.Username, c.OtherUsername)
	if o.DemoCredentials {
		creds += " (the reference server's demo credentials: no CONFORMANCE_* credential is set)"
	}
	fmt.Fprintf(stdout, "Credentials: %s\n", creds)
	fmt.Fprintf(stdout, "Scenarios: %s\n", selectionLine(plan, effective))
	if o.Concurrency > 1 || o.Retries > 0 || o.Baseline != nil {
		fmt.Fprintf(stdout, "Concurrency %d, retries %d, %d expected failures\n", max(o.Concurrency, 1), o.Retries, baselineSize(o.Baseline))
	}
	if explored != nil {
		fmt.Fprintf(stdout, "Exploration: %s\n", explorationLine(explored, o.ReadOnly))
	} else {
		fmt.Fprintf(stdout, "Exploration: %s\n", none)
	}
	fmt.Fprintf(stdout, "%s\n\n", failedLoginsLine(plan, explored))
}

// exit says how the run ended, and where its reports are, and returns
// the exit status of its error.
func (f *runFlags) exit(dir string, rep *report.Report, err error) int {
	stdout, stderr := f.stdout, f.stderr
	var names []string
	for _, n := range []string{report.HTMLReport, report.JSONReport, report.JUnitReport, report.CucumberReport} {
		names = append(names, dir+"/"+n)
	}
	reports := "Reports: " + strings.Join(names, ", ")
	switch {
	case err == nil:
		fmt.Fprintf(stdout, "%s\n", reports)
		if flaky := flakyRules(rep); flaky != "" {
			fmt.Fprintf(stderr, "conformance: passed, but %s\n", flaky)
		}
		return exitPassed
	case errors.Is(err, suite.ErrFailed):
		fmt.Fprintf(stdout, "%s\n", reports)
		fmt.Fprintf(stderr, "conformance: FAILED: %s\n", failedRules(rep))
		if flaky := flakyRules(rep); flaky != "" {
			fmt.Fprintf(stderr, "conformance: %s\n", flaky)
		}
		return exitFailed
	case errors.Is(err, suite.ErrUnreachable):
		fmt.Fprintf(stdout, "%s\n", reports)
		fmt.Fprintf(stderr, "conformance: %s; the rules not yet checked were not run: check that the target is up, then run again\n", report.Visible(err.Error()))
		return exitUnreachable
	case errors.Is(err, suite.ErrThrottled):
		fmt.Fprintf(stdout, "%s\n", reports)
		fmt.Fprintf(stderr, "conformance: %s; the rules were not all checked. Wait for the lockout to end (Retry-After), run fewer scenarios that send wrong passwords, or ask for a higher lockout limit for the test accounts\n", report.Visible(err.Error()))
		return exitThrottled
	default:
		if rep != nil {
			fmt.Fprintf(stdout, "%s (they say the run did not start)\n", reports)
		}
		return f.fail(err)
	}
}

// failedRules is the one-line reason of a failed run.
func failedRules(rep *report.Report) string {
	var parts []string
	if ids := rulesWith(rep, report.Failed); len(ids) > 0 {
		parts = append(parts, fmt.Sprintf("%d rule%s failed: %s", len(ids), plural(len(ids)), strings.Join(ids, ", ")))
	}
	var stale []string
	for _, b := range rep.Baseline {
		if b.Status == report.EntryStale {
			stale = append(stale, b.Expectation.String())
		}
	}
	if len(stale) > 0 {
		parts = append(parts, fmt.Sprintf("%d baseline entr%s now pass%s, remove %s: %s", len(stale),
			map[bool]string{true: "y", false: "ies"}[len(stale) == 1], map[bool]string{true: "es", false: ""}[len(stale) == 1],
			map[bool]string{true: "it", false: "them"}[len(stale) == 1], strings.Join(stale, ", ")))
	}
	if n := setupFailures(rep); n > 0 {
		parts = append(parts, fmt.Sprintf("the setup of %d scenario%s failed", n, plural(n)))
	}
	if n := rep.ServerErrors(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d server error%s (5xx)", n, plural(n)))
	}
	if n := rep.AnswersCut(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d answer%s cut (longer than -max-answer or slower than -timeout)", n, plural(n)))
	}
	if rep.Error != "" {
		parts = append(parts, report.Visible(rep.Error))
	}
	if ids := rep.Unchecked(); rep.FailOnNotRun && len(ids) > 0 {
		parts = append(parts, fmt.Sprintf("%d rule%s of the specification not checked: %s (-fail-on-not-run)", len(ids), plural(len(ids)), strings.Join(ids, ", ")))
	}
	if len(parts) == 0 {
		return "some selected scenarios failed (see above and the reports)"
	}
	return strings.Join(parts, "; ") + " (see above and the reports)"
}

// setupFailures counts the scenarios whose setup failed.
func setupFailures(rep *report.Report) int {
	n := 0
	for _, s := range rep.Scenarios {
		if s.Verdict == report.SetupFailed {
			n++
		}
	}
	return n
}

// flakyRules says which rules passed only on a retry.
func flakyRules(rep *report.Report) string {
	ids := rulesWith(rep, report.Flaky)
	if len(ids) == 0 {
		return ""
	}
	return fmt.Sprintf("%d rule%s flaky (failed, then passed on a retry): %s", len(ids), plural(len(ids)), strings.Join(ids, ", "))
}

func rulesWith(rep *report.Report, verdict string) []string {
	var ids []string
	for _, r := range rep.Rules {
		if r.Verdict == verdict {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func baselineSize(bl *report.Baseline) int {
	if bl == nil {
		return 0
	}
	return len(bl.Entries)
}

// failedLoginsLine says how many failed logins the selection causes, and
// the exploration after it when there is one, which a target that locks
// out accounts counts.
func failedLoginsLine(plan []*selection.Planned, explored *explore.Options) string {
	n := selection.FailedLogins(plan)
	more := ""
	if explored != nil {
		more = fmt.Sprintf(", and the exploration at most %d more", failedLoginsOf(explored))
	}
	return fmt.Sprintf("Failed logins: these scenarios send %d token request%s with a wrong password or client secret on purpose%s; a target that locks out after fewer will throttle the run (exit 3)", n, plural(n), more)
}

// selectionLine says how many scenarios run, by which expression, and how
// many of those it names are left out, and why.
func selectionLine(plan []*selection.Planned, effective selection.TagExpr) string {
	run, left := 0, map[string]int{}
	var reasons []string
	for _, p := range plan {
		switch {
		case p.Run:
			run++
		case p.Reason != selection.ReasonTags:
			if left[p.Reason] == 0 {
				reasons = append(reasons, p.Reason)
			}
			left[p.Reason]++
		}
	}
	line := fmt.Sprintf("%d selected by %q", run, effective.String())
	var parts []string
	for _, r := range reasons {
		parts = append(parts, fmt.Sprintf("%d %s", left[r], r))
	}
	if len(parts) > 0 {
		line += "; left out: " + strings.Join(parts, ", ")
	}
	return line
}

func listScenarios(plan []*selection.Planned, effective selection.TagExpr, stdout io.Writer) int {
	n := 0
	for _, p := range plan {
		if !p.Run {
			continue
		}
		n++
		fmt.Fprintf(stdout, "%-22s %s  %s: %s\n", strings.Join(p.Rules, ","), p.Place(), p.Feature, p.Name)
	}
	fmt.Fprintf(stdout, "%d scenarios selected by %q\n", n, effective.String())
	fmt.Fprintln(stdout, failedLoginsLine(plan, nil))
	return exitPassed
}

// runUsage is the first lines of `conformance -h`.
const runUsage = "usage: conformance [-base-url URL] [-control-url URL] [-tags EXPR] [-report-dir DIR] [-read-only] [-slow] [-fail-on-not-run] [-list] [-run FILE:LINE,…]\n       [-rerun-failed conformance.json] [-format compact|pretty]\n       [-concurrency N] [-retries N] [-expected-failures FILE] [-timeout D] [-max-answer SIZE] [-ca-file FILE]\n       [-explore D] [-seed N] [-max-actions N] [-max-events N] [-failed-logins N]\n       [-version]\n   or: conformance explore [-base-url URL] [-seed N] [-max-actions N] …: an exploration alone, generated sequences of\n       actions against the same target, each answer checked against the rules (conformance explore -h lists its flags;\n       docs/explore.md)"
