package report

import (
	"strings"
	"testing"

	"eventsvc/conformance/selection"
)

func TestPrettyExchangeLaysOutJSONBodies(t *testing.T) {
	in := "request:\n    GET /api/events HTTP/1.1\n    Accept: */*\n\nresponse:\n    HTTP/1.1 200 OK\n    Content-Type: application/json\n\n    {\"a\":1,\"b\":{\"c\":\"***\"}}\n"
	got := prettyExchange(in)
	if !strings.Contains(got, "\n      \"b\": {\n        \"c\": \"***\"\n      }") || !strings.Contains(got, "GET /api/events HTTP/1.1") {
		t.Fatalf("prettyExchange:\n%s", got)
	}
	if text := "request:\n    GET / HTTP/1.1\n\n    not json\n"; prettyExchange(text) != text {
		t.Fatalf("a body that is not JSON changed:\n%s", prettyExchange(text))
	}
}

// TestTheHeaderCountsTheScenariosThatRan: the page of a run the target
// stopped counts, at the top, the scenarios the run selected by what
// became of them: those that ran to a verdict, and those it did not run,
// with why; never the selected ones as if they had all run.
func TestTheHeaderCountsTheScenariosThatRan(t *testing.T) {
	catalogue := ruleCatalogue(t)
	sc := func(verdict, reason string, ran bool) *ScenarioResult {
		p := &selection.Planned{File: "tokens.feature", Line: 3, Name: "A user gets tokens", Rules: []string{"TOK-1"}, Run: ran || reason == "", Reason: reason}
		s := &ScenarioResult{Planned: p, Verdict: verdict}
		if ran {
			s.Attempts = 1
		}
		if verdict == Failed {
			s.Failure = &Failure{Step: "Then it fails", Message: "it failed"}
		}
		return s
	}
	scenarios := []*ScenarioResult{
		sc(Passed, "", true), sc(Passed, "", true), sc(Failed, "", true),
		sc(NotRun, selection.ReasonThrottle, true), sc(NotRun, selection.ReasonThrottle, true), sc(NotRun, selection.ReasonThrottle, true),
		sc(NotRun, selection.ReasonTarget, true),
		sc(NotRun, selection.ReasonLocal, false), sc(NotRun, selection.ReasonTags, false),
	}
	rep := &Report{Target: "https://staging.example", Outcome: OutcomeThrottled, Error: "the target answered 429", Scenarios: scenarios, Rules: RuleResults(catalogue, scenarios)}
	b, err := reportHTML(rep)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	header, _, _ := strings.Cut(page, "</header>")
	_, dd, _ := strings.Cut(header, "<dt>Scenarios</dt><dd>")
	dd, _, _ = strings.Cut(dd, "</dd>")
	if want := "7 selected: 2 passed, 1 failed, 4 not run (3 throttled, 1 target)"; !strings.Contains(dd, want) {
		t.Errorf("the header's scenarios are %q, want %q", dd, want)
	}
}
