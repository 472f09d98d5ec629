package report

import (
	"bytes"
	"encoding/json"
	"html"
	"slices"
	"strings"
	"testing"

	"eventsvc/conformance/origin"
	"eventsvc/internal/version"
)

// TestEveryReportSaysWhereTheRunWentWithoutCredentials: a run that sent
// requests to another origin than the target's says so in the console
// summary, conformance.json (foreignOrigins, valid by its schema),
// conformance.html, JUnit (a property of every test suite) and Cucumber
// JSON (each feature's description); a run that did not says nothing of
// it, and conformance.json an empty list.
func TestEveryReportSaysWhereTheRunWentWithoutCredentials(t *testing.T) {
	const elsewhere = "http://127.0.0.1:40001"
	rep := versioned(t, version.Get())
	rep.Foreign = []origin.Foreign{{Origin: elsewhere, Requests: 3, Via: []string{"named by the Location of POST /api/events", `the "self" link in the answer to GET /api/events`}}}
	const line = `http://127.0.0.1:40001: 3 requests, without Authorization or cookies (named by the Location of POST /api/events; the "self" link in the answer to GET /api/events)`
	w := writeReports(t, rep)

	var console bytes.Buffer
	NewConsole(&console, FormatCompact, false).Summary(rep)
	if !strings.Contains(console.String(), "\nCredentials went to the target's origin only; requests to another origin went without them:\n  "+line+"\n") {
		t.Errorf("the summary does not say where the run went:\n%s", console.String())
	}

	doc := w.read(JSONReport)
	checkSchema(t, doc)
	var parsed Document
	if err := json.Unmarshal(doc, &parsed); err != nil {
		t.Fatal(err)
	}
	if f := parsed.ForeignOrigins; len(f) != 1 || f[0].Origin != elsewhere || f[0].Requests != 3 || len(f[0].Via) != 2 {
		t.Errorf("conformance.json: foreignOrigins %+v", f)
	}

	if page := string(w.read(HTMLReport)); !strings.Contains(page, html.EscapeString(line)) {
		t.Errorf("conformance.html does not show %q", line)
	}

	for _, s := range w.suitesRead() {
		if !slices.Contains(s.Props, property{"foreign origin", line}) {
			t.Errorf("junit.xml: a test suite lacks the property foreign origin = %q: %+v", line, s.Props)
		}
	}
	for _, d := range w.cucumberDescriptions() {
		if !strings.Contains(d, line) {
			t.Errorf("cucumber.json: a feature's description %q does not say %q", d, line)
		}
	}

	rep.Foreign = nil
	console.Reset()
	NewConsole(&console, FormatCompact, false).Summary(rep)
	if strings.Contains(console.String(), "origin") {
		t.Errorf("a run that went nowhere else speaks of origins:\n%s", console.String())
	}
	w.write(rep)
	if !strings.Contains(string(w.read(JSONReport)), `"foreignOrigins": []`) {
		t.Errorf("conformance.json of a run that went nowhere else has no empty foreignOrigins")
	}
	if strings.Contains(string(w.read(HTMLReport)), "Credentials went") {
		t.Errorf("conformance.html of a run that went nowhere else speaks of it")
	}
}
