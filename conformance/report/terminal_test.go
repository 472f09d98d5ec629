package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"eventsvc/conformance/selection"
)

func TestVisibleWritesOutWhatATerminalWouldActOn(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text, é € 👍", "plain text, é € 👍"},
		{"two\nlines\tand a tab", "two\nlines\tand a tab"},
		{"\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"\x1b[2K\rall rules passed", `\x1b[2K\x0dall rules passed`},
		{"nul \x00 del \x7f", `nul \x00 del \x7f`},
		{"c1 \u009b31m \u0085", `c1 \u009b31m \u0085`},
		{"bad utf-8 \x9b \xff\xfe", `bad utf-8 \x9b \xff\xfe`},
		{"bidi \u202aa\u202bb\u202cc\u202dd\u202ee \u2066f\u2067g\u2068h\u2069", `bidi \u202aa\u202bb\u202cc\u202dd\u202ee \u2066f\u2067g\u2068h\u2069`},
		{`a backslash \x1b stays`, `a backslash \x1b stays`},
	} {
		if got := Visible(c.in); got != c.want {
			t.Errorf("Visible(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// hostile is what a hostile target may put in an answer: a title change,
// a line erased and another printed in its place, an 8-bit CSI (as a
// byte, and as a character), and a right-to-left override.
const hostile = "\x1b]0;pwned\x07 \x1b[2K\rall rules passed \x9b31m \u009b32m \u202eevil"

// colour is a colour's escape sequence (SGR), which the console writes.
var colour = regexp.MustCompile("\x1b\\[[0-9;]*m")

// rawControl finds what a terminal would act on.
var rawControl = regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]")

// terminalSafe fails t when text holds a control character, an escape
// sequence other than a colour, invalid UTF-8, or a bidi override.
func terminalSafe(t *testing.T, where, text string) {
	t.Helper()
	if !utf8.ValidString(text) {
		t.Errorf("%s is not valid UTF-8: %q", where, text)
	}
	if m := rawControl.FindAllString(colour.ReplaceAllString(text, ""), -1); m != nil {
		t.Errorf("%s holds %q:\n%s", where, m, text)
	}
}

// hostileReport is a report of a run against a target that sent hostile:
// a failure (its message, its exchanges) and a scenario not run (the
// reason a step gave).
func hostileReport(t *testing.T) *Report {
	t.Helper()
	catalogue := ruleCatalogue(t)
	planned := func(name string, line int) *selection.Planned {
		return &selection.Planned{Feature: "Hostile answers", Name: name, File: "hostile.feature", Line: line, Rules: []string{"API-1"}, Tags: []string{"@spec", "@API-1"}, Run: true,
			Steps: []selection.PlannedStep{{Keyword: "Then", Text: "the answer has status 200", Line: line + 1}}}
	}
	failed := &ScenarioResult{Planned: planned("A failure", 3), Verdict: Failed, Attempts: 1, Duration: time.Second,
		Steps: []StepResult{{PlannedStep: selection.PlannedStep{Keyword: "Then", Text: "the answer has status 200", Line: 4}, Status: "failed", Error: "the answer said " + hostile}},
		Failure: &Failure{Step: "Then the answer has status 200", Line: 4, Message: "message " + hostile, Exchange: "response:\n    X-Note: " + hostile + "\n\n    " + hostile,
			Exchanges: []string{"request:\n    GET /api?" + hostile + "\nresponse:\n    HTTP/1.1 400 " + hostile, "request:\n    GET /api\n"}}}
	skipped := &ScenarioResult{Planned: planned("A check the target cannot show", 9), Verdict: NotRun, Detail: "the target said " + hostile}
	skipped.Reason = selection.ReasonTarget
	scenarios := []*ScenarioResult{failed, skipped}
	return &Report{Target: "http://127.0.0.1:8080", Outcome: OutcomeFailed, Started: time.Now(), Duration: time.Second,
		Scenarios: scenarios, Rules: RuleResults(catalogue, scenarios)}
}

func TestConsolePrintsWhatATargetSentVisibly(t *testing.T) {
	for _, format := range []string{FormatCompact, FormatPretty} {
		for _, color := range []bool{false, true} {
			var out bytes.Buffer
			c := NewConsole(&out, format, color)
			rep := hostileReport(t)
			for _, s := range rep.Scenarios {
				c.ScenarioEnded(s)
			}
			c.Summary(rep)
			rep.Outcome, rep.Error = OutcomeUnreachable, "GET /api: "+hostile
			c.Summary(rep)
			text := out.String()
			terminalSafe(t, format+" console", text)
			if !strings.Contains(text, `\x1b]0;pwned\x07 \x1b[2K\x0dall rules passed \x9b31m \u009b32m \u202eevil`) {
				t.Errorf("the %s console does not show what the target sent:\n%s", format, text)
			}
			if color && !strings.Contains(text, "\x1b[31m") {
				t.Errorf("the %s console lost its colours:\n%s", format, text)
			}
		}
	}
}

func TestReportFilesHoldWhatATargetSentEscaped(t *testing.T) {
	rep := hostileReport(t)
	junit, err := junitXML(rep)
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(junit))
	for {
		if _, err := d.Token(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("junit.xml is not XML: %v\n%s", err, junit)
		}
	}
	terminalSafe(t, "junit.xml", string(junit))
	if !strings.Contains(string(junit), `\x1b]0;pwned\x07`) {
		t.Errorf("junit.xml does not show what the target sent:\n%s", junit)
	}
	for name, render := range map[string]func(*Report) ([]byte, error){"conformance.json": reportJSON, "cucumber.json": cucumberJSON} {
		b, err := render(rep)
		if err != nil {
			t.Fatal(err)
		}
		terminalSafe(t, name, string(b))
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.Contains(string(b), `\u001b]0;pwned\u0007`) || !strings.Contains(string(b), `\u009b32m \u202eevil`) {
			t.Errorf("%s lost what the target sent:\n%s", name, b)
		}
	}
}
