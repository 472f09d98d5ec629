package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xeipuuv/gojsonschema"

	"eventsvc/conformance/selection"
	"eventsvc/internal/version"
)

// versioned is a report of one passed scenario, written by the build
// built.
func versioned(t *testing.T, built version.Info) *Report {
	t.Helper()
	catalogue := ruleCatalogue(t)
	sc := &ScenarioResult{Planned: &selection.Planned{Feature: "Tokens", File: "tokens.feature", Line: 3, Name: "A user gets tokens",
		Rules: []string{"TOK-1"}, Tags: []string{"@spec", "@TOK-1"}, Run: true}, Verdict: Passed, Attempts: 1,
		Steps: []StepResult{{PlannedStep: selection.PlannedStep{Keyword: "Given", Text: "the demo client", Line: 4}, Status: "passed"}}}
	return &Report{Target: "http://127.0.0.1:8080", RunID: "20261124T141500Z", Version: built, Outcome: OutcomePassed,
		Started: time.Date(2026, 11, 24, 14, 15, 0, 0, time.UTC), Duration: time.Second,
		Scenarios: []*ScenarioResult{sc}, Rules: RuleResults(catalogue, []*ScenarioResult{sc})}
}

// TestEveryReportCarriesTheVersion: the console summary, JUnit (a property
// of every test suite), Cucumber JSON (each feature's description),
// conformance.json (suite.version, revision, date, valid by its schema) and
// conformance.html name the suite's version, revision and build date.
func TestEveryReportCarriesTheVersion(t *testing.T) {
	built := version.Info{Version: "v9.9.9-test", Revision: "0123456789abcdef0123456789abcdef01234567", Date: "2026-11-24T10:00:00Z"}
	rep := versioned(t, built)
	w := writeReports(t, rep)

	var console bytes.Buffer
	NewConsole(&console, FormatCompact, false).Summary(rep)
	if first := strings.SplitN(strings.TrimLeft(console.String(), "\n"), "\n", 2)[0]; first != "Suite "+built.String() {
		t.Errorf("the summary's first line is %q, want %q", first, "Suite "+built.String())
	}

	for _, s := range w.suitesRead() {
		got := map[string]string{}
		for _, p := range s.Props {
			got[p.Name] = p.Value
		}
		if got["suite version"] != built.Version || got["suite revision"] != built.Revision || got["suite date"] != built.Date {
			t.Errorf("junit.xml, test suite %q: properties %v lack the suite's version, revision and date", s.Name, got)
		}
	}
	for _, d := range w.cucumberDescriptions() {
		if !strings.Contains(d, built.String()) {
			t.Errorf("cucumber.json: a feature's description %q does not name %q", d, built.String())
		}
	}

	doc := w.read(JSONReport)
	var parsed Document
	if err := json.Unmarshal(doc, &parsed); err != nil {
		t.Fatal(err)
	}
	if parsed.Suite.Version != built.Version || parsed.Suite.Revision != built.Revision || parsed.Suite.Date != built.Date {
		t.Errorf("conformance.json: suite %+v, want %+v", parsed.Suite, built)
	}
	checkSchema(t, doc)

	if page := string(w.read(HTMLReport)); !strings.Contains(page, "<dd>"+built.String()+"</dd>") {
		t.Errorf("conformance.html does not show %q", built.String())
	}
}

// TestAReportThatCouldNotStartCarriesTheVersion: the reports of a run
// that did not start name the running build too.
func TestAReportThatCouldNotStartCarriesTheVersion(t *testing.T) {
	dir := t.TempDir()
	if err := WriteNotStarted(dir, nil, os.ErrNotExist); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, JSONReport))
	if err != nil {
		t.Fatal(err)
	}
	var doc Document
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if want := version.Get(); doc.Suite.Version != want.Version || doc.Suite.Revision != want.Revision || doc.Suite.Date != want.Date {
		t.Errorf("conformance.json of a run that did not start: suite %+v, want %+v", doc.Suite, want)
	}
	if len(doc.NotChecked) != 1 || doc.NotChecked[0].Why != WhyNotStarted || len(doc.Rules) == 0 {
		t.Errorf("conformance.json of a run that did not start: not checked %+v, %d rules; want every rule not started", doc.NotChecked, len(doc.Rules))
	}
	checkSchema(t, b)
}

// checkSchema fails t when doc does not follow conformance.schema.json
// (reporttest.CheckJSON, which imports this package).
func checkSchema(t *testing.T, doc []byte) {
	t.Helper()
	res, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(ReportSchema), gojsonschema.NewBytesLoader(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Errors() {
		t.Errorf("conformance.json does not follow its schema: %s", e)
	}
}
