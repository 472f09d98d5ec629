package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMakeConformancePassesTheVariablesOn runs `make conformance` with a
// stand-in for go that prints its arguments and environment: the runner
// must get the CONFORMANCE_* variables, BASE_URL and READ_ONLY as given,
// and no flag that overrides them.
func TestMakeConformancePassesTheVariablesOn(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make on this machine")
	}
	fake := filepath.Join(t.TempDir(), "go")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"args: $*\"\nenv\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "-s", "-C", "../..", "conformance", "GO="+fake,
		"CONFORMANCE_REPORT_DIR=ci-reports", "READ_ONLY=1", "BASE_URL=https://staging.example")
	cmd.Env = append(os.Environ(), "CONFORMANCE_TAGS=@AUTH-6", "MAKEFLAGS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make conformance: %v\n%s", err, out)
	}
	text := string(out)
	args, _, _ := strings.Cut(text, "\n")
	if args != "args: run ./cmd/conformance" {
		t.Errorf("make passes flags that override the variables: %q", args)
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
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make on this machine")
	}
	fake := filepath.Join(t.TempDir(), "go")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"args: $*\"\nenv\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "-s", "-C", "../..", "explore", "GO="+fake, "BASE_URL=https://staging.example", "CONFORMANCE_SEED=42")
	cmd.Env = append(os.Environ(), "CONFORMANCE_USERNAME=qa@example.org", "MAKEFLAGS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make explore: %v\n%s", err, out)
	}
	text := string(out)
	if args, _, _ := strings.Cut(text, "\n"); args != "args: run ./cmd/conformance explore" {
		t.Errorf("make explore runs %q", args)
	}
	for _, want := range []string{"BASE_URL=https://staging.example", "CONFORMANCE_SEED=42", "CONFORMANCE_USERNAME=qa@example.org"} {
		if !strings.Contains(text, "\n"+want+"\n") {
			t.Errorf("the explorer does not get %s:\n%s", want, text)
		}
	}
}
