package steps

import (
	"eventsvc/conformance/audit"
	"eventsvc/conformance/hal"
)

// Following links (spec API-10): every href of an answer resolves, against
// the answer's address, to an address the client can follow, and leads
// where its relation says. The run's audit follows every link of every
// answer once and checks where it leads ("self" to the resource itself,
// "next" and "prev" to the adjacent page, "profile" to documentation that
// is served; package audit): these steps say which answers a scenario
// looks at.

func (s *scenario) registerFollowSteps(sc stepRegistry) {
	sc.Step(`^every link of the answer leads where its relation says$`, func() error { return s.onTheAnswer(s.linksLead) })
	sc.Step(`^every link of every page leads where its relation says$`, func() error { return s.eachWalked(s.linksLead) })
	sc.Step(`^every event it lists links to itself$`, s.listedEventsLeadToThemselves)
	sc.Step(`^the first and the last event it lists, and those the scenario made, link to themselves$`, s.listedEventsLeadToThemselves)
}

// actions are the relations a client follows with a method other than GET
// (spec: Relation names): to create an event, to update one.
var actions = []string{"create-new-event", "update-event"}

// linksLead checks, through the audit, that every link of x leads where
// its relation says.
func (s *scenario) linksLead(x *exchange) error {
	return s.audited(x, "where its links lead", audit.LinksLead)
}

// listedEventsLeadToThemselves checks that every event the answer lists
// has a "self" link, and, through the audit, that each leads to that
// event.
func (s *scenario) listedEventsLeadToThemselves() error {
	items, x, err := s.answerItems()
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return s.failf(x, "the list holds no events")
	}
	for i, item := range items {
		if hal.Links(item)["self"] == "" {
			return unmet(s.failf(x, "listed event %d has no \"self\" link", i+1), audit.ListedEventLinksItself)
		}
	}
	return s.linksLead(x)
}
