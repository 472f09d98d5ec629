package conformance

import (
	"slices"
	"testing"

	"eventsvc/conformance/selection"
)

// TestPhasesKeepTheListWalksApartFromEveryCreation: against a deployment,
// a scenario that walks the whole event list runs neither with scenarios
// that are @writes nor with those whose steps create what they need (the
// user manages an event), since a creation during the walk shifts its
// pages; and a scenario that moves the target's clock runs alone: a
// @clock one, and a @slow one, which against a deployment with a control
// API moves its clock too (without one it is watched apart, Run).
func TestPhasesKeepTheListWalksApartFromEveryCreation(t *testing.T) {
	planned := func(file string, line int, tags []string, steps ...string) *selection.Planned {
		p := &selection.Planned{File: file, Line: line, ScenarioLine: line, Tags: tags, Run: true}
		for _, s := range steps {
			p.Steps = append(p.Steps, selection.PlannedStep{Text: s})
		}
		return p
	}
	plan := []*selection.Planned{
		planned("listing.feature", 30, []string{"@spec"}, "the event list has more than one page", "a caller walks through the event list by following its \"next\" links", "no event is listed on two pages"),
		planned("reading.feature", 12, []string{"@spec"}, "the user manages an event", "a caller reads the event"),
		planned("writing.feature", 5, []string{"@spec", "@writes"}, "the user creates an event through the \"create-new-event\" link"),
		planned("api_root.feature", 5, []string{"@spec"}, "a caller reads the API root"),
		planned("token_validity.feature", 11, []string{"@spec", "@local", "@clock"}, "the user has a token", "599 seconds pass"),
		planned("token_validity.feature", 66, []string{"@spec", "@slow"}, "the user has a token", "the lifetime announced with the access token has passed"),
	}
	phaseOf := map[string]int{}
	for i, ph := range phases(plan, 8, true) {
		for _, p := range ph.paths {
			phaseOf[p] = i
		}
	}
	walk := phaseOf["listing.feature:30"]
	for _, place := range []string{"reading.feature:12", "writing.feature:5"} {
		if phaseOf[place] == walk {
			t.Errorf("%s runs in the same phase as the walk through the list: %v", place, phaseOf)
		}
	}
	if phaseOf["api_root.feature:5"] != walk {
		t.Errorf("a scenario that only reads should run with the walk: %v", phaseOf)
	}
	if len(phaseOf) != 6 {
		t.Fatalf("want 6 scenarios placed, got %v", phaseOf)
	}
	all := phases(plan, 8, true)
	if last := all[len(all)-1]; last.concurrency != 1 || !slices.Contains(last.paths, "token_validity.feature:11") || !slices.Contains(last.paths, "token_validity.feature:66") {
		t.Errorf("a scenario that moves the target's clock should run alone, after the others: %+v", all)
	}
}

// TestTheLongestScenarioStartsFirst: within a phase, the outline whose
// longest example takes longest starts first, however many examples
// another has (they run at once): a scenario that walks the event list
// three times before an outline of six short examples.
func TestTheLongestScenarioStartsFirst(t *testing.T) {
	var plan []*selection.Planned
	for i := range 6 {
		p := &selection.Planned{File: "spellings.feature", Line: 30 + i, ScenarioLine: 20, Tags: []string{"@spec", "@writes"}, Run: true}
		for range 12 {
			p.Steps = append(p.Steps, selection.PlannedStep{Text: "a caller sends DELETE to the event's address written with a trailing slash"})
		}
		plan = append(plan, p)
	}
	walks := &selection.Planned{File: "listing.feature", Line: 40, ScenarioLine: 40, Tags: []string{"@spec"}, Run: true}
	for _, text := range []string{"the event list has more than one page",
		"a caller walks through the event list by following its \"next\" links", "every page offers the caller exactly what they may do",
		"the user walks through the event list by following its \"next\" links", "every page offers the caller exactly what they may do"} {
		walks.Steps = append(walks.Steps, selection.PlannedStep{Text: text})
	}
	plan = append(plan, walks)
	all := phases(plan, 8, false)
	if len(all) != 1 || len(all[0].paths) != 2 || all[0].paths[0] != "listing.feature:40" {
		t.Errorf("phases = %+v, want the walks through the list first", all)
	}
}

// TestAScenarioThatAsksForTokensStartsBeforeOneOfAsManyReads: a step
// that asks for a token weighs three reads (the target hashes a password
// and a client secret to answer it), and one that asks for a refresh
// five (a password grant first), so that the outline of refused token
// requests, two steps an example, does not start last and hold up the
// end of its phase behind scenarios of four reads.
func TestAScenarioThatAsksForTokensStartsBeforeOneOfAsManyReads(t *testing.T) {
	scenario := func(file string, line int, steps ...string) *selection.Planned {
		p := &selection.Planned{File: file, Line: line, ScenarioLine: line, Tags: []string{"@spec"}, Run: true}
		for _, s := range steps {
			p.Steps = append(p.Steps, selection.PlannedStep{Text: s})
		}
		return p
	}
	reads := scenario("reading.feature", 7, "the user reads the API root", "the user reads the event list", "the user reads the first event", "the answer is a HAL resource")
	refusal := scenario("token_refusals.feature", 10, "the client asks for a refresh of the refresh token with a wrong client secret", "no token is issued")
	grant := scenario("tokens.feature", 13, "the client asks for the user's token", "a token is issued")
	got := phases([]*selection.Planned{reads, grant, refusal}, 8, false)[0].paths
	want := []string{"token_refusals.feature:10", "reading.feature:7", "tokens.feature:13"}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}
