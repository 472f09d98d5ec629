package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// variables are the flags that stand for a variable: given, even empty,
// they replace it. Each says its default once, in its usage: the
// variable's, else what applies without either.
type variables struct {
	fs    *flag.FlagSet
	value map[string]*string // by variable
	flag  map[string]string  // the flag of each variable
}

func newVariables(fs *flag.FlagSet) *variables {
	return &variables{fs: fs, value: map[string]*string{}, flag: map[string]string{}}
}

// add defines the flag name, standing for variable; def is what applies
// when neither is given ("" for nothing).
func (v *variables) add(name, variable, def, usage string) {
	usage += " (default $" + variable
	if def != "" {
		usage += ", else " + def
	}
	v.value[variable] = v.fs.String(name, "", usage+")")
	v.flag[variable] = name
}

// given returns the value of the flag that stands for variable, when it
// was given.
func (v *variables) given(variable string) (string, bool) {
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

// parse parses args into fs. When the command cannot go on (-h, a bad
// flag, an argument), it returns false and the exit status.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) (int, bool) {
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
