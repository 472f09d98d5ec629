package steps

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/cucumber/godog"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/hal"
	"eventsvc/conformance/jsonvalue"
)

// Reading and updating the event a scenario created.

func (s *scenario) registerEventSteps(sc stepRegistry) {
	sc.Step(`^`+actor+` reads the event$`, func(who string) error { return s.atEvent(who, "GET", nil) })
	sc.Step(`^a caller reads the event "([^"]*)" through the "get-an-event" link of the event list$`, func(id string) error { return s.atEventID("a caller", "GET", id) })
	sc.Step(`^the answer is an event(?: in status "([^"]*)")? with a manager$`, s.isEventWithManager)
	sc.Step(`^the event is named "([^"]*)"$`, s.eventIsNamed)
	sc.Step(`^the event still has its original name$`, func() error { return s.eventIsNamed(s.events.name) })
	sc.Step(`^the event is (not )?free and (online|offline)$`, s.eventIsFree)

	sc.Step(`^`+account+` updates the event through its "update-event" link, renaming it "([^"]*)"$`, func(who, name string) error {
		return s.updateThroughLinkAs(who, s.updateBody(map[string]any{"name": name}))
	})
	sc.Step(`^the user updates the event through its "update-event" link with:$`, s.updateThroughLinkWith)
	sc.Step(`^the user updates the event through its "update-event" link, renaming it "([^"]*)" and changing every other text$`, s.changeEveryText)
	sc.Step(`^every field sent reads back as sent$`, s.fieldsReadBack)
	sc.Step(`^`+actor+` sends an update of the event to its address, renaming it "([^"]*)"$`, func(who, name string) error { return s.atEvent(who, "PUT", map[string]any{"name": name}) })
	sc.Step(`^the other user sends an invalid update of the event to its address$`, func() error { return s.atEvent("the other user", "PUT", map[string]any{"name": ""}) })
	sc.Step(`^the user sends an update to the event "([^"]*)" through the "get-an-event" link of the event list$`, func(id string) error { return s.atEventID("the user", "PUT", id) })
	sc.Step(`^`+actor+` sends (PUT|DELETE|PATCH) to the event's address$`, func(who, method string) error { return s.atEvent(who, method, nil) })
}

func (s *scenario) eventAddress() (string, error) {
	if s.events.address == "" {
		return "", fmt.Errorf("no event was created in this scenario")
	}
	return s.events.address, nil
}

// atEvent sends method to the address of the event the scenario created,
// on who's behalf; a request other than GET carries the event's body with
// changes.
func (s *scenario) atEvent(who, method string, changes map[string]any) error {
	address, err := s.eventAddress()
	if err != nil {
		return err
	}
	req, kind := s.at(method, address), kindEvent
	if method != http.MethodGet {
		body := s.updateBody(changes)
		req, kind = req.WithJSON(body), kindUpdated
		s.events.sent = body
	}
	return s.whenAs(who, kind, req)
}

// atEventID sends a request to the event id, at the address the event
// list's "get-an-event" template gives; PUT carries the created event's
// body.
func (s *scenario) atEventID(who, method, id string) error {
	_, list, err := s.readAnonymously(s.eventsAddress)
	if err != nil {
		return err
	}
	template, err := list.link("get-an-event")
	if err != nil {
		return s.about(list, err)
	}
	req, kind := s.at(method, hal.Expand(template, map[string]string{"id": id})), kindEvent
	if method == http.MethodPut {
		req, kind = req.WithJSON(s.updateBody(nil)), kindUpdated
	}
	return s.whenAs(who, kind, req)
}

func (s *scenario) isEventWithManager(status string) error {
	x, obj, err := s.answerObject()
	if err != nil {
		return err
	}
	if id, ok := obj["id"].(float64); !ok || id != float64(int64(id)) {
		return s.failf(x, "the event's id %v is not an integer", obj["id"])
	}
	if status != "" && obj["eventStatus"] != status {
		return s.failf(x, "eventStatus is %v, want %q", obj["eventStatus"], status)
	}
	manager, ok := obj["manager"].(map[string]any)
	if _, isNum := manager["id"].(float64); !ok || !isNum || len(manager) != 1 {
		return s.failf(x, "manager is %v, want an object with only an integer id", obj["manager"])
	}
	return nil
}

