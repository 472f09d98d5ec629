package conformance

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"eventsvc/conformance/explore"
	"eventsvc/conformance/origin"
	"eventsvc/conformance/origin/origintest"
	"eventsvc/conformance/report"
	"eventsvc/conformance/report/reporttest"
	"eventsvc/steps"
)

// TestAnInProcessRunExploresOneServerAfterItsScenarios: a run of the
// in-process reference server given an Explorer runs its scenarios, each
// against a server of its own, then explores one server whose clock
// follows the machine's (as conformance explore does: with a clock that
// stands still, its budget of token requests would never refill), and
// checks the reference choices too; it passes, with the sequences
// reported after the scenarios and the run's Selection naming the seed.
// Without an Explorer, as go test runs the suite, it explores nothing.
func TestAnInProcessRunExploresOneServerAfterItsScenarios(t *testing.T) {
	for _, explores := range []bool{true, false} {
		o, err := FromEnv(func(string) (string, bool) { return "", false })
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		o.Tags, o.DefaultTags, o.Output, o.ReportDir = "@TOK-2", false, &out, t.TempDir()
		if explores {
			o.Explore = explore.Explorer{Options: explore.Options{Seed: 5, Output: &out}}
		}
		rep, err := Run(o)
		if err != nil {
			t.Fatalf("explores %v: Run = %v\n%s", explores, err, out.String())
		}
		scenarios, sequences := 0, 0
		for _, s := range rep.Scenarios {
			switch {
			case s.Sequence():
				sequences++
			case sequences > 0:
				t.Errorf("explores %v: the scenario %s comes after a sequence", explores, s.Place())
			default:
				scenarios++
			}
		}
		if scenarios == 0 || (sequences > 0) != explores {
			t.Fatalf("explores %v: %d scenarios and %d sequences\n%s", explores, scenarios, sequences, out.String())
		}
		reporttest.Check(t, o.ReportDir)
		if !explores {
			continue
		}
		if !strings.Contains(out.String(), "Exploring in-process with seed 5") || !strings.Contains(rep.Selection, "seed 5") {
			t.Errorf("the run does not say it explores with seed 5 (selection %q):\n%s", rep.Selection, out.String())
		}
		if r := ruleNamed(rep, "API-11"); r == nil || r.Checks == 0 || r.Verdict != report.Passed {
			t.Errorf("the in-process exploration did not check the answers against the OpenAPI document (API-11): %+v", r)
		}
	}
}

// TestTheForeignOriginsOfARunThatExploresAreBothRunners: against a target
// whose events live at another origin, a run that explores after its
// scenarios reports every request both sent there, as the other listener
// counted them, none of them with credentials.
func TestTheForeignOriginsOfARunThatExploresAreBothRunners(t *testing.T) {
	x := origintest.Start(t, startReference(t, steps.ServerConfig{}, nil), "/api/events/")
	tgt := remote(x.URL)
	tgt.Timeout = 5 * time.Second
	var out bytes.Buffer
	rep, err := Run(Options{Target: tgt, Tags: "@spec and @writes and @API-6", Output: &out,
		Explore: explore.Explorer{Options: explore.Options{Seed: 2, MaxActions: 60, Output: &out}}})
	if rep == nil {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	requests, credentials := x.Seen()
	if len(credentials) > 0 {
		t.Errorf("the other origin was sent %d credentials in %d requests", len(credentials), requests)
	}
	explored := slices.ContainsFunc(rep.Scenarios, (*report.ScenarioResult).Sequence)
	i := slices.IndexFunc(rep.Foreign, func(f origin.Foreign) bool { return f.Origin == x.Other })
	if !explored || i < 0 || rep.Foreign[i].Requests != requests {
		t.Errorf("explored: %v; the report says %+v, want %s with the %d requests it saw\n%s", explored, rep.Foreign, x.Other, requests, out.String())
	}
}
