package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"eventsvc/conformance/selection"
	"eventsvc/features"
)

// TestTheDocsNameOnlyFlagsAndVariablesThatExist reads
// docs/running-against-a-deployment.md: every flag it mentions is one of
// the binary's, every variable one the binary reads, and every flag of the
// binary is documented.
func TestTheDocsNameOnlyFlagsAndVariablesThatExist(t *testing.T) {
	b, err := os.ReadFile("../../docs/running-against-a-deployment.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)

	var usage bytes.Buffer
	run([]string{"-h"}, env(nil), &usage, &usage)
	flags := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s+-([a-z][a-z-]*)`).FindAllStringSubmatch(usage.String(), -1) {
		flags[m[1]] = true
	}
	if len(flags) < 10 {
		t.Fatalf("only %d flags in the usage:\n%s", len(flags), usage.String())
	}
	// The flags of go test commands are go's, those of eventsvc serve the
	// server's, those of conformance explore (-replay) the explorer's.
	binaryDoc := regexp.MustCompile("(go (test|build|run)|eventsvc serve|conformance explore)[^`\n]*").ReplaceAllString(doc, "")
	for _, m := range regexp.MustCompile("(?:^|[\\s`\\[(])-([a-z][a-z-]+)").FindAllStringSubmatch(binaryDoc, -1) {
		if !flags[m[1]] {
			t.Errorf("the docs mention the flag -%s, which the binary does not have", m[1])
		}
	}
	for f := range flags {
		if !strings.Contains(doc, "-"+f) {
			t.Errorf("the flag -%s is not documented", f)
		}
	}

	read := variablesRead(t)
	for _, m := range regexp.MustCompile(`\b(CONFORMANCE_[A-Z_]+|BASE_URL|READ_ONLY|HTTPS?_PROXY|NO_PROXY|NO_COLOR)\b`).FindAllStringSubmatch(doc, -1) {
		if !slices.Contains(read, m[1]) {
			t.Errorf("the docs mention the variable %s, which the binary does not read", m[1])
		}
	}
}

// TestTheDocsNameRealScenarios: every file:line the README and the docs
// show, as -run would take it or as a run prints it, is a scenario's.
func TestTheDocsNameRealScenarios(t *testing.T) {
	docs, _ := filepath.Glob("../../docs/*.md")
	docs = append(docs, "../../README.md")
	places := 0
	for _, path := range docs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, place := range regexp.MustCompile(`[a-z_]+\.feature:[0-9]+`).FindAllString(string(b), -1) {
			places++
			set, err := features.Load(features.FS)
			if err != nil {
				t.Fatal(err)
			}
			plan := selection.Plan(set)
			for _, p := range plan {
				p.Run = true
			}
			if err := selection.Only(plan, []string{place}); err != nil {
				t.Errorf("%s shows %s: %v", path, place, err)
			}
		}
	}
	if places == 0 {
		t.Fatal("no file:line in the docs")
	}
}
