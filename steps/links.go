package steps

import (
	"slices"
	"strings"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/hal"
)

// What an answer is as HAL (spec SVC-2), and the links it offers.

func (s *scenario) registerLinkSteps(sc stepRegistry) {
	sc.Step(`^the answer is a HAL resource whose links are keyed by relation name, each with an href$`, s.isHAL)
	sc.Step(`^the answer is a HAL resource, if it has a JSON body$`, s.isHALIfJSON)
	sc.Step(`^every event it lists is a HAL resource too$`, s.itemsAreHAL)
	sc.Step(`^the answer (offers|does not offer) the links? "([^"]*)"$`, s.offersLinks)
	sc.Step(`^every link of the answer is an absolute address$`, s.linksAreAbsolute)
	sc.Step(`^the "([^"]*)" link is a URI template$`, s.linkIsTemplate)
}

// isHAL checks spec SVC-2: "_links" is an object keyed by relation name, and
// each entry (or each element of an array entry) has an href.
func (s *scenario) isHAL() error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	if _, err := x.object(); err != nil {
		return unmet(s.about(x, err), audit.HAL)
	}
	return s.audited(x, "whether it is HAL", audit.HAL)
}

// isHALIfJSON is isHAL for an answer the specification shows no body of
// (to POST and PUT): when it has a JSON body, it is HAL (spec SVC-2).
func (s *scenario) isHALIfJSON() error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	if x.jsonErr != nil && strings.TrimSpace(x.body) == "" {
		return nil
	}
	if _, err := x.object(); err != nil {
		return s.about(x, err)
	}
	return s.audited(x, "whether it is HAL", audit.HAL)
}

// itemsAreHAL checks, through the audit, that every event a list answer
// lists is HAL (spec SVC-2).
func (s *scenario) itemsAreHAL() error {
	items, x, err := s.answerItems()
	if err != nil {
		return err
	}
	if x.status < 200 || x.status > 299 {
		return s.unreadable(x, s.failf(x, "status %d, not a success: the answer lists no events", x.status))
	}
	if len(items) == 0 {
		return s.failf(x, "the list holds no events")
	}
	return s.audited(x, "whether the events it lists are HAL", audit.HAL)
}

func (s *scenario) offersLinks(offers, list string) error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	if x.status < 200 || x.status > 299 {
		return s.unreadable(x, s.failf(x, "status %d, not a success: the answer offers nothing", x.status))
	}
	if offers == "offers" && x.kind == kindEvent && slices.Contains(splitList(list), "update-event") && s.manages(x.who, x.url.String()) {
		if _, ok := x.links()["update-event"]; !ok {
			return s.offersExactly(x) // the audit tells which rule it breaks
		}
	}
	links := x.links()
	for _, rel := range splitList(list) {
		if _, ok := links[rel]; ok != (offers == "offers") {
			if h := s.tokens.of(holderOf(x.who)); rel == "create-new-event" && !ok && x.kind == kindList && holdsToken(x.who) && h != nil {
				if err := s.probeHonoured(x.url.String(), holderOf(x.who), h.access); err != nil {
					return err
				}
			}
			return unmet(s.failf(x, "offers %q: %v, want %v; it offers %s", rel, ok, !ok, hal.RelNames(links)), linkExpectation(x, rel))
		}
	}
	return nil
}

// linkExpectation is what says whether x offers rel: what the event list
// offers its caller, anonymous or with a token, the manager's link to
// update an event, the API root's link to the events. None: the
// scenario's rules.
func linkExpectation(x *exchange, rel string) audit.Expectation {
	switch {
	case rel == "update-event": // its manager's: the creator
		return audit.UpdateOffered
	case rel == "events":
		return audit.RootOffersEvents
	case x.kind == kindList && holdsToken(x.who):
		return audit.ListOffersTokenHolder
	case x.kind == kindList:
		return audit.ListOffersAnyone
	}
	return 0
}

func (s *scenario) linksAreAbsolute() error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	links := x.links()
	if len(links) == 0 {
		return s.failf(x, "the answer has no links")
	}
	for rel, href := range links {
		if !absolute(href) {
			return unmet(s.failf(x, "link %q is not an absolute address: %q", rel, href), audit.AbsoluteHrefs)
		}
	}
	return nil
}

func (s *scenario) linkIsTemplate(rel string) error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	obj, _ := x.json.(map[string]any)
	links, _ := obj["_links"].(map[string]any)
	link, _ := links[rel].(map[string]any)
	href, _ := link["href"].(string)
	if templated, _ := link["templated"].(bool); !templated || !strings.Contains(href, "{") {
		return s.failf(x, "link %q is not a URI template: %v", rel, links[rel])
	}
	return nil
}
