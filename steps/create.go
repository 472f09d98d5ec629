package steps

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/cucumber/godog"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/hal"
)

// Creating events: through the "create-new-event" link, as a step's
// request or to arrange a scenario, and sent to the event list's address.

func (s *scenario) registerCreateSteps(sc stepRegistry) {
	sc.Step(`^`+account+` has created (an event|\d+ events|events named "[^"]*")$`, s.hasCreatedPhrase)
	sc.Step(`^the user manages an event$`, s.userManagesAnEvent)

	sc.Step(`^`+account+` creates an event through the "create-new-event" link$`, func(who string) error { return s.createEventAs(who, nil) })
	sc.Step(`^the user creates an event named "([^"]*)"$`, s.createNamed)
	sc.Step(`^the user creates an event with:$`, s.createEvent)
	sc.Step(`^`+actor+` sends a new event to the event list$`, func(who string) error { return s.sendNewEvent(who, "") })
	sc.Step(`^the user sends the body "([^"]*)" to the event list$`, func(body string) error { return s.sendNewEvent("the user", body) })
	sc.Step(`^the event is created$`, s.eventIsCreated)
	sc.Step(`^the answer's Location is the event's "self" link$`, s.locationIsSelf)
	sc.Step(`^no event with (?:the|either) name sent was created$`, s.noEventWithSentName)
}

// createAddress returns the "create-new-event" address the event list
// offers who, read once a run (the target's Discovery) or else once a
// scenario, for each account.
func (s *scenario) createAddress(who string) (string, error) {
	holder := holderOf(who)
	if a := s.events.create[holder]; a != "" {
		return a, nil
	}
	if a, ok := s.target.Discovery.Lookup(s.base, "create-new-event "+holder); ok {
		return a, nil
	}
	address, err := s.eventsAddress()
	if err != nil {
		return "", err
	}
	list, err := s.sendBy(who, s.at("GET", address))
	if err != nil {
		return "", err
	}
	create, err := list.link("create-new-event")
	if err != nil {
		if h := s.tokens.of(holderOf(who)); holdsToken(who) && h != nil {
			if perr := s.probeHonoured(address, holderOf(who), h.access); perr != nil {
				return "", perr
			}
		}
		return "", cannotGoOn(s.about(list, err))
	}
	if s.events.create == nil {
		s.events.create = map[string]string{}
	}
	s.events.create[holder] = create
	s.target.Discovery.Learn(s.base, "create-new-event "+holder, create)
	return create, nil
}

// postEvent sends body, as who (an account), through the "create-new-event"
// link of the event list, and remembers the event when it was created.
func (s *scenario) postEvent(who string, body map[string]any) (*exchange, error) {
	s.events.sending(body)
	create, err := s.createAddress(who)
	if err != nil {
		return nil, err
	}
	x, err := s.sendBy(who, s.at("POST", create).WithJSON(body))
	if err == nil {
		x.who, x.kind = who, kindCreated
		if x.status >= 200 && x.status <= 299 {
			s.rememberEvent(x, body, holderOf(who))
		}
	}
	return x, err
}

// rememberEvent keeps the address, name and manager of the event just
// created.
func (s *scenario) rememberEvent(x *exchange, body map[string]any, holder string) {
	s.events.address = ""
	if loc := x.header.Get("Location"); loc != "" {
		s.events.address = x.resolve(loc)
	} else if self, err := x.link("self"); err == nil {
		s.events.address = self
	}
	s.events.name, _ = body["name"].(string)
	s.events.madeNames = append(s.events.madeNames, s.events.name)
	s.events.body = body
	s.events.creator = holder
	if s.events.address != "" {
		s.events.setManager(s.events.address, holder)
	}
}

// hasCreatedPhrase creates "an event", "N events", or "events named
// "A, B"", as who (an account), with probes.
func (s *scenario) hasCreatedPhrase(who, what string) error {
	var n int
	switch {
	case what == "an event":
		return s.hasCreated(who, make([]string, 1))
	case strings.HasPrefix(what, "events named "):
		return s.hasCreated(who, splitList(strings.Trim(strings.TrimPrefix(what, "events named "), `"`)))
	}
	if _, err := fmt.Sscanf(what, "%d events", &n); err != nil {
		return fmt.Errorf("how many events: %q", what)
	}
	return s.hasCreated(who, make([]string, n))
}

// userHasCreated creates an event for each name ("": a name of its own),
// as the user, with probes.
func (s *scenario) userHasCreated(names []string) error { return s.hasCreated("the user", names) }

