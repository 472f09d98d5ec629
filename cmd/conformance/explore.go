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
	"eventsvc/conformance/report"
	"eventsvc/suite"
)

// runExplore is `conformance explore`: generated sequences of actions
// against the same target, with the same variables, as a run of the
// scenarios, and the same exit statuses.
func runExplore(args []string, lookup func(string) (string, bool), stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("conformance explore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	vars, shared := declare(fs, exploreCommand)
	ref := fs.Bool("ref", false, "also check the reference server's choices: every answer against the OpenAPI document (always against the in-process server)")
	replay := fs.String("replay", "", "run the actions of this replay file (explore/*.json under the report folder) once, instead of generated sequences")
	if code, ok := shared.parse(fs, exploreUsage, args, stdout, stderr); !ok {
		return code
	}
	env := vars.env(lookup, "CONFORMANCE_TAGS", "CONFORMANCE_EXPECTED_FAILURES") // the scenarios' alone
	o, err := exploreOptions(env, *ref, *replay)
	if err == nil {
		o.Output, o.Settings = stdout, vars.settings(exploreCommand, env)
		o.Color, err = shared.colored(stdout, lookup)
	}
	if err != nil {
		return exploreNotStarted(stderr, o.ReportDir, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := explore.Run(ctx, o)
	return exploreExit(stdout, stderr, o.ReportDir, rep, err)
}

// exploreOptions reads the options of an exploration alone from env: the
// run's (suite.FromEnv), its budget, and the replay file, if any. ref
// checks the reference server's choices too, as an in-process run
// always does. The target is opened by explore.Run, as the runner of the
// scenarios opens its own (target.Open).
func exploreOptions(env func(string) (string, bool), ref bool, replay string) (explore.Options, error) {
	c, err := suite.FromEnv(env)
	if err != nil {
		dir, _ := env("CONFORMANCE_REPORT_DIR")
		return explore.Options{ReportDir: dir}, err
	}
	if c.ReportDir == "" {
		c.ReportDir = suite.DefaultReportDir
	}
	o := explore.Options{Target: c.Target, ReadOnly: c.ReadOnly, Concurrency: c.Concurrency, ReportDir: c.ReportDir, Ref: ref || !c.Target.Remote()}
	if err := budget(env, &o); err != nil {
		return o, err
	}
	if v, _ := env("CONFORMANCE_MAX_TIME"); v != "" {
		if o.MaxTime, err = suite.ParseDuration("CONFORMANCE_MAX_TIME", v, ""); err != nil {
			return o, err
		}
	}
	if replay != "" {
		if o.Replay, err = explore.ReadReplay(replay); err != nil {
			return o, err
		}
		o.Seed = o.Replay.Seed
	}
	return o, nil
}

// exploreNotStarted tells what stopped an exploration before it started,
// and writes reports in dir that say so (exit 2).
func exploreNotStarted(stderr io.Writer, dir string, err error) int {
	fmt.Fprintf(stderr, "conformance explore: %s\n", report.Visible(err.Error()))
	if dir == "" {
		dir = suite.DefaultReportDir
	}
	if werr := report.WriteNotStarted(dir, nil, err); werr != nil {
		fmt.Fprintf(stderr, "conformance explore: %v\n", werr)
	}
	return exitUsage
}

// exploreExit says how an exploration ended, and where its reports in
// dir are, and returns the exit status of its error.
func exploreExit(stdout, stderr io.Writer, dir string, rep *report.Report, err error) int {
	reports := "Reports: " + strings.Join([]string{
		dir + "/" + report.HTMLReport, dir + "/" + report.JSONReport,
		dir + "/" + report.JUnitReport, dir + "/" + report.CucumberReport}, ", ")
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
	return exploreNotStarted(stderr, dir, err)
}

// isSet reports whether a variable has a value.
func isSet(env func(string) (string, bool), name string) bool {
	v, _ := env(name)
	return strings.TrimSpace(v) != ""
}

// exploreUsage is the first lines of `conformance explore -h`.
const exploreUsage = "usage: conformance explore [-base-url URL] [-seed N] [-max-actions N] [-max-time D] [-max-events N] [-failed-logins N]\n       [-concurrency N] [-read-only] [-ref] [-replay FILE] [-report-dir DIR] [-timeout D] [-max-answer SIZE] [-ca-file FILE]\n       [-version]"
