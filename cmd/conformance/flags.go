package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"eventsvc/conformance/explore"
	"eventsvc/conformance/selection"
	"eventsvc/internal/version"
	"eventsvc/suite"
)

// command is one of the binary's commands: a run of the scenarios
// (conformance) or an exploration alone (conformance explore).
type command int

const (
	runCommand command = iota
	exploreCommand
)

// flagSpec is a flag that stands for a variable, declared once for both
// commands: given, even empty, it replaces its variable (a switch sets it
// to "1"). def is what applies when neither is given ("" for nothing);
// usage is its text in each command, "" in one that has no such flag.
type flagSpec struct {
	name, variable, def string
	usage               [2]string // by command
	boolean             bool
}

// both is a usage the two commands share.
func both(usage string) [2]string { return [2]string{usage, usage} }

// flagSpecs are the flags of both commands that stand for a variable.
func flagSpecs() []flagSpec {
	const answer = "an answer not over by then is cut, a finding that blames no rule"
	return []flagSpec{
		{name: "base-url", variable: "BASE_URL", def: "an in-process reference server", usage: [2]string{"address of the deployment to check, under which /api is served", "address of the deployment to explore"}},
		{name: "control-url", variable: "CONTROL_URL", usage: [2]string{"address of the control API of a reference server run with eventsvc serve -control, to move its clock; its token in $CONFORMANCE_CONTROL_TOKEN", ""}},
		{name: "tags", variable: "CONFORMANCE_TAGS", def: "\"" + selection.RemoteTags + "\" remotely, \"" + selection.InProcessTags + "\" in-process", usage: [2]string{"tag expression selecting scenarios, such as '@spec && not @local'", ""}},
		{name: "report-dir", variable: "CONFORMANCE_REPORT_DIR", def: suite.DefaultReportDir, usage: both("directory for the reports")},
		{name: "concurrency", variable: "CONFORMANCE_CONCURRENCY", def: "1", usage: [2]string{"how many scenarios run at once, 1 to 64; verdicts and reports are those of a serial run", "how many sequences run at once, 1 to 64"}},
		{name: "retries", variable: "CONFORMANCE_RETRIES", def: "0", usage: [2]string{"how many more times a failed scenario runs, 0 to 10; one that then passes is flaky", ""}},
		{name: "timeout", variable: "CONFORMANCE_TIMEOUT", def: "30s", usage: both("how long one request may take, its answer read whole, such as 2m; " + answer)},
		{name: "max-answer", variable: "CONFORMANCE_MAX_ANSWER", def: "4MiB", usage: both("how much of an answer's body is read at most, counted after decompression, such as 512KiB or 1048576 (bytes); a longer answer is cut there, a finding that blames no rule")},
		{name: "ca-file", variable: "CONFORMANCE_CA_FILE", usage: [2]string{"PEM file of the CA certificates to trust besides the system's, for a deployment behind a private CA", "PEM file of the CA certificates to trust besides the system's"}},
		{name: "expected-failures", variable: "CONFORMANCE_EXPECTED_FAILURES", usage: [2]string{"JSON file of the expected failures (a baseline), each a rule or a scenario with its reason", ""}},
		{name: "explore", variable: "CONFORMANCE_EXPLORE", def: short(defaultExplore) + "; 0 with -run or -rerun-failed", usage: [2]string{
			"after the scenarios, explore the same target with generated sequences of actions for at most this long, such as 90s; 0 explores nothing. " +
				"-seed, -max-actions, -max-events and -failed-logins set its budget, as they set conformance explore's (docs/explore.md)", ""}},
		{name: "seed", variable: "CONFORMANCE_SEED", def: "one drawn and printed", usage: [2]string{"the seed of the exploration's sequences", "the seed of the sequences; the same seed, with -concurrency 1, explores the same sequences against the same state"}},
		{name: "max-actions", variable: "CONFORMANCE_MAX_ACTIONS", def: fmt.Sprint(explore.DefaultMaxActions), usage: [2]string{"how many actions the exploration takes in all, 1 to 1000000", "how many actions in all, 1 to 1000000"}},
		{name: "max-time", variable: "CONFORMANCE_MAX_TIME", def: explore.DefaultMaxTime.String(), usage: [2]string{"", "how long the exploration may take, shrinking included"}},
		{name: "max-events", variable: "CONFORMANCE_MAX_EVENTS", def: fmt.Sprint(explore.DefaultMaxEvents), usage: [2]string{"how many events the exploration may create, 0 to 100000", "how many events it may create in all, each named with the run id, 0 to 100000"}},
		{name: "failed-logins", variable: "CONFORMANCE_FAILED_LOGINS", def: fmt.Sprint(explore.DefaultFailedLogins), usage: [2]string{"how many token requests with wrong credentials the exploration may send, 0 to 100", "how many token requests with wrong credentials it may send, below the target's lockout, 0 to 100"}},
		{name: "read-only", variable: "READ_ONLY", boolean: true, usage: [2]string{"leave out the scenarios that create or change data (@writes); also READ_ONLY=1 or true", "create and change nothing: reads only; also READ_ONLY=1 or true"}},
		{name: "fail-on-not-run", variable: "CONFORMANCE_FAIL_ON_NOT_RUN", boolean: true, usage: [2]string{"fail the run (exit 1) when it left a rule of the specification unchecked that another run could check (read-only, the target's data, a failure first, the token lifetimes, the tags); also CONFORMANCE_FAIL_ON_NOT_RUN=1", ""}},
		{name: "slow", variable: "CONFORMANCE_SLOW", boolean: true, usage: [2]string{"also check the token lifetimes in real time (the @slow scenarios: LIM-1, LIM-2, CLI-5, CLI-6): against a deployment without -control-url they are watched beside the rest of the run, which then takes about an hour; also CONFORMANCE_SLOW=1", ""}},
	}
}