// hasCreated creates an event for each name ("": a name of its own), as
// who (an account), with probes.
func (s *scenario) hasCreated(who string, names []string) error {
	for _, name := range names {
		body, err := s.eventBody(name)
		if err != nil {
			return err
		}
		x, err := s.postEvent(who, body)
		if err != nil {
			return err
		}
		if err := s.created(x); err != nil {
			return err
		}
		s.events.made = append(s.events.made, s.events.address)
	}
	return nil
}

func (s *scenario) createEvent(table *godog.Table) error { return s.createEventAs("the user", table) }

// createNamed creates an event named name (with the run's marks), as the
// user, as the request of a When step.
func (s *scenario) createNamed(name string) error {
	body, err := s.eventBody(name)
	if err != nil {
		return err
	}
	x, err := s.postEvent("the user", body)
	if err != nil {
		return err
	}
	s.answer = x
	return nil
}

// createEventAs creates an event as who (an account), with the fields of
// table, as the request of a When step.
func (s *scenario) createEventAs(who string, table *godog.Table) error {
	body, err := s.eventBody("")
	if err != nil {
		return err
	}
	if err := s.applyTable(body, table); err != nil {
		return err
	}
	x, err := s.postEvent(who, body)
	if err != nil {
		return err
	}
	s.answer = x
	return nil
}

// created checks that x created an event whose address is known: from
// its Location or "self" link, or else, since the specification shows no
// answer to a creation, from the "self" link of the event the list shows
// under the name sent.
func (s *scenario) created(x *exchange) error {
	if x.status < 200 || x.status > 299 {
		return s.failf(x, "creating the event failed with status %d", x.status)
	}
	if s.events.address != "" {
		return nil
	}
	found, err := s.seekInList(func(p page, _ *exchange) (bool, error) {
		for i, item := range p.docs {
			if item["name"] == s.events.sentName() && p.items[i] != "" && hal.Links(item)["self"] != "" {
				s.events.address = p.items[i]
				return true, nil
			}
		}
		return false, nil
	})
	switch {
	case found:
		s.events.setManager(s.events.address, s.events.creator)
		return nil
	case err != nil:
		return err
	}
	return s.failf(x, "the created event is neither in the answer's Location nor its \"self\" link, nor listed under the name sent")
}

func (s *scenario) eventIsCreated() error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	return unmet(s.created(x), audit.Created)
}

func (s *scenario) locationIsSelf() error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	loc := x.header.Get("Location")
	self, err := x.link("self")
	if err != nil {
		return s.about(x, err)
	}
	if loc == "" || x.resolve(loc) != self {
		return s.failf(x, "Location %q is not the \"self\" link %q", loc, self)
	}
	return nil
}

// sendNewEvent posts a new event, or rawBody, to the address of the event
// list, on who's behalf.
func (s *scenario) sendNewEvent(who, rawBody string) error {
	body, address, err := s.newEventToList()
	if err != nil {
		return err
	}
	req := s.at("POST", address)
	if rawBody != "" {
		req = req.WithHeader("Content-Type", "application/json").WithText(rawBody)
	} else {
		req = req.WithJSON(body)
	}
	return s.whenAs(who, kindCreated, req)
}

// noEventWithSentName walks the whole event list with probes, as anyone
// may read it, and fails if an event carries the name of a body a refused
// request of the scenario sent (any body sent but those of the events it
// created on purpose). The names hold the run id, so no other
// run's event matches them; one walk serves every write the scenario sent.
func (s *scenario) noEventWithSentName() error {
	if len(s.events.sentNames) == 0 {
		return fmt.Errorf("no event body with a name was sent in this scenario")
	}
	return s.eachPage(func(p page, x *exchange) error {
		for _, item := range p.docs {
			if name, ok := item["name"].(string); ok && slices.Contains(s.events.sentNames, name) && !slices.Contains(s.events.madeNames, name) {
				// A refused write changes nothing: whoever sent it, the
				// write needed a valid token.
				return unmetOnTheWay(s.failf(x, "the refused request created the event %q anyway", plainName(name)), s.tokenNeeded(s.answer))
			}
		}
		return nil
	})
}

// tokenNeeded is why the request of x, a write, needs a valid token:
// it is under the target's /api/, or it is any other request (an address
// written another way, such as /API/EVENTS).
func (s *scenario) tokenNeeded(x *exchange) audit.Expectation {
	base, err := url.Parse(s.base)
	if x == nil || err != nil {
		return audit.APIWriteNeedsToken
	}
	return audit.NeedsToken(strings.TrimSuffix(base.Path, "/")+apiRootPath, x.url.Path)
}
