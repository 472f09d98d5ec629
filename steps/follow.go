package steps

import (
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
	sc.Step(`^every link of the answer leads where its relation says$`, func() error {
		x, err := s.theAnswer()
		if err != nil {
			return err
		}
		return s.linksLead(x)
	})
	sc.Step(`^every link of every page leads where its relation says$`, func() error { return s.eachWalked(s.linksLead) })
	sc.Step(`^every event it lists links to itself$`, s.listedEventsLeadToThemselves)
	sc.Step(`^the first and the last event it lists, and those the scenario made, link to themselves$`, s.listedEventsLeadToThemselves)
}

// actions are the relations a client follows with a method other than GET
// (spec: Relation names): to create an event, to update one.
var actions = []string{"create-new-event", "update-event"}

// linkRules are the rules of where a link leads: API-10, API-5 for "next"
// and "prev", and, for a link that leads to an answer refused to its
// caller, the rule that lets anyone read it (SVC-6 and AUTH-5 the
// documentation, API-7 an event, API-2 the rest under /api/).
var linkRules = []string{"API-10", "API-5", "API-7", "API-2", "SVC-6", "AUTH-5"}

// linksLead checks, through the audit, that every link of x leads where
// its relation says.
func (s *scenario) linksLead(x *exchange) error {
	return s.audited(x, "where its links lead", linkRules...)
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
			return breaks(s.failf(x, "listed event %d has no \"self\" link", i+1), "API-10")
		}
	}
	return s.linksLead(x)
}
