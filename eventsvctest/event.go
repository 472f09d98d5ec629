package eventsvctest

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// DateTimeLayout is how the API writes an event's date-times: a local
// date and time, without a zone.
const DateTimeLayout = "2006-01-02T15:04:05"

// Event is an event to start with or to seed: the body a client would
// POST to /api/events, under the same validation, with the account that
// manages it and its status. Date-times are sent as their clock reading
// (DateTimeLayout), whatever their location; a zero one is left out, as
// are the zero values of the other fields.
type Event struct {
	Name, Description       string
	BeginEnrollmentDateTime time.Time
	CloseEnrollmentDateTime time.Time
	BeginEventDateTime      time.Time
	EndEventDateTime        time.Time
	// Location is empty for an online event.
	Location                               string
	BasePrice, MaxPrice, LimitOfEnrollment int
	// Manager is the email of the account that manages the event; empty:
	// the first account (Admin with the demo credentials).
	Manager string
	// Status is "DRAFT" (when empty), "PUBLISHED" or "BEGAN_ENROLLMENT".
	Status string
}

// MarshalJSON writes e as an item of a seed (docs/control-api.md).
func (e Event) MarshalJSON() ([]byte, error) {
	dateTime := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.Format(DateTimeLayout)
	}
	return json.Marshal(struct {
		Name                    string `json:"name"`
		Description             string `json:"description"`
		BeginEnrollmentDateTime string `json:"beginEnrollmentDateTime,omitempty"`
		CloseEnrollmentDateTime string `json:"closeEnrollmentDateTime,omitempty"`
		BeginEventDateTime      string `json:"beginEventDateTime,omitempty"`
		EndEventDateTime        string `json:"endEventDateTime,omitempty"`
		Location                string `json:"location,omitempty"`
		BasePrice               int    `json:"basePrice,omitempty"`
		MaxPrice                int    `json:"maxPrice,omitempty"`
		LimitOfEnrollment       int    `json:"limitOfEnrollment,omitempty"`
		Manager                 string `json:"manager,omitempty"`
		Status                  string `json:"eventStatus,omitempty"`
	}{
		e.Name, e.Description,
		dateTime(e.BeginEnrollmentDateTime), dateTime(e.CloseEnrollmentDateTime),
		dateTime(e.BeginEventDateTime), dateTime(e.EndEventDateTime),
		e.Location, e.BasePrice, e.MaxPrice, e.LimitOfEnrollment, e.Manager, e.Status,
	})
}

// SeedEvents replaces every event with events (PUT /events), their ids
// given from 1 in this order, and returns how many there are. A list with
// an invalid event is refused whole, failing tb with the problems, and
// changes nothing.
func (s *Server) SeedEvents(tb testing.TB, events []Event) int {
	tb.Helper()
	if events == nil {
		events = []Event{}
	}
	return member[int](tb, s, http.MethodPut, "/events", events, "events")
}
