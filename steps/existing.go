package steps

import (
	"fmt"

	"github.com/cucumber/godog"

	"eventsvc/conformance/hal"
)

// maxProbedEvents bounds the events a read-only run reads, one by one, to
// find one the user manages.
const maxProbedEvents = 100

// notChecked is the failure of a step that finds the target cannot be
// checked as the scenario needs: godog skips the rest of the scenario, and
// the runner reports it as not run, with the reason.
func notChecked(format string, args ...any) error {
	return fmt.Errorf("%w: %s", godog.ErrSkip, fmt.Sprintf(format, args...))
}

// userManagesAnEvent gives the scenario an event the user manages: one it
// creates, or in a read-only run, the first the target lists that offers
// the user "update-event" (spec API-8).
func (s *scenario) userManagesAnEvent() error {
	if !s.target.ReadOnly {
		return s.userHasCreated(make([]string, 1))
	}
	if _, err := s.sendBy("the user", s.e.GET(apiRootPath)); err != nil { // asks for the user's token first
		return err
	}
	read := 0
	found, err := s.seekInList(func(p page, _ *exchange) (bool, error) {
		for i, self := range p.items {
			if _, ok := hal.Links(p.docs[i])["self"]; !ok {
				return false, notChecked("the events the target lists have no \"self\" link to read them by")
			}
			if read == maxProbedEvents {
				return false, notChecked("the user manages none of the first %d events the target lists, and a read-only run creates none", read)
			}
			read++
			event, err := s.send(s.bearer(s.at("GET", self), s.tokens.user.access))
			if err != nil {
				return false, err
			}
			if _, ok := event.links()["update-event"]; ok {
				s.events.address = self
				s.events.name, _ = event.text("name")
				return true, nil
			}
		}
		return false, nil
	})
	switch {
	case found:
		return nil
	case err != nil:
		return err
	}
	return notChecked("the user manages none of the %d events the target lists, and a read-only run creates none", read)
}