// eventIsNamed checks the event's name: name with the run's marks, which a
// renamed event keeps, or, for a name that carries them already, name as it
// is.
func (s *scenario) eventIsNamed(name string) error {
	if plainName(name) == name {
		name = s.runName(name)
	}
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	if x.status != http.StatusOK {
		err := s.failf(x, "status %d, want 200", x.status)
		if !holdsToken(x.who) {
			return unmetOnTheWay(err, audit.ReadOpen(false, x.who == anonymous)) // anyone may read an event
		}
		return err
	}
	got, err := x.text("name")
	if err != nil {
		return unmet(s.about(x, err), audit.ReadsBackAsWritten)
	}
	if got != name {
		return unmet(s.failf(x, "the event is named %q, want %q", got, name), audit.ReadsBackAsWritten)
	}
	return nil
}

func (s *scenario) eventIsFree(not, where string) error {
	x, obj, err := s.answerObject()
	if err != nil {
		return err
	}
	if obj["free"] != (not == "") || obj["offline"] != (where == "offline") {
		return s.failf(x, "free is %v and offline %v; want the event %sfree and %s", obj["free"], obj["offline"], not, where)
	}
	return nil
}

// updateBody is the body sent at creation with changes applied: a full
// replacement, as PUT means. A new name carries the run's marks, as every
// name of an event the run creates does.
func (s *scenario) updateBody(changes map[string]any) map[string]any {
	body := map[string]any{}
	for k, v := range s.events.body {
		body[k] = v
	}
	for k, v := range changes {
		if name, ok := v.(string); ok && k == "name" && name != "" {
			v = s.runName(name)
		}
		body[k] = v
	}
	return body
}

// updateThroughLink is updateThroughLinkAs for the user.
func (s *scenario) updateThroughLink(body map[string]any) error {
	return s.updateThroughLinkAs("the user", body)
}

// updateThroughLinkAs reads the event as who (an account) and sends body
// to its "update-event" link.
func (s *scenario) updateThroughLinkAs(who string, body map[string]any) error {
	address, err := s.eventAddress()
	if err != nil {
		return err
	}
	event, err := s.sendBy(who, s.at("GET", address))
	if err != nil {
		return err
	}
	update, err := event.link("update-event")
	if err != nil {
		event.who, event.kind = who, kindEvent
		if aerr := s.offersExactly(event); aerr != nil {
			return aerr // the audit tells which rule it breaks
		}
		return cannotGoOn(s.about(event, err))
	}
	s.events.sent = body
	return s.whenAs(who, kindUpdated, s.at("PUT", update).WithJSON(body))
}

func (s *scenario) updateThroughLinkWith(table *godog.Table) error {
	body := s.updateBody(nil)
	if err := s.applyTable(body, table); err != nil {
		return err
	}
	return s.updateThroughLink(body)
}

// textSuffix is added to every free text of an event when a step changes
// every text it holds: letters of several scripts and an emoji, so that a
// target that loses them on the way in or out shows it.
const textSuffix = " (changed: Ärger · Ωmega · 東京 · Москва · 🎉)"

// changeEveryText updates the event through its "update-event" link, as the
// user: renamed to name, and every other free text of the body (a string
// with a space in it: not a date, a code or an address) with textSuffix.
func (s *scenario) changeEveryText(name string) error {
	body := s.updateBody(map[string]any{"name": name})
	for k, v := range body {
		if text, ok := v.(string); ok && k != "name" && strings.Contains(text, " ") {
			body[k] = text + textSuffix
		}
	}
	return s.updateThroughLink(body)
}

// fieldsReadBack reads the event with a probe, anonymously, and checks that
// every field of the last update sent reads back as sent (spec API-9): the
// same text, the same number, the same instant for a date-time written
// with or without an offset, an empty text as null. A field the answer
// does not show is not checked; the name, which the suite gives every
// event, must be shown.
func (s *scenario) fieldsReadBack() error {
	if s.events.sent == nil {
		return fmt.Errorf("no update was sent in this scenario")
	}
	_, x, err := s.readAnonymously(s.eventAddress)
	if err != nil {
		return err
	}
	x.who, x.kind = "a caller", kindEvent
	if x.status != http.StatusOK {
		return s.unreadable(x, s.failf(x, "reading the event back: status %d", x.status))
	}
	obj, err := x.object()
	if err != nil {
		return unmet(s.failf(x, "reading the event back: %v", err), audit.ReadsBackAsUpdated)
	}
	if _, ok := obj["name"]; !ok {
		return s.failf(x, "the event read back shows no \"name\"")
	}
	keys := make([]string, 0, len(s.events.sent))
	for k := range s.events.sent {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		got, shown := obj[k]
		if !shown {
			continue
		}
		if !jsonvalue.Same(s.events.sent[k], got) {
			return unmet(s.failf(x, "%q reads back as %s; the update sent %s", k, jsonvalue.Describe(got), jsonvalue.Describe(s.events.sent[k])), audit.ReadsBackAsUpdated)
		}
	}
	return nil
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
