package report

import (
	"slices"
	"testing"

	"eventsvc/conformance/selection"
	"eventsvc/docs"
)

func TestRuleVerdictsCountOnlyTheScenariosThatCheckTheRule(t *testing.T) {
	catalogue := ruleCatalogue(t)
	sc := func(verdict, reason string, run bool, rules ...string) *ScenarioResult {
		return &ScenarioResult{Planned: &selection.Planned{Rules: rules, Run: run, Reason: reason}, Verdict: verdict}
	}
	results := RuleResults(catalogue, []*ScenarioResult{
		sc(Failed, "", true, "AUTH-6"),
		sc(Passed, "", true, "AUTH-6", "API-1"),
		sc(Passed, "", true, "TOK-11"),
		sc(NotRun, selection.ReasonTarget, true, "API-5"),
		sc(NotRun, selection.ReasonLocal, false, "ACC-2"),
		sc(NotRun, selection.ReasonRef, false, "ACC-2"),
		sc(Flaky, "", true, "TOK-3"),
		sc(Passed, "", true, "TOK-3"),
		sc(ExpectedFailure, "", true, "SVC-1"),
		sc(NotRun, selection.ReasonTags, false, "SVC-2"),
	})
	got := map[string]*RuleResult{}
	for _, r := range results {
		got[r.ID] = r
	}
	want := map[string]string{"AUTH-6": Failed, "API-1": Passed, "TOK-11": Passed, "API-5": NotRun, "ACC-2": NotRun, "TOK-3": Flaky, "SVC-1": ExpectedFailure, "LIM-2": NotRun}
	for id, verdict := range want {
		if got[id].Verdict != verdict {
			t.Errorf("%s: %q, want %q", id, got[id].Verdict, verdict)
		}
	}
	if !slices.Equal(got["ACC-2"].Reasons, []string{selection.ReasonLocal, selection.ReasonRef}) || !got["ACC-2"].Selected {
		t.Errorf("ACC-2, selected but not runnable: reasons %v, selected %v", got["ACC-2"].Reasons, got["ACC-2"].Selected)
	}
	if got["SVC-2"].Selected || got["SVC-2"].Verdict != NotRun {
		t.Errorf("SVC-2, which the tags leave out: selected %v, verdict %q", got["SVC-2"].Selected, got["SVC-2"].Verdict)
	}
	if !got["API-5"].Selected || !slices.Equal(got["API-5"].Reasons, []string{selection.ReasonTarget}) {
		t.Errorf("API-5, whose scenario a step skipped: selected %v, reasons %v", got["API-5"].Selected, got["API-5"].Reasons)
	}
	if len(results) != len(catalogue.Rules()) {
		t.Errorf("%d verdicts for %d rules", len(results), len(catalogue.Rules()))
	}
}

// ruleCatalogue is the catalogue of the rules, docs/rules.md read.
func ruleCatalogue(t *testing.T) *docs.Catalogue {
	t.Helper()
	catalogue, err := docs.RuleCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	return catalogue
}
