package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"eventsvc/conformance"
)

// Exit statuses (docs/running-against-a-deployment.md).
const (
	exitPassed    = 0 // every selected rule holds (expected failures allowed)
	exitFailed    = 1 // a rule failed, or a baseline entry is stale
	exitUsage     = 2 // the run could not start: flags, variables, tags, preflight
	exitThrottled = 3 // the target throttled the run (429)
)

func run(args []string, lookup func(string) (string, bool), stdout, stderr io.Writer) int {
	getenv := func(name string) string { v, _ := lookup(name); return v }
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	baseURL := fs.String("base-url", getenv("BASE_URL"), "address of the deployment to check, under which /api is served (default $BASE_URL; empty: an in-process reference server)")
	tags := fs.String("tags", "", "tag expression selecting scenarios, such as '@spec && not @local' (default $CONFORMANCE_TAGS, else \""+conformance.RemoteTags+"\" remotely, \""+conformance.InProcessTags+"\" in-process)")
	reportDir := fs.String("report-dir", "", "directory for the reports (default $CONFORMANCE_REPORT_DIR, else reports)")
	readOnly := fs.Bool("read-only", false, "leave out the scenarios that create or change data (@writes); also READ_ONLY=1 or true")
	list := fs.Bool("list", false, "print the scenarios the tags select, with their rule ids, and run nothing")
	format := fs.String("format", conformance.FormatCompact, "output: compact (a line per scenario, failures in full at the end) or pretty (every step)")
	color := fs.String("color", "auto", "colour the output: auto (on a terminal, unless NO_COLOR is set), always or never")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: conformance [-base-url URL] [-tags EXPR] [-report-dir DIR] [-read-only] [-list] [-format compact|pretty]")
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
	fail := func(err error) int {
		fmt.Fprintf(stderr, "conformance: %v\n", strings.TrimPrefix(err.Error(), conformance.ErrUsage.Error()+": "))
		return exitUsage
	}
	env := func(name string) (string, bool) {
		if name == "BASE_URL" {
			return *baseURL, true
		}
		return lookup(name)
	}
	o, err := conformance.FromEnv(env)
	if err != nil {
		return fail(err)
	}
	if *tags != "" {
		o.Tags, o.DefaultTags = *tags, false
	}
	if *reportDir != "" {
		o.ReportDir = *reportDir
	}
	if o.ReportDir == "" {
		o.ReportDir = "reports"
	}
	o.ReadOnly = o.ReadOnly || *readOnly
	o.Output = stdout
	o.Format = *format
	switch *color {
	case "auto":
		o.Color = isTerminal(stdout) && getenv("NO_COLOR") == ""
	case "always":
		o.Color = true
	case "never":
	default:
		return fail(fmt.Errorf("-color %q: want auto, always or never", *color))
	}

	plan, effective, err := conformance.Plan(o)
	if err != nil {
		return fail(err)
	}
	if *list {
		return listScenarios(plan, effective, stdout)
	}
	where := o.Target.BaseURL
	if where == "" {
		where = "an in-process reference server"
	}
	fmt.Fprintf(stdout, "Checking %s (run %s)\n", where, o.Target.RunID)
	c := o.Target.Credentials
	creds := fmt.Sprintf("client %q, user %q, other user %q", c.ClientID, c.Username, c.OtherUsername)
	if o.DemoCredentials {
		creds += " (the reference server's demo credentials: no CONFORMANCE_* credential is set)"
	}
	fmt.Fprintf(stdout, "Credentials: %s\n", creds)
	fmt.Fprintf(stdout, "Scenarios: %s\n\n", selectionLine(plan, effective))

	rep, err := conformance.Run(o)
	reports := fmt.Sprintf("Reports: %s/%s, %s/%s", o.ReportDir, conformance.JUnitReport, o.ReportDir, conformance.CucumberReport)
	switch {
	case err == nil:
		fmt.Fprintf(stdout, "%s\n", reports)
		return exitPassed
	case errors.Is(err, conformance.ErrFailed):
		fmt.Fprintf(stdout, "%s\n", reports)
		fmt.Fprintf(stderr, "conformance: FAILED: %s\n", failedRules(rep))
		return exitFailed
	case errors.Is(err, conformance.ErrThrottled):
		fmt.Fprintf(stdout, "%s\n", reports)
		fmt.Fprintf(stderr, "conformance: %v; the rules were not all checked. Wait for the lockout to end (Retry-After), run fewer scenarios that send wrong passwords, or ask for a higher lockout limit for the test accounts\n", err)
		return exitThrottled
	default:
		if rep != nil {
			fmt.Fprintf(stdout, "%s (they say the run did not start)\n", reports)
		}
		return fail(err)
	}
}

// failedRules is the one-line reason of a failed run.
func failedRules(rep *conformance.Report) string {
	var ids []string
	for _, r := range rep.Rules {
		if r.Verdict == conformance.Failed {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) == 0 {
		return "some selected scenarios failed (see above and the reports)"
	}
	return fmt.Sprintf("%d rule%s failed: %s (see above and the reports)", len(ids), map[bool]string{true: "", false: "s"}[len(ids) == 1], strings.Join(ids, ", "))
}

// selectionLine says how many scenarios run, by which expression, and how
// many of those it names are left out, and why.
func selectionLine(plan []*conformance.Planned, effective conformance.TagExpr) string {
	run, left := 0, map[string]int{}
	var reasons []string
	for _, p := range plan {
		switch {
		case p.Run:
			run++
		case p.Reason != conformance.ReasonTags:
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

func listScenarios(plan []*conformance.Planned, effective conformance.TagExpr, stdout io.Writer) int {
	n := 0
	for _, p := range plan {
		if !p.Run {
			continue
		}
		n++
		fmt.Fprintf(stdout, "%-22s %s  %s: %s\n", strings.Join(p.Rules, ","), p.Place(), p.Feature, p.Name)
	}
	fmt.Fprintf(stdout, "%d scenarios selected by %q\n", n, effective.String())
	return exitPassed
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