// variables are the flags of one command that stand for a variable:
// given, even empty, they replace it. Each says its default once, in
// its usage: the variable's, else what applies without either.
type variables struct {
	fs       *flag.FlagSet
	value    map[string]*string // by variable
	switched map[string]*bool   // by variable, the switches
	flag     map[string]string  // the flag of each variable
}

// declare defines on fs the flags of cmd that stand for a variable
// (flagSpecs), and the flags both commands share: -color and -version.
func declare(fs *flag.FlagSet, cmd command) (*variables, *common) {
	v := &variables{fs: fs, value: map[string]*string{}, switched: map[string]*bool{}, flag: map[string]string{}}
	for _, f := range flagSpecs() {
		usage := f.usage[cmd]
		switch {
		case usage == "":
			continue
		case f.boolean:
			v.switched[f.variable] = fs.Bool(f.name, false, usage)
		default:
			usage += " (default $" + f.variable
			if f.def != "" {
				usage += ", else " + f.def
			}
			v.value[f.variable] = fs.String(f.name, "", usage+")")
		}
		v.flag[f.variable] = f.name
	}
	return v, &common{
		color:   fs.String("color", "auto", "colour the output: auto (on a terminal, unless NO_COLOR is set), always or never"),
		version: fs.Bool("version", false, "print the suite's version, the revision it was built from and its build date, and run nothing"),
	}
}

// given returns the value of the flag that stands for variable, when it
// was given: a switch given is "1".
func (v *variables) given(variable string) (string, bool) {
	if on, ok := v.switched[variable]; ok {
		return "1", *on
	}
	name, ok := v.flag[variable]
	if !ok {
		return "", false
	}
	set := false
	v.fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	if !set {
		return "", false
	}
	return *v.value[variable], true
}

// env is lookup with the flags given in place of their variables, and
// without the variables of hidden, which the command does not read.
func (v *variables) env(lookup func(string) (string, bool), hidden ...string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		if val, ok := v.given(name); ok {
			return val, true
		}
		if slices.Contains(hidden, name) {
			return "", false
		}
		return lookup(name)
	}
}

// common are the flags both commands share that stand for no variable.
type common struct {
	color   *string
	version *bool
}

// colored says whether output to stdout is coloured, as -color asks.
func (c *common) colored(stdout io.Writer, lookup func(string) (string, bool)) (bool, error) {
	switch *c.color {
	case "auto":
		noColor, _ := lookup("NO_COLOR")
		return noColor == "" && isTerminal(stdout), nil
	case "always":
		return true, nil
	case "never":
		return false, nil
	}
	return false, fmt.Errorf("-color %q: want auto, always or never", *c.color)
}

// parse parses args into fs, which prints usage above its flags when
// asked for help. When the command has nothing more to do (-h, -version,
// a bad flag, an argument), it returns false and the exit status.
func (c *common) parse(fs *flag.FlagSet, usage string, args []string, stdout, stderr io.Writer) (int, bool) {
	fs.Usage = func() {
		fmt.Fprintln(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitPassed, false
		}
		return exitUsage, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return exitUsage, false
	}
	if *c.version {
		fmt.Fprint(stdout, version.Get().Text("conformance"))
		return exitPassed, false
	}
	return 0, true
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
