package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"eventsvc/conformance/explore"
	"eventsvc/conformance/inprocess"
	"eventsvc/conformance/report"
	"eventsvc/internal/version"
	"eventsvc/suite"
)

// runExplore is `conformance explore`: generated sequences of actions
// against the same target, with the same variables, as a run of the
// scenarios, and the same exit statuses.
func runExplore(args []string, lookup func(string) (string, bool), stdout, stderr io.Writer) int {
	getenv := func(name string) string { v, _ := lookup(name); return v }
	fs := flag.NewFlagSet("conformance explore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	// Flags that stand for a variable: given, they replace it.
	vars := newVariables(fs)
	vars.add("base-url", "BASE_URL", "an in-process reference server", "address of the deployment to explore")
	vars.add("report-dir", "CONFORMANCE_REPORT_DIR", suite.DefaultReportDir, "directory for the reports")
	vars.add("seed", "CONFORMANCE_SEED", "one drawn and printed", "the seed of the sequences; the same seed, with -concurrency 1, explores the same sequences against the same state")
	vars.add("max-actions", "CONFORMANCE_MAX_ACTIONS", fmt.Sprint(explore.DefaultMaxActions), "how many actions in all, 1 to 1000000")
	vars.add("max-time", "CONFORMANCE_MAX_TIME", explore.DefaultMaxTime.String(), "how long the exploration may take, shrinking included")
	vars.add("max-events", "CONFORMANCE_MAX_EVENTS", fmt.Sprint(explore.DefaultMaxEvents), "how many events it may create in all, each named with the run id, 0 to 100000")
	vars.add("failed-logins", "CONFORMANCE_FAILED_LOGINS", fmt.Sprint(explore.DefaultFailedLogins), "how many token requests with wrong credentials it may send, below the target's lockout, 0 to 100")
	vars.add("concurrency", "CONFORMANCE_CONCURRENCY", "1", "how many sequences run at once, 1 to 64")
	vars.add("timeout", "CONFORMANCE_TIMEOUT", "30s", "how long one request may take, its answer read whole, such as 2m; an answer not over by then is cut, a finding that blames no rule")
	vars.add("max-answer", "CONFORMANCE_MAX_ANSWER", "4MiB", "how much of an answer's body is read at most, counted after decompression, such as 512KiB or 1048576 (bytes); a longer answer is cut there, a finding that blames no rule")
	vars.add("ca-file", "CONFORMANCE_CA_FILE", "", "PEM file of the CA certificates to trust besides the system's")
	readOnly := fs.Bool("read-only", false, "create and change nothing: reads only; also READ_ONLY=1 or true")
	ref := fs.Bool("ref", false, "also check the reference server's choices: every answer against the OpenAPI document (always against the in-process server)")
	replay := fs.String("replay", "", "run the actions of this replay file (explore/*.json under the report folder) once, instead of generated sequences")
	color := fs.String("color", "auto", "colour the output: auto (on a terminal, unless NO_COLOR is set), always or never")
	showVersion := fs.Bool("version", false, "print the suite's version, the revision it was built from and its build date, and run nothing")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: conformance explore [-base-url URL] [-seed N] [-max-actions N] [-max-time D] [-max-events N] [-failed-logins N]\n       [-concurrency N] [-read-only] [-ref] [-replay FILE] [-report-dir DIR] [-timeout D] [-max-answer SIZE] [-ca-file FILE]\n       [-version]")
		fs.PrintDefaults()
	}
	if code, ok := parse(fs, args, stderr); !ok {
		return code
	}
	if *showVersion {
		fmt.Fprint(stdout, version.Get().Text("conformance"))
		return exitPassed
	}
	env := func(name string) (string, bool) {
		if v, ok := vars.given(name); ok {
			return v, true
		}
		switch {
		case name == "READ_ONLY" && *readOnly:
			return "1", true
		case name == "CONFORMANCE_TAGS" || name == "CONFORMANCE_EXPECTED_FAILURES":
			return "", false // the scenarios' alone
		}
		return lookup(name)
	}
	fail := func(dir string, err error) int {
		fmt.Fprintf(stderr, "conformance explore: %s\n", report.Visible(err.Error()))
		if dir == "" {
			dir = suite.DefaultReportDir
		}
		if werr := report.WriteNotStarted(dir, nil, err); werr != nil {
			fmt.Fprintf(stderr, "conformance explore: %v\n", werr)
		}
		return exitUsage
	}
	c, err := suite.FromEnv(env)
	if err != nil {
		dir, _ := env("CONFORMANCE_REPORT_DIR")
		return fail(dir, err)
	}
	if c.ReportDir == "" {
		c.ReportDir = suite.DefaultReportDir
	}
	o := explore.Options{Target: c.Target, ReadOnly: c.ReadOnly, Concurrency: c.Concurrency, ReportDir: c.ReportDir, Output: stdout, Ref: *ref || !c.Target.Remote()}
	if l, ok := o.Target.Launcher.(inprocess.Launcher); ok {
		l.RealTime = true // one server for the whole run, aging as a deployment's does
		o.Target.Launcher = l
	}
	if o.Ref {
		if o.Target, err = suite.WithContract(o.Target); err != nil {
			return fail(c.ReportDir, err)
		}
	}
	if err := budget(env, &o); err != nil {
		return fail(c.ReportDir, err)
	}
	if v, _ := env("CONFORMANCE_MAX_TIME"); v != "" {
		if o.MaxTime, err = suite.ParseDuration("CONFORMANCE_MAX_TIME", v, ""); err != nil {
			return fail(c.ReportDir, err)
		}
	}
	if *replay != "" {
		if o.Replay, err = explore.ReadReplay(*replay); err != nil {
			return fail(c.ReportDir, err)
		}
		o.Seed = o.Replay.Seed
	}
	switch *color {
	case "auto":
		o.Color = getenv("NO_COLOR") == "" && isTerminal(stdout)
	case "always":
		o.Color = true
	case "never":
	default:
		return fail(c.ReportDir, fmt.Errorf("-color %q: want auto, always or never", *color))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := explore.Run(ctx, o)
	reports := "Reports: " + strings.Join([]string{
		c.ReportDir + "/" + report.HTMLReport, c.ReportDir + "/" + report.JSONReport,
		c.ReportDir + "/" + report.JUnitReport, c.ReportDir + "/" + report.CucumberReport}, ", ")
	switch {
	case errors.Is(err, explore.ErrSetup):
		fmt.Fprintf(stderr, "conformance explore: %s\n", report.Visible(err.Error()))
		return exitUsage
	case err == nil:
		fmt.Fprintln(stdout, reports)
		return exitPassed
	case errors.Is(err, explore.ErrFailed):
		fmt.Fprintln(stdout, reports)
		fmt.Fprintf(stderr, "conformance explore: FAILED: %s\n", failedRules(rep))
		return exitFailed
	case errors.Is(err, explore.ErrUnreachable):
		fmt.Fprintln(stdout, reports)
		fmt.Fprintf(stderr, "conformance explore: %s; check that the target is up, then run again\n", report.Visible(err.Error()))
		return exitUnreachable
	case errors.Is(err, explore.ErrThrottled):
		fmt.Fprintln(stdout, reports)
		fmt.Fprintf(stderr, "conformance explore: %s; run with a lower -max-actions or -concurrency, or ask for a higher limit for the test accounts\n", report.Visible(err.Error()))
		return exitThrottled
	}
	return fail(c.ReportDir, err)
}

// isSet reports whether a variable has a value.
func isSet(env func(string) (string, bool), name string) bool {
	v, _ := env(name)
	return strings.TrimSpace(v) != ""
}
