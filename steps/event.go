package steps

import (
	"fmt"
	"net/http"

	"github.com/cucumber/godog"
)

// Reading and updating the event a scenario created.

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
	req := s.at(method, address)
	if method != http.MethodGet {
		req = req.WithJSON(s.updateBody(changes))
	}
	return s.whenAs(who, req)
}

// atEventID sends a request to the event id, at the address the event
// list's "get-an-event" template gives; PUT carries the created event's
// body.
func (s *scenario) atEventID(who, method, id string) error {
	address, err := s.eventsAddress()
	if err != nil {
		return err
	}
	list, err := s.send(s.at("GET", address))
	if err != nil {
		return err
	}
	template, err := list.link("get-an-event")
	if err != nil {
		return s.about(list, err)
	}
	req := s.at(method, expand(template, map[string]string{"id": id}))
	if method == http.MethodPut {
		req = req.WithJSON(s.updateBody(nil))
	}
	return s.whenAs(who, req)
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
		return s.failf(x, "status %d, want 200", x.status)
	}
	got, err := x.text("name")
	if err != nil {
		return s.about(x, err)
	}
	if got != name {
		return s.failf(x, "the event is named %q, want %q", got, name)
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

// updateThroughLink reads the event as the user and sends body to its
// "update-event" link.
func (s *scenario) updateThroughLink(body map[string]any) error {
	address, err := s.eventAddress()
	if err != nil {
		return err
	}
	req, err := s.as("the user", s.at("GET", address))
	if err != nil {
		return err
	}
	event, err := s.send(req)
	if err != nil {
		return err
	}
	update, err := event.link("update-event")
	if err != nil {
		return s.about(event, err)
	}
	req, err = s.as("the user", s.at("PUT", update).WithJSON(body))
	if err != nil {
		return err
	}
	return s.when(req)
}

func (s *scenario) updateThroughLinkWith(table *godog.Table) error {
	body := s.updateBody(nil)
	if err := s.applyTable(body, table); err != nil {
		return err
	}
	return s.updateThroughLink(body)
}

// Validation errors (reference rule API-11).

// validationError checks the reference server's 400 answer: an error on
// field with code, or with field empty, a global error with code.
func (s *scenario) validationError(field, code string) error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	if x.status != http.StatusBadRequest {
		return s.failf(x, "status %d, want 400", x.status)
	}
	obj, err := x.object()
	if err != nil {
		return s.about(x, err)
	}
	if index, _ := hrefs(obj)["index"]; index == "" {
		return s.failf(x, "the error has no \"index\" link")
	}
	content, _ := obj["content"].([]any)
	for _, v := range content {
		e, _ := v.(map[string]any)
		f, hasField := e["field"]
		if field == "" && !hasField && e["code"] == code || field != "" && f == field && (code == "" || e["code"] == code) {
			if msg, _ := e["defaultMessage"].(string); msg == "" && field != "" {
				return s.failf(x, "the error on %q has no defaultMessage", field)
			}
			return nil
		}
	}
	return s.failf(x, "no error on field %q with code %q", field, code)
}
