package report

import (
	"fmt"
	"strings"

	"eventsvc/conformance/deadlink"
	"eventsvc/conformance/selection"
)

// DeadLinkFile is the file of the places of the run's findings of dead
// links: "link:1" is the first.
const DeadLinkFile = "link"

// DeadLinks reports the dead links of a run (package deadlink) as
// findings of API-10, one for each cause: the first link of a cause told
// in full, with its likely cause and the setting that fixes it, the
// others of that cause named in it. mask masks what the reports show of
// them. The scenarios and sequences that met a dead link are not
// checked, with that reason (selection.ReasonDeadLink), and point here.
func DeadLinks(links []*deadlink.Link, mask func(string) string) []*ScenarioResult {
	var order []string
	byCause := map[string][]*deadlink.Link{}
	for _, l := range links {
		if _, ok := byCause[l.Cause]; !ok {
			order = append(order, l.Cause)
		}
		byCause[l.Cause] = append(byCause[l.Cause], l)
	}
	var out []*ScenarioResult
	for i, cause := range order {
		first := byCause[cause][0]
		var more []*deadlink.Link // offered by links too
		derived := 0              // addresses the run spelt from them
		for _, l := range byCause[cause][1:] {
			if l.Rel == "" {
				derived++
			} else {
				more = append(more, l)
			}
		}
		msg := mask(first.Message())
		if len(more) > 0 {
			var others []string
			for _, l := range more {
				if len(others) == 5 {
					others = append(others, fmt.Sprintf("and %d more", len(more)-5))
					break
				}
				others = append(others, mask(l.Address))
			}
			msg += fmt.Sprintf(". %d more link%s lead%s there the same way: %s", len(more), plural(len(more)), map[bool]string{true: "s", false: ""}[len(more) == 1], strings.Join(others, ", "))
		}
		if derived > 0 {
			msg += fmt.Sprintf(" (and %d address%s the run spelt from them, as it spells every address it checks)", derived, map[bool]string{true: "", false: "es"}[derived == 1])
		}
		where := "an address the target's links offer"
		if first.Rel != "" {
			where = fmt.Sprintf("the %q link of %s", first.Rel, first.From)
		}
		name := fmt.Sprintf("API-10: %s leads nowhere: %s", mask(where), firstClause(first.Cause))
		p := &selection.Planned{File: DeadLinkFile, Line: i + 1, Feature: "Links", Name: name, Rules: []string{"API-10"}, Tags: []string{"@API-10"}, Run: true}
		text := fmt.Sprintf("%s %s, as the run followed it", first.Method, mask(first.Address))
		p.Steps = []selection.PlannedStep{{Keyword: "*", Text: text, Line: 1}}
		transcript := mask(first.Transcript())
		fail := &Failure{Step: "* " + text, Line: 1, Message: msg, Exchange: transcript, Rules: []string{"API-10"}, Required: true,
			Exchanges: []string{transcript}, FailingExchange: 1}
		out = append(out, &ScenarioResult{Planned: p, Verdict: Failed, Attempts: 1, Failure: fail,
			Steps: []StepResult{{PlannedStep: p.Steps[0], Status: "failed", Error: msg, Rules: []string{"API-10"}, Required: true}}})
	}
	return out
}

// firstClause is the start of a cause, up to its first colon.
func firstClause(s string) string {
	c, _, _ := strings.Cut(s, ":")
	return c
}
