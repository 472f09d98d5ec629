package conformance

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/bound"
	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/internal/redact"
	"eventsvc/steps"
)

// AuditFile is the place audit findings are reported at: "audit:3" is the
// third, as "reading.feature:24" is a scenario.
const AuditFile = "audit"

// maxAuditResults bounds the findings of one rule reported each in full;
// the others are counted in the last one's name.
const maxAuditResults = 10

// newAudit returns the audit of a run against t: every exchange of every
// scenario checked against the rules that govern it, every link followed
// once, through transport.
func newAudit(t steps.Target, transport http.RoundTripper, redactor *redact.Redactor) *audit.Audit {
	c := t.Credentials
	return audit.New(audit.Options{
		ClientID:  c.ClientID,
		Accounts:  []string{c.Username, c.OtherUsername},
		Redactor:  redactor,
		Transport: bound.Limits{MaxAnswer: t.MaxAnswer, Timeout: t.Timeout}.Transport(transport),
		Follow:    true,
	})
}

// ownConnections is a transport with network's settings (TLS, proxy)
// and connections of its own, so that the audit can close those it left
// idle to an in-process server about to stop without closing the
// scenarios'. A transport it cannot copy is used as it is.
func ownConnections(network http.RoundTripper) http.RoundTripper {
	switch t := network.(type) {
	case nil:
		return http.DefaultTransport.(*http.Transport).Clone()
	case *http.Transport:
		return t.Clone()
	}
	return network
}

// AuditResults reports what the audit of a run found that no step took:
// each finding as a failed result of its own (of each rule, the first
// maxAuditResults), the place whose exchange broke it as its step; and a
// passing result for the rules the audit checked, with how many answers
// each. plan places the findings' scenarios and steps.
func AuditResults(a *audit.Audit, plan []*selection.Planned, t steps.Target) (results []*report.ScenarioResult, checks map[string]int) {
	checks = a.Checks()
	failed := map[string]int{}
	var last = map[string]*report.ScenarioResult{}
	for _, f := range a.Unclaimed() {
		failed[f.Rule]++
		if failed[f.Rule] > maxAuditResults {
			last[f.Rule].Name = fmt.Sprintf("%s: %s (and %d more like it)", f.Rule, firstLine(last[f.Rule].Failure.Message), failed[f.Rule]-maxAuditResults)
			continue
		}
		r := auditResult(f, len(results)+1, plan, t)
		if prev, ok := last[f.Rule]; ok {
			r.Failure.SameAs = prev.Failure.SameAs
			if r.Failure.SameAs == "" {
				r.Failure.SameAs = prev.Place()
			}
		}
		last[f.Rule] = r
		results = append(results, r)
	}
	var rules []string
	for rule, n := range checks {
		if n > 0 {
			rules = append(rules, rule)
		}
	}
	if len(rules) == 0 {
		return results, checks
	}
	sortRules(rules)
	p := &selection.Planned{File: AuditFile, Line: len(results) + 1, Feature: "Audit", Run: true, Rules: rules,
		Name: "Every answer of the run checked against every rule that governs it"}
	for _, r := range rules {
		p.Tags = append(p.Tags, "@"+r)
	}
	results = append(results, &report.ScenarioResult{Planned: p, Verdict: report.Passed, Attempts: 1})
	return results, checks
}

// auditResult is one finding as a failed result, numbered n.
func auditResult(f *audit.Finding, n int, plan []*selection.Planned, t steps.Target) *report.ScenarioResult {
	where, step := placeOf(f.Place, plan)
	name := fmt.Sprintf("%s: %s", f.Rule, firstLine(f.Message))
	p := &selection.Planned{File: AuditFile, Line: n, Feature: "Audit", Name: name, Rules: []string{f.Rule}, Tags: []string{"@" + f.Rule}, Run: true}
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
	fail.Script = steps.ScriptOf(t, fmt.Sprintf("%s of the audit (%s)", f.Rule, where), log, f.Holders())
	return &report.ScenarioResult{Planned: p, Verdict: report.Failed, Attempts: 1, Failure: fail,
		Steps: []report.StepResult{{PlannedStep: p.Steps[0], Status: "failed", Error: f.Message, Rules: []string{f.Rule}, Required: true}}}
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
