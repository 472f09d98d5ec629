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
	"eventsvc/internal/version"
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

func run(args []string, lookup func(string) (string, bool), stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "explore" {
		return runExplore(args[1:], lookup, stdout, stderr)
	}
	getenv := func(name string) string { v, _ := lookup(name); return v }
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	// Flags that stand for a variable: given, they replace it.
	vars := newVariables(fs)
	vars.add("base-url", "BASE_URL", "an in-process reference server", "address of the deployment to check, under which /api is served")
	vars.add("control-url", "CONTROL_URL", "", "address of the control API of a reference server run with eventsvc serve -control, to move its clock; its token in $CONFORMANCE_CONTROL_TOKEN")
	vars.add("tags", "CONFORMANCE_TAGS", "\""+selection.RemoteTags+"\" remotely, \""+selection.InProcessTags+"\" in-process", "tag expression selecting scenarios, such as '@spec && not @local'")
	vars.add("report-dir", "CONFORMANCE_REPORT_DIR", suite.DefaultReportDir, "directory for the reports")
	vars.add("concurrency", "CONFORMANCE_CONCURRENCY", "1", "how many scenarios run at once, 1 to 64; verdicts and reports are those of a serial run")
	vars.add("retries", "CONFORMANCE_RETRIES", "0", "how many more times a failed scenario runs, 0 to 10; one that then passes is flaky")
	vars.add("timeout", "CONFORMANCE_TIMEOUT", "30s", "how long one request may take, its answer read whole, such as 2m; an answer not over by then is cut, a finding that blames no rule")
	vars.add("max-answer", "CONFORMANCE_MAX_ANSWER", "4MiB", "how much of an answer's body is read at most, counted after decompression, such as 512KiB or 1048576 (bytes); a longer answer is cut there, a finding that blames no rule")
	vars.add("ca-file", "CONFORMANCE_CA_FILE", "", "PEM file of the CA certificates to trust besides the system's, for a deployment behind a private CA")
	vars.add("expected-failures", "CONFORMANCE_EXPECTED_FAILURES", "", "JSON file of the expected failures (a baseline), each a rule or a scenario with its reason")
	addExploreFlags(vars)
	readOnly := fs.Bool("read-only", false, "leave out the scenarios that create or change data (@writes); also READ_ONLY=1 or true")
	failOnNotRun := fs.Bool("fail-on-not-run", false, "fail the run (exit 1) when it left a rule of the specification unchecked that another run could check (read-only, the target's data, a failure first, the token lifetimes, the tags); also CONFORMANCE_FAIL_ON_NOT_RUN=1")
	slowFlag := fs.Bool("slow", false, "also check the token lifetimes in real time (the @slow scenarios: LIM-1, LIM-2, CLI-5, CLI-6): against a deployment without -control-url they are watched beside the rest of the run, which then takes about an hour; also CONFORMANCE_SLOW=1")
	list := fs.Bool("list", false, "print the scenarios the tags select, with their rule ids, and run nothing")
	only := fs.String("run", "", "run only these scenarios, named file:line as the reports show them, separated by commas (an outline's line runs all its rows)")
	rerun := fs.String("rerun-failed", "", "run again the scenarios that failed in this conformance.json of an earlier run")
	format := fs.String("format", report.FormatCompact, "output: compact (a line per scenario, failures in full at the end) or pretty (every step)")
	color := fs.String("color", "auto", "colour the output: auto (on a terminal, unless NO_COLOR is set), always or never")
	showVersion := fs.Bool("version", false, "print the suite's version, the revision it was built from and its build date, and run nothing")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: conformance [-base-url URL] [-control-url URL] [-tags EXPR] [-report-dir DIR] [-read-only] [-slow] [-fail-on-not-run] [-list] [-run FILE:LINE,…]\n       [-rerun-failed conformance.json] [-format compact|pretty]\n       [-concurrency N] [-retries N] [-expected-failures FILE] [-timeout D] [-max-answer SIZE] [-ca-file FILE]\n       [-explore D] [-seed N] [-max-actions N] [-max-events N] [-failed-logins N]\n       [-version]\n   or: conformance explore [-base-url URL] [-seed N] [-max-actions N] …: an exploration alone, generated sequences of\n       actions against the same target, each answer checked against the rules (conformance explore -h lists its flags;\n       docs/explore.md)")
		fs.PrintDefaults()
	}
	if code, ok := parse(fs, args, stderr); !ok {
		return code
	}
	if *showVersion {
		fmt.Fprint(stdout, version.Get().Text("conformance"))
		return exitPassed
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "conformance: %s\n", report.Visible(err.Error()))
		return exitUsage
	}
	env := func(name string) (string, bool) {
		if v, ok := vars.given(name); ok {
			return v, true
		}
		if name == "READ_ONLY" && *readOnly {
			return "1", true
		}
		if name == "CONFORMANCE_FAIL_ON_NOT_RUN" && *failOnNotRun {
			return "1", true
		}
		if name == "CONFORMANCE_SLOW" && *slowFlag {
			return "1", true
		}
		return lookup(name)
	}
	// A run that cannot start still replaces the reports of the last one,
	// unless it only lists.
	notStarted := func(dir string, err error) int {
		code := fail(err) // what stopped the run comes first
		if !*list {
			if dir == "" {
				dir = suite.DefaultReportDir
			}
			w := &report.Writer{Dir: dir, Keep: *rerun} // the report it reads, left to be read again
			if werr := w.NotStarted(nil, err); werr != nil {
				fmt.Fprintf(stderr, "conformance: %v\n", werr)
			}
		}
		return code
	}
	o, err := suite.FromEnv(env)
	if err != nil {
		dir, _ := env("CONFORMANCE_REPORT_DIR")
		return notStarted(dir, err)
	}
	if *only != "" {
		o.Scenarios = strings.Split(*only, ",")
	}
	if *rerun != "" {
		// Left as it is until this run has run and writes its own reports,
		// so that a run stopped midway, or one that cannot start, leaves it
		// to be read again.
		failed, err := report.FailedScenarios(*rerun)
		if err != nil {
			return fail(err)
		}
		o.Scenarios = append(o.Scenarios, failed...)
		o.KeepReport = *rerun
	}
	if o.ReportDir == "" {
		o.ReportDir = suite.DefaultReportDir
	}
	focused := map[bool]string{true: "-run"}[*only != ""]
	if *rerun != "" {
		focused = "-rerun-failed"
	}
	explored, none, err := exploration(env, focused)
	if err != nil {
		return notStarted(o.ReportDir, err)
	}
	o.Output = stdout
	o.Format = *format
	switch *color {
	case "auto":
		o.Color = getenv("NO_COLOR") == "" && isTerminal(stdout)
	case "always":
		o.Color = true
	case "never":
	default:
		return notStarted(o.ReportDir, fmt.Errorf("-color %q: want auto, always or never", *color))
	}

	if o, err = suite.Prepare(o); err != nil {
		return notStarted(o.ReportDir, err)
	}
	plan, effective := o.Planned()
	if *list {
		return listScenarios(plan, effective, stdout)
	}
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
		explored.Concurrency, explored.Output, explored.Color = o.Concurrency, stdout, o.Color
		o.Explore = explored
	} else {
		fmt.Fprintf(stdout, "Exploration: %s\n", none)
	}
	fmt.Fprintf(stdout, "%s\n\n", failedLoginsLine(plan, explored))

	rep, err := suite.Run(o)
	var names []string
	for _, n := range []string{report.HTMLReport, report.JSONReport, report.JUnitReport, report.CucumberReport} {
		names = append(names, o.ReportDir+"/"+n)
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
		return fail(err)
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
