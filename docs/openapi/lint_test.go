package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// lintedDocuments are the OpenAPI documents that Redocly and Spectral lint,
// by their path from the module's root. A document is added here once it
// has no error and each of its warnings is listed in the docs with why.
var lintedDocuments = []string{
	"docs/openapi/openapi.json",
	"server/control/openapi.json",
}

// warningsDoc is where the warnings left are listed, in the table of its
// section warningsSection.
const (
	warningsDoc     = "docs/reference-choices.md"
	warningsSection = "## The OpenAPI document"
)

// finding is one problem a linter reports: the rule and where, as a path
// of the document's keys joined by dots (paths./api/events.post).
type finding struct {
	Document, Tool, Rule, Where string
}

func (f finding) String() string {
	return f.Document + " " + f.Tool + " " + f.Rule + " at " + f.Where
}

// TestTheOpenAPIDocumentsLintClean lints each document with Redocly's
// recommended rules and Spectral's spectral:oas, the rules common tools
// apply: no error, and the warnings left are exactly those the docs list,
// each with why, so that a new warning, or one fixed, fails here.
func TestTheOpenAPIDocumentsLintClean(t *testing.T) {
	redocly, spectral := tool(t, "redocly"), tool(t, "spectral")
	listed := listedWarnings(t)
	var got []finding
	for _, doc := range lintedDocuments {
		path := filepath.Join("..", "..", filepath.FromSlash(doc))
		for _, lint := range []struct {
			name string
			run  func(t *testing.T, bin, path string) (errors []string, warnings []finding)
			bin  string
		}{
			{"Redocly", lintRedocly, redocly},
			{"Spectral", lintSpectral, spectral},
		} {
			errs, warnings := lint.run(t, lint.bin, path)
			for _, e := range errs {
				t.Errorf("%s: %s error: %s", doc, lint.name, e)
			}
			for _, w := range warnings {
				w.Document, w.Tool = doc, lint.name
				got = append(got, w)
			}
		}
	}
	for _, f := range got {
		if !slices.Contains(listed, f) {
			t.Errorf("a new warning: %s; fix it, or list it in %s (%q) with why", f, warningsDoc, warningsSection)
		}
	}
	for _, f := range listed {
		if !slices.Contains(got, f) {
			t.Errorf("%s lists %s, which the linter no longer reports: take it out", warningsDoc, f)
		}
	}
}

// run runs a linter and returns what it wrote to standard output; a
// linter exits with 1 when it finds an error, which the caller reads from
// the output.
func run(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = toolEnv()
	cmd.Dir = t.TempDir() // no configuration file of the working directory applies
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if _, exited := err.(*exec.ExitError); err != nil && (!exited || cmd.ProcessState.ExitCode() != 1) {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, stderr.Bytes())
	}
	return stdout.Bytes()
}

// lintRedocly runs `redocly lint` with lint/redocly.yaml (the recommended
// rules), in its JSON format.
func lintRedocly(t *testing.T, bin, path string) (errs []string, warnings []finding) {
	config, _ := filepath.Abs(filepath.Join("lint", "redocly.yaml"))
	abs, _ := filepath.Abs(path)
	out := run(t, bin, "lint", "--config", config, "--format", "json", "--max-problems", "1000", abs)
	var report struct {
		Totals *struct {
			Errors, Warnings int
		}
		Problems []struct {
			RuleID, Severity, Message string
			Location                  []struct{ Pointer string }
		}
	}
	if err := json.Unmarshal(out, &report); err != nil || report.Totals == nil {
		t.Fatalf("redocly lint %s: not its JSON report (%v): %.500s", path, err, out)
	}
	for _, p := range report.Problems {
		where := ""
		if len(p.Location) > 0 {
			where = pointerPath(p.Location[0].Pointer)
		}
		if p.Severity == "error" {
			errs = append(errs, p.RuleID+" at "+where+": "+p.Message)
			continue
		}
		warnings = append(warnings, finding{Rule: p.RuleID, Where: where})
	}
	if len(errs) != report.Totals.Errors || len(warnings) < report.Totals.Warnings {
		t.Fatalf("redocly lint %s: totals %+v, but %d errors and %d warnings read", path, *report.Totals, len(errs), len(warnings))
	}
	return errs, warnings
}

// lintSpectral runs `spectral lint` with lint/.spectral.yaml (the
// spectral:oas rules), in its JSON format.
func lintSpectral(t *testing.T, bin, path string) (errs []string, warnings []finding) {
	ruleset, _ := filepath.Abs(filepath.Join("lint", ".spectral.yaml"))
	abs, _ := filepath.Abs(path)
	out := run(t, bin, "lint", "--ruleset", ruleset, "--format", "json", "--quiet", abs)
	var results []struct {
		Code     string
		Path     []string
		Message  string
		Severity *int // 0 error, 1 warning, 2 information, 3 hint
	}
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("spectral lint %s: not its JSON report (%v): %.500s", path, err, out)
	}
	for _, r := range results {
		if r.Severity == nil {
			t.Fatalf("spectral lint %s: a result without a severity: %+v", path, r)
		}
		where := strings.Join(r.Path, ".")
		if *r.Severity == 0 {
			errs = append(errs, r.Code+" at "+where+": "+r.Message)
			continue
		}
		warnings = append(warnings, finding{Rule: r.Code, Where: where})
	}
	return errs, warnings
}

// pointerPath turns Redocly's JSON pointer (#/paths/~1api/get) into the
// dotted path Spectral reports (paths./api.get).
func pointerPath(pointer string) string {
	keys := strings.Split(strings.TrimPrefix(strings.TrimPrefix(pointer, "#"), "/"), "/")
	for i, k := range keys {
		keys[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(k)
	}
	return strings.Join(keys, ".")
}

// listedWarnings reads the table of the warnings left from the docs: one
// row per warning, | document | tool | rule | where | why |, each with its
// reason.
func listedWarnings(t *testing.T) []finding {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(warningsDoc)))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(text), "\n"+warningsSection+"\n")
	if !ok {
		t.Fatalf("%s has no section %q listing the warnings the linters leave", warningsDoc, warningsSection)
	}
	if next := strings.Index(section, "\n## "); next >= 0 {
		section = section[:next]
	}
	var listed []finding
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue // not a row of warnings: the header, its rule, prose
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 5 {
			t.Fatalf("%s: a row of %d cells, want document, tool, rule, where, why: %s", warningsDoc, len(cells), line)
		}
		for i := range cells {
			cells[i] = strings.Trim(strings.TrimSpace(cells[i]), "`")
		}
		if len(cells[4]) < 20 {
			t.Errorf("%s: the warning %s %s at %s is listed without a reason", warningsDoc, cells[1], cells[2], cells[3])
		}
		listed = append(listed, finding{Document: cells[0], Tool: cells[1], Rule: cells[2], Where: cells[3]})
	}
	return listed
}
