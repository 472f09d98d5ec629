package audit

import (
	"fmt"
	"slices"
	"strings"

	"eventsvc/conformance/report"
	"eventsvc/conformance/repro"
	"eventsvc/conformance/selection"
)

// File is the place the audit's findings are reported at: "audit:3" is the
// third, as "reading.feature:24" is a scenario.
const File = "audit"

// maxResults bounds the findings of one rule reported each in full; the
// others are counted in the last one's name.
const maxResults = 10

// ScriptFunc makes the reproduction script of a finding's exchanges,
// titled title; holders names the account of each access token they send
// (Finding.Holders).
type ScriptFunc func(title string, log []repro.Exchange, holders map[string]string) string

// Results reports what the audit found that no step or action took, and
// that told does not say already (the failure of the finding's scenario
// that blames its rule): each finding as a failed result of its own (of
// each rule, the first maxResults), the place whose exchange broke it as
// its step, with its exchanges and the reproduction script makes of them.
// checks is how many answers it checked against each rule. plan places
// the findings' scenarios and steps.
func (a *Audit) Results(plan []*selection.Planned, script ScriptFunc, told func(Place, string) bool) (results []*report.ScenarioResult, checks map[string]int) {
	checks = a.Checks()
	failed := map[string]int{}
	var last = map[string]*report.ScenarioResult{}
	for _, f := range a.Unclaimed() {
		if told != nil && told(f.Place, f.Rule) {
			continue
		}
		failed[f.Rule]++
		if failed[f.Rule] > maxResults {
			last[f.Rule].Name = fmt.Sprintf("%s: %s (and %d more like it)", f.Rule, firstLine(last[f.Rule].Failure.Message), failed[f.Rule]-maxResults)
			continue
		}
		r := result(f, len(results)+1, plan, script)
		if prev, ok := last[f.Rule]; ok {
			r.Failure.SameAs = prev.Failure.SameAs
			if r.Failure.SameAs == "" {
				r.Failure.SameAs = prev.Place()
			}
		}
		last[f.Rule] = r
		results = append(results, r)
	}
	return results, checks
}

// result is one finding as a failed result, numbered n.
func result(f *Finding, n int, plan []*selection.Planned, script ScriptFunc) *report.ScenarioResult {
	where, step := placeOf(f.Place, plan)
	name := fmt.Sprintf("%s: %s", f.Rule, firstLine(f.Message))
	p := &selection.Planned{File: File, Line: n, Feature: "Audit", Name: name, Rules: []string{f.Rule}, Tags: []string{"@" + f.Rule}, Run: true}
	text := fmt.Sprintf("an answer to %s, step %q", where, step)
	if len(f.Followed) > 0 {
		text += fmt.Sprintf(", followed by the audit through %d link%s", len(f.Followed), map[bool]string{true: "", false: "s"}[len(f.Followed) == 1])
	}
	p.Steps = []selection.PlannedStep{{Keyword: "*", Text: text, Line: 1}}
	log := f.Log()
	fail := &report.Failure{Step: "* " + text, Line: 1, Message: f.Message, Exchange: f.Transcript, Rules: []string{f.Rule}, Required: true}
	for _, x := range log {
		fail.Exchanges = append(fail.Exchanges, x.Transcript)
	}
	fail.FailingExchange = len(fail.Exchanges)
	fail.Script = script(fmt.Sprintf("%s of the audit (%s)", f.Rule, where), log, f.Holders())
	return &report.ScenarioResult{Planned: p, Verdict: report.Failed, Attempts: 1, Failure: fail,
		Steps: []report.StepResult{{PlannedStep: p.Steps[0], Status: "failed", Error: f.Message, Rules: []string{f.Rule}, Required: true}}}
}

// placeOf names the scenario and step of a place for a finding: the
// scenario by name and file:line, as the reports show it.
func placeOf(pl Place, plan []*selection.Planned) (where, step string) {
	where = fmt.Sprintf("%q (%s)", pl.Name, pl.File)
	for _, p := range plan {
		if p.Name == pl.Name && (p.File == pl.File || strings.HasSuffix(pl.File, "/"+p.File)) {
			where = fmt.Sprintf("%q (%s)", p.Name, p.Place())
			if i := slices.IndexFunc(p.Steps, func(s selection.PlannedStep) bool { return s.Text == pl.Step }); i >= 0 {
				return where, fmt.Sprintf("%s %s (line %d)", p.Steps[i].Keyword, pl.Step, p.Steps[i].Line)
			}
			break
		}
	}
	return where, pl.Step
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// sortRules sorts rule ids as the catalogue numbers them: by section,
// then by number.
func sortRules(ids []string) {
	slices.SortFunc(ids, func(a, b string) int {
		as, an, _ := strings.Cut(a, "-")
		bs, bn, _ := strings.Cut(b, "-")
		if as != bs {
			return strings.Compare(as, bs)
		}
		if len(an) != len(bn) {
			return len(an) - len(bn)
		}
		return strings.Compare(an, bn)
	})
}
