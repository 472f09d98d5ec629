package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"eventsvc/conformance"
	"eventsvc/features"
)

// Exit codes.
const (
	exitPassed = 0
	exitFailed = 1 // a selected scenario failed
	exitUsage  = 2 // bad flags or variables, unreachable target, refused credentials
)

func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	baseURL := fs.String("base-url", getenv("BASE_URL"), "address of the deployment to check (default $BASE_URL; empty: an in-process reference server)")
	controlURL := fs.String("control-url", getenv("CONTROL_URL"), "address of the control API of a reference server run with eventsvc serve -control, to move its clock (default $CONTROL_URL; its token in $CONFORMANCE_CONTROL_TOKEN)")
	tags := fs.String("tags", "", "godog tag expression selecting scenarios (default $CONFORMANCE_TAGS, else \""+conformance.RemoteTags+"\" remotely, \""+conformance.InProcessTags+"\" in-process)")
	reportDir := fs.String("report-dir", "", "directory for junit.xml and cucumber.json (default $CONFORMANCE_REPORT_DIR, else reports)")
	readOnly := fs.Bool("read-only", false, "leave out the scenarios that create or change data (@writes)")
	list := fs.Bool("list", false, "print the scenarios the tags select, with their rule ids, and run nothing")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: conformance [-base-url URL] [-control-url URL] [-tags EXPR] [-report-dir DIR] [-read-only] [-list]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitPassed
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "conformance: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	env := func(name string) string {
		if name == "BASE_URL" {
			return *baseURL
		}
		if name == "CONTROL_URL" {
			return *controlURL
		}
		return getenv(name)
	}
	o, err := conformance.FromEnv(env)
	if err != nil {
		fmt.Fprintf(stderr, "conformance: %v\n", err)
		return exitUsage
	}
	if *tags != "" {
		o.Tags = *tags
	}
	if *reportDir != "" {
		o.ReportDir = *reportDir
	}
	if o.ReportDir == "" {
		o.ReportDir = "reports"
	}
	o.ReadOnly = *readOnly
	o.Output = stdout

	if *list {
		return listScenarios(o, stdout, stderr)
	}
	where := o.Target.BaseURL
	if where == "" {
		where = "an in-process reference server"
	}
	fmt.Fprintf(stdout, "Checking %s with the scenarios %q (run %s)\n\n", where, o.SelectedTags(), o.Target.RunID)
	err = conformance.Run(o)
	switch {
	case err == nil:
		fmt.Fprintf(stdout, "\nReports: %s/%s, %s/%s\n", o.ReportDir, conformance.JUnitReport, o.ReportDir, conformance.CucumberReport)
		return exitPassed
	case errors.Is(err, conformance.ErrFailed):
		fmt.Fprintf(stdout, "\nReports: %s/%s, %s/%s\n", o.ReportDir, conformance.JUnitReport, o.ReportDir, conformance.CucumberReport)
		fmt.Fprintln(stderr, "conformance: FAILED: some selected scenarios failed (see above and the reports)")
		return exitFailed
	default:
		fmt.Fprintf(stderr, "conformance: %v\n", err)
		return exitUsage
	}
}

func listScenarios(o conformance.Options, stdout, stderr io.Writer) int {
	set, err := features.Load(features.FS)
	if err != nil {
		fmt.Fprintf(stderr, "conformance: %v\n", err)
		return exitUsage
	}
	n := 0
	for _, p := range set.Pickles() {
		if !conformance.MatchTags(o.SelectedTags(), p.Tags) {
			continue
		}
		n++
		fmt.Fprintf(stdout, "%-22s %s: %s\n", strings.Join(p.Tags.Rules(), ","), p.Feature.Name, p.Name)
	}
	fmt.Fprintf(stdout, "%d scenarios selected by %q\n", n, o.SelectedTags())
	return exitPassed
}
