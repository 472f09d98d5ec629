package report

import (
	"fmt"
	"slices"
	"strings"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/selection"
)

// maxAuditResults bounds the findings of one rule reported each in full;
// the others are counted in the last one's name.
const maxAuditResults = 10

// Audited reports what the audit a found that no step or action took, and
// that told does not say already (the failure of the finding's scenario
// that blames its rule, or the finding of a dead link): each finding as a failed result of its own (of
// each rule, the first maxAuditResults), the place whose exchange broke it as
// its step, with its exchanges and the reproduction script makes of them.
// checks is how many answers it checked against each rule. plan places
// the findings' scenarios and steps.
func Audited(a *audit.Audit, plan []*selection.Planned, script audit.ScriptFunc, told func(*audit.Finding) bool) (results []*ScenarioResult, checks map[string]int) {
	checks = a.Checks()
	failed := map[string]int{}
	var last = map[string]*ScenarioResult{}
	for _, f := range a.Unclaimed() {
		if told != nil && told(f) {
			continue
		}
		failed[f.Rule]++
		if failed[f.Rule] > maxAuditResults {
			last[f.Rule].Name = fmt.Sprintf("%s: %s (and %d more like it)", f.Rule, firstLine(last[f.Rule].Failure.Message), failed[f.Rule]-maxAuditResults)
			continue
		}
		r := auditResult(f, len(results)+1, plan, script)
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

// auditResult is one finding as a failed result, numbered n.
func auditResult(f *audit.Finding, n int, plan []*selection.Planned, script audit.ScriptFunc) *ScenarioResult {
	where, step := placeOf(f.Place, plan)
	name := fmt.Sprintf("%s: %s", f.Rule, firstLine(f.Message))
	p := &selection.Planned{File: audit.File, Line: n, Feature: "Audit", Name: name, Rules: []string{f.Rule}, Tags: []string{"@" + f.Rule}, Run: true}
	text := fmt.Sprintf("an answer to %s, step %q", where, step)
	if len(f.Followed) > 0 {
		text += fmt.Sprintf(", followed by the audit through %d link%s", len(f.Followed), map[bool]string{true: "", false: "s"}[len(f.Followed) == 1])
	}
	p.Steps = []selection.PlannedStep{{Keyword: "*", Text: text, Line: 1}}
	log := f.Log()
	fail := &Failure{Step: "* " + text, Line: 1, Message: f.Message, Exchange: f.Transcript, Rules: []string{f.Rule}, Required: true, Cause: f.Cause}
	for _, x := range log {
		fail.Exchanges = append(fail.Exchanges, x.Transcript)
	}
	fail.FailingExchange = len(fail.Exchanges)
	fail.Script = script(fmt.Sprintf("%s of the audit (%s)", f.Rule, where), log, f.Holders())
	return &ScenarioResult{Planned: p, Verdict: Failed, Attempts: 1, Failure: fail,
		Steps: []StepResult{{PlannedStep: p.Steps[0], Status: "failed", Error: f.Message, Rules: []string{f.Rule}, Required: true}}}
}

// placeOf names the scenario and step of a place for a finding: the
// scenario by name and file:line, as the reports show it.
func placeOf(pl audit.Place, plan []*selection.Planned) (where, step string) {
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

// AddChecks adds to every rule of rules the audit's checks of it
// (checks, by rule), and gives the verdict passed to a rule nothing else
// ran that the audit checked and found nothing wrong with: a failure of
// the audit is a result of its own that blames the rule.
func AddChecks(rules []*RuleResult, checks map[string]int) {
	for _, r := range rules {
		r.Checks += checks[r.ID]
		if r.Verdict == NotRun && r.Checks > 0 {
			r.Verdict, r.Reasons = Passed, nil
		}
	}
}
