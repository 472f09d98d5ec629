package explore

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"eventsvc/conformance/report"
	"eventsvc/conformance/repro"
	"eventsvc/conformance/selection"
	"eventsvc/docs"
)

// File is the place explored sequences are reported at: "explore:7" is
// sequence 7, as "reading.feature:20" is a scenario.
const File = report.SequenceFile

// result reports sequence s as the scenario runner reports a scenario: its
// actions as steps, the rules it checked, and its finding as a failure
// with its exchanges and reproduction. original is how many actions it
// ran before it was shrunk.
func (r *runner) result(s *sequence, original int, took time.Duration) *report.ScenarioResult {
	// A sequence counts for the rules it checked; a failing one for the
	// rule it broke alone: the checks before the failure passed, but the
	// sequence is the finding's.
	var rules []string
	for rule := range s.checks {
		rules = append(rules, rule)
	}
	if s.found != nil {
		rules = nil
		if s.found.rule != "" {
			rules = []string{s.found.rule}
		}
	}
	sortRules(rules)
	name := fmt.Sprintf("Sequence %d: %d action%s", s.n, len(s.done), map[bool]string{true: "", false: "s"}[len(s.done) == 1])
	if s.found != nil && original > len(s.done) {
		name += fmt.Sprintf(", shrunk from %d", original)
	}
	if s.pass {
		name += ", the catalogue's first variants"
	}
	p := &selection.Planned{File: File, Line: s.n, Feature: "Exploration", Name: name, Rules: rules, Run: true}
	for _, rule := range rules {
		p.Tags = append(p.Tags, "@"+rule)
	}
	res := &report.ScenarioResult{Planned: p, Verdict: report.Passed, Attempts: 1, Duration: took}
	for i, d := range s.done {
		step := selection.PlannedStep{Keyword: "*", Text: d.text(), Line: i + 1}
		p.Steps = append(p.Steps, step)
		status := "passed"
		if s.found != nil && i == s.foundAt {
			status = "failed"
		}
		sr := report.StepResult{PlannedStep: step, Status: status}
		if status == "failed" {
			sr.Error = s.found.message
		}
		res.Steps = append(res.Steps, sr)
	}
	switch {
	case s.found != nil:
		res.Verdict = report.Failed
		f := s.found
		fail := &report.Failure{Step: "* " + s.done[s.foundAt].text(), Line: s.foundAt + 1, Message: f.message, Required: true, ServerError: f.serverError, AnswerCut: f.cut}
		if f.rule != "" {
			fail.Rules = []string{f.rule}
		}
		// The evidence ends with the exchange the finding is about: those
		// sent after it, to tell which rule is broken, are left out.
		log, failing := s.log, f.log >= 0 && f.log < len(s.log)
		if failing {
			fail.Exchange = s.log[f.log].Transcript
			log = s.log[:f.log+1]
		}
		for _, x := range log {
			fail.Exchanges = append(fail.Exchanges, x.Transcript)
		}
		if failing {
			fail.FailingExchange = len(fail.Exchanges)
		}
		fail.Script = r.script(s, log, failing)
		res.Failure = fail
		actions := make([]Action, len(s.done))
		for i, d := range s.done {
			actions[i] = d.action
		}
		r.mu.Lock()
		r.replays[s.n] = actions
		r.mu.Unlock()
	case s.dead != nil:
		res.Verdict, res.Reason, res.Detail = report.NotRun, selection.ReasonDeadLink, r.redactor.String(s.dead.Error())
	case s.lost != nil:
		res.Verdict, res.Reason, res.Detail = report.NotRun, selection.ReasonUnreachable, s.lost.Error()
		if r.watch.Throttled() != nil {
			res.Reason, res.Detail = selection.ReasonThrottle, r.watch.Throttled().Error()
		}
	}
	return res
}

// script is the curl script that replays log, s's requests up to its
// finding; lastFails says that the last of them is the one the finding is
// about.
func (r *runner) script(s *sequence, log []repro.Exchange, lastFails bool) string {
	c := r.target.Credentials
	return repro.Script{
		Title:     fmt.Sprintf("exploration sequence %d (seed %d)", s.n, r.o.Seed),
		LastFails: lastFails, Redactor: r.redactor,
		Base: r.base, Vars: r.scriptVars(), ClientID: c.ClientID, ClientSecret: c.ClientSecret, BasicAsIs: c.BasicAsIs,
		Shared: []repro.Shared{
			{Token: r.pool[AsUser].access, Name: "ACCESS_USER", UserVar: "CONFORMANCE_USERNAME", PassVar: "CONFORMANCE_PASSWORD", What: "user's"},
			{Token: r.pool[AsUser].refresh, Name: "REFRESH_USER", UserVar: "CONFORMANCE_USERNAME", PassVar: "CONFORMANCE_PASSWORD", What: "user's refresh", Field: "refresh_token"},
			{Token: r.pool[AsOther].access, Name: "ACCESS_OTHER", UserVar: "CONFORMANCE_OTHER_USERNAME", PassVar: "CONFORMANCE_OTHER_PASSWORD", What: "other user's"},
		},
		Derived: r.scriptDerived(),
		Log:     log,
	}.String()
}

// ruleResults gives every rule of the catalogue its verdict from the
// sequences, with the run's checks of it; a rule no sequence checked is
// not explored.
func (r *runner) ruleResults(results []*report.ScenarioResult) []*report.RuleResult {
	catalogue, err := docs.RuleCatalogue()
	if err != nil {
		return nil
	}
	rules := report.RuleResults(catalogue, results)
	for _, rule := range rules {
		rule.Checks = r.checks[rule.ID]
		if !rule.Selected {
			rule.Reasons = []string{selection.ReasonNotExplored}
		}
	}
	return rules
}

// sortRules sorts rule ids as the catalogue numbers them: by section,
// then by number.
func sortRules(ids []string) {
	sort.Slice(ids, func(i, j int) bool {
		a, na, _ := strings.Cut(ids[i], "-")
		b, nb, _ := strings.Cut(ids[j], "-")
		if a != b {
			return a < b
		}
		return len(na) < len(nb) || len(na) == len(nb) && na < nb
	})
}

// sortByLine puts results in the order of their sequences.
func sortByLine(results []*report.ScenarioResult) {
	sort.Slice(results, func(i, j int) bool { return results[i].Line < results[j].Line })
}

// text is the action as a step of its sequence reads: a variant with what
// it changed.
func (d done) text() string {
	if d.what != "" {
		return d.action.String() + " (" + d.what + ")"
	}
	return d.action.String()
}
