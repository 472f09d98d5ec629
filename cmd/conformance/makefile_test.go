package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// makeWithFakeGo runs `make -s -C ../.. TARGET GO=FAKE VARS…`, args being
// TARGET and VARS, with env added to the environment, where FAKE is a
// stand-in for go that prints its arguments and environment; it returns
// make's output. Without make on this machine, it skips the test.
func makeWithFakeGo(t *testing.T, env []string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make on this machine")
	}
	fake := filepath.Join(t.TempDir(), "go")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"args: $*\"\nenv\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", append([]string{"-s", "-C", "../..", args[0], "GO=" + fake}, args[1:]...)...)
	cmd.Env = append(append(os.Environ(), env...), "MAKEFLAGS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make %s: %v\n%s", args[0], err, out)
	}
	return string(out)
}

// goRunsTheSuite reports whether args, the stand-in's first line, is
// `go run` of the suite built with its version, revision and date
// (-ldflags, as make build does) and given no flag of its own: only
// command, "" or " explore".
func goRunsTheSuite(args, command string) bool {
	built := regexp.MustCompile(`^args: run -ldflags -s -w -X eventsvc/internal/version\.Version=\S+ -X eventsvc/internal/version\.Revision=\S* -X eventsvc/internal/version\.Date=\S+ \./cmd/conformance(.*)$`)
	m := built.FindStringSubmatch(args)
	return m != nil && m[1] == command
}

// TestMakeConformancePassesTheVariablesOn runs `make conformance` with a
// stand-in for go that prints its arguments and environment: the runner
// must get the CONFORMANCE_* variables, BASE_URL and READ_ONLY as given,
// and no flag that overrides them.
func TestMakeConformancePassesTheVariablesOn(t *testing.T) {
	text := makeWithFakeGo(t, []string{"CONFORMANCE_TAGS=@AUTH-6"},
		"conformance", "CONFORMANCE_REPORT_DIR=ci-reports", "READ_ONLY=1", "BASE_URL=https://staging.example")
	args, _, _ := strings.Cut(text, "\n")
	if !goRunsTheSuite(args, "") {
		t.Errorf("make passes flags that override the variables, or builds the suite without its version: %q", args)
	}
	for _, want := range []string{"CONFORMANCE_REPORT_DIR=ci-reports", "READ_ONLY=1", "BASE_URL=https://staging.example", "CONFORMANCE_TAGS=@AUTH-6"} {
		if !strings.Contains(text, "\n"+want+"\n") {
			t.Errorf("the runner does not get %s:\n%s", want, text)
		}
	}
	if strings.Contains(text, "\nCONFORMANCE_CLIENT_ID=") {
		t.Errorf("make sets CONFORMANCE_CLIENT_ID, which was not given (an empty one is refused)")
	}
}

// TestMakeExploreTakesTheSameVariables runs `make explore` with the stand-in
// for go: the explorer gets the target, the credentials and its budget as
// given.
func TestMakeExploreTakesTheSameVariables(t *testing.T) {
	text := makeWithFakeGo(t, []string{"CONFORMANCE_USERNAME=qa@example.org"},
		"explore", "BASE_URL=https://staging.example", "CONFORMANCE_SEED=42")
	if args, _, _ := strings.Cut(text, "\n"); !goRunsTheSuite(args, " explore") {
		t.Errorf("make explore runs %q", args)
	}
	for _, want := range []string{"BASE_URL=https://staging.example", "CONFORMANCE_SEED=42", "CONFORMANCE_USERNAME=qa@example.org"} {
		if !strings.Contains(text, "\n"+want+"\n") {
			t.Errorf("the explorer does not get %s:\n%s", want, text)
		}
	}
}

// TestCIRunsTheBinaryNotMake: make ends a failed recipe with its own
// status 2, the suite's "could not start", whatever the suite's was (1
// failed, 3 throttled, 4 unreachable). So the CI templates, the CI
// sections and every YAML of the docs run the binary, never make
// conformance or make explore, and the Makefile's help and the README
// say why.
func TestCIRunsTheBinaryNotMake(t *testing.T) {
	if _, err := exec.LookPath("make"); err == nil {
		fake := filepath.Join(t.TempDir(), "go")
		if err := os.WriteFile(fake, []byte("#!/bin/sh\nexit 4\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("make", "-s", "-C", "../..", "conformance", "GO="+fake)
		cmd.Env = append(os.Environ(), "MAKEFLAGS=")
		err := cmd.Run()
		if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 2 {
			t.Errorf("make conformance with a suite that exits 4: %v; the docs say make ends it with 2", err)
		}
	}
	runsMake := regexp.MustCompile(`\bmake(\s+-\S+)*\s+(conformance|explore)\b`)
	read := func(path string) string {
		b, err := os.ReadFile(filepath.Join("../..", path))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	ci, _ := filepath.Glob("../../ci/gitlab/*.yml")
	for i := range ci {
		ci[i], _ = filepath.Rel("../..", ci[i])
	}
	for _, path := range append(ci, "action.yml", "ci/conformance.sh") {
		if m := runsMake.FindString(read(path)); m != "" {
			t.Errorf("%s runs %q: a CI job must run the binary, whose exit status is the suite's", path, m)
		}
	}
	docs, _ := filepath.Glob("../../docs/*.md")
	docs = append(docs, "../../README.md")
	for _, path := range docs {
		path, _ = filepath.Rel("../..", path)
		text := read(path)
		for _, block := range regexp.MustCompile("(?s)```ya?ml\n.*?```").FindAllString(text, -1) {
			if m := runsMake.FindString(block); m != "" {
				t.Errorf("%s: a YAML block runs %q, not the binary", path, m)
			}
		}
		for _, section := range regexp.MustCompile(`(?m)^#+ .*\bCI\b.*$`).FindAllStringIndex(text, -1) {
			body := text[section[1]:]
			if next := regexp.MustCompile(`(?m)^#+ `).FindStringIndex(body); next != nil {
				body = body[:next[0]]
			}
			if m := runsMake.FindString(body); m != "" {
				t.Errorf("%s: the section %q runs %q, not the binary", path, text[section[0]:section[1]], m)
			}
		}
	}
	makefile := read("Makefile")
	for _, target := range []string{"conformance", "explore"} {
		_, help, _ := strings.Cut(makefile, "#   make "+target+" ")
		help, _, _ = strings.Cut(help, "#   make ")
		if !strings.Contains(help, "status 2") || !strings.Contains(help, "bin/conformance") {
			t.Errorf("the Makefile's help of make %s does not say that make ends a failure with 2 and CI runs bin/conformance:\n%s", target, help)
		}
	}
	readme := strings.Join(strings.Fields(read("README.md")), " ")
	for _, want := range []string{"`bin/conformance`, the suite as one binary", "rather than make, which turns every failure into its own exit status 2", "in CI, `bin/conformance explore`"} {
		if !strings.Contains(readme, want) {
			t.Errorf("the README does not say %q", want)
		}
	}
}
