package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"html"
	"os"
	"path/filepath"
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
	dir := t.TempDir()
	if err := (&Writer{Dir: dir}).Finish(rep); err != nil {
		t.Fatal(err)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	var console bytes.Buffer
	NewConsole(&console, FormatCompact, false).Summary(rep)
	if !strings.Contains(console.String(), "\nCredentials went to the target's origin only; requests to another origin went without them:\n  "+line+"\n") {
		t.Errorf("the summary does not say where the run went:\n%s", console.String())
	}

	doc := read(JSONReport)
	checkSchema(t, doc)
	var parsed Document
	if err := json.Unmarshal(doc, &parsed); err != nil {
		t.Fatal(err)
	}
	if f := parsed.ForeignOrigins; len(f) != 1 || f[0].Origin != elsewhere || f[0].Requests != 3 || len(f[0].Via) != 2 {
		t.Errorf("conformance.json: foreignOrigins %+v", f)
	}

	if page := string(read(HTMLReport)); !strings.Contains(page, html.EscapeString(line)) {
		t.Errorf("conformance.html does not show %q", line)
	}

	var junit struct {
		Suites []struct {
			Props []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(read(JUnitReport), &junit); err != nil || len(junit.Suites) == 0 {
		t.Fatalf("junit.xml: %v, %d suites", err, len(junit.Suites))
	}
	for _, s := range junit.Suites {
		found := false
		for _, p := range s.Props {
			found = found || p.Name == "foreign origin" && p.Value == line
		}
		if !found {
			t.Errorf("junit.xml: a test suite lacks the property foreign origin = %q: %+v", line, s.Props)
		}
	}

	var cucumber []struct {
		Description string `json:"description"`
	}
	if err := json.Unmarshal(read(CucumberReport), &cucumber); err != nil || len(cucumber) == 0 {
		t.Fatalf("cucumber.json: %v, %d features", err, len(cucumber))
	}
	for _, f := range cucumber {
		if !strings.Contains(f.Description, line) {
			t.Errorf("cucumber.json: a feature's description %q does not say %q", f.Description, line)
		}
	}

	rep.Foreign = nil
	console.Reset()
	NewConsole(&console, FormatCompact, false).Summary(rep)
	if strings.Contains(console.String(), "origin") {
		t.Errorf("a run that went nowhere else speaks of origins:\n%s", console.String())
	}
	if err := (&Writer{Dir: dir}).Finish(rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(read(JSONReport)), `"foreignOrigins": []`) {
		t.Errorf("conformance.json of a run that went nowhere else has no empty foreignOrigins")
	}
	if strings.Contains(string(read(HTMLReport)), "Credentials went") {
		t.Errorf("conformance.html of a run that went nowhere else speaks of it")
	}
}
