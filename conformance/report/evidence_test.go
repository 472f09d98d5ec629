package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"eventsvc/conformance/selection"
	"eventsvc/internal/version"
)

// exchangeText is a masked exchange as a Failure holds it.
func exchangeText(method, path string, status string) string {
	return "request:\n    " + method + " http://target.example" + path + "\nresponse:\n    HTTP/1.1 " + status + "\n"
}

// TestEveryReportMarksTheFailingExchange: a failure about an exchange
// shows it open and marked as the failing one in conformance.html, names
// it in conformance.json and marks it in the console's list; a failure
// about none of its exchanges marks none, and shows the last open.
func TestEveryReportMarksTheFailingExchange(t *testing.T) {
	rep := versioned(t, version.Info{Version: "v0.0.0-test", Revision: "0123456789abcdef0123456789abcdef01234567", Date: "2026-11-24T10:00:00Z"})
	about := rep.Scenarios[0]
	about.Verdict = Failed
	about.Failure = &Failure{Step: "Then the answer offers the link \"update-event\"", Line: 4, Message: "no update-event",
		Exchange:  exchangeText("GET", "/api/events/7", "200 OK"),
		Exchanges: []string{exchangeText("POST", "/api/events", "201 Created"), exchangeText("GET", "/api/events/7", "200 OK")}, FailingExchange: 2}
	none := &ScenarioResult{Planned: &selection.Planned{Feature: "Tokens", File: "tokens.feature", Line: 9, Name: "Another check",
		Rules: []string{"TOK-5"}, Tags: []string{"@spec", "@TOK-5"}, Run: true}, Verdict: Failed, Attempts: 1,
		Failure: &Failure{Step: "Then the pages differ", Line: 10, Message: "the pages are the same",
			Exchanges: []string{exchangeText("GET", "/api/events?page=0", "200 OK"), exchangeText("GET", "/api/events?page=1", "200 OK")}}}
	rep.Scenarios = append(rep.Scenarios, none)
	rep.Outcome = OutcomeFailed
	w := writeReports(t, rep)
	page := w.read(HTMLReport)
	cards := strings.Split(string(page), `<section class="failure`)[1:]
	if len(cards) != 2 {
		t.Fatalf("conformance.html shows %d failures, want 2", len(cards))
	}
	summary := regexp.MustCompile(`<details( open)?><summary>exchange (\d) of 2([^<]*)</summary><pre>request:\n    (\S+ \S+)`)
	for i, want := range [][]string{
		{"", "1", "", "POST http://target.example/api/events"},
		{" open", "2", ": the failing exchange", "GET http://target.example/api/events/7"},
		{"", "1", "", "GET http://target.example/api/events?page=0"},
		{" open", "2", "", "GET http://target.example/api/events?page=1"},
	} {
		got := summary.FindAllStringSubmatch(cards[i/2], -1)
		if len(got) != 2 || !slices.Equal(got[i%2][1:], want) {
			t.Errorf("conformance.html, failure %d, exchange %d: %q, want %q", i/2+1, i%2+1, got, want)
		}
	}

	b := w.read(JSONReport)
	checkSchema(t, b)
	var doc Document
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if f := doc.Scenarios[0].Failure; f == nil || f.FailingExchange != 2 {
		t.Errorf("conformance.json: the first failure names exchange %+v as the failing one, want 2", f)
	}
	if f := doc.Scenarios[1].Failure; f == nil || f.FailingExchange != 0 || strings.Contains(string(b), `"failingExchange": 0`) {
		t.Errorf("conformance.json names a failing exchange of a failure about none: %+v", f)
	}

	var console bytes.Buffer
	NewConsole(&console, FormatCompact, false).Summary(rep)
	out := console.String()
	if !strings.Contains(out, "2. GET http://target.example/api/events/7 → 200 OK  (the failing exchange)") || strings.Count(out, "(the failing exchange)") != 1 {
		t.Errorf("the console does not mark the failing exchange, once:\n%s", out)
	}
}
