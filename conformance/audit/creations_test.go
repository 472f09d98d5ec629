package audit

import (
	"testing"
	"time"

	"eventsvc/conformance/repro"
)

// createAt observes a creation with the access token of who, answered as
// the event at id, sent at start and answered at end.
func (r *rig) createAt(who, id string, start, end time.Time) {
	r.t.Helper()
	x := Exchange{Exchange: repro.Exchange{Method: "POST", URL: base + "/api/events", Header: header("Authorization: Bearer tok-" + who + "\nContent-Type: application/json"),
		Body: []byte(`{"name":"E` + id + `"}`), Status: 201, RespHeader: header("Location: /api/events/" + id + "\n" + jsonType),
		RespBody: []byte(`{"id":` + id + `,"name":"E` + id + `","_links":{"self":{"href":"/api/events/` + id + `"}}}`)}, Start: start, End: end}
	if found := r.s.Observe(x, r.next()); len(found) != 0 {
		r.t.Fatalf("a correct creation breaks %v", found)
	}
}

// createdByTheUser starts a rig where both users logged in and the user
// created event 7, sent at start.
func createdByTheUser(t *testing.T) (*rig, time.Time) {
	r := newRig(t)
	r.root()
	r.login("user", "tok-user", "ref-user")
	r.login("other", "tok-other", "ref-other")
	start := r.clock
	r.createAt("user", "7", start, start.Add(20*time.Millisecond))
	return r, start
}

// TestCreationsAtTheSameMomentThatMixUpTheirManagersAreAPI6Alone: the
// other user's two events, created at the same moment as the user's, one
// of which refuses the other user's update as not the manager's, were
// given another manager by their creation: what the other's reads are
// not offered is that fault (API-6), not the links' (API-8). Created at
// another moment, the second event's read that does not offer its
// creator the update is the links' fault.
func TestCreationsAtTheSameMomentThatMixUpTheirManagersAreAPI6Alone(t *testing.T) {
	eachWay(t, "created together", []string{"API-6"}, []string{"API-6", "API-8"}, func(together bool) *rig {
		r, start := createdByTheUser(t)
		r.createAt("other", "8", start.Add(5*time.Millisecond), start.Add(25*time.Millisecond))
		second := start.Add(10 * time.Millisecond)
		if !together {
			second = start.Add(50 * time.Millisecond)
		}
		r.createAt("other", "9", second, second.Add(20*time.Millisecond))
		r.clock = start.Add(time.Second)
		r.send("GET", "/api/events/7", "Authorization: Bearer tok-user", "", 200, jsonType, `{"id":7,"name":"E7","_links":{"self":{"href":"/api/events/7"},"update-event":{"href":"/api/events/7"}}}`)
		r.send("PUT", "/api/events/8", "Authorization: Bearer tok-other\nContent-Type: application/json", `{"name":"Renamed"}`, 403, "", "")
		r.send("GET", "/api/events/9", "Authorization: Bearer tok-other", "", 200, jsonType, `{"id":9,"name":"E9","_links":{"self":{"href":"/api/events/9"}}}`)
		return r
	})
}

// TestAnEventGivenToTheCreatorItsCreationMetIsAPI6Alone: the other
// user's event, created at the same moment as the user's, that does not
// offer the other user its update and offers it to the user, was given
// to the user by its creation (API-6 alone); created at another moment,
// the same reads are the links' fault (API-8, for each of them).
func TestAnEventGivenToTheCreatorItsCreationMetIsAPI6Alone(t *testing.T) {
	eachWay(t, "created together", []string{"API-6"}, []string{"API-8", "API-8"}, func(together bool) *rig {
		r, start := createdByTheUser(t)
		second := start.Add(5 * time.Millisecond)
		if !together {
			second = start.Add(50 * time.Millisecond)
		}
		r.createAt("other", "8", second, second.Add(20*time.Millisecond))
		r.clock = start.Add(time.Second)
		r.send("GET", "/api/events/8", "Authorization: Bearer tok-other", "", 200, jsonType, `{"id":8,"name":"E8","_links":{"self":{"href":"/api/events/8"}}}`)
		r.send("GET", "/api/events/8", "Authorization: Bearer tok-user", "", 200, jsonType, `{"id":8,"name":"E8","_links":{"self":{"href":"/api/events/8"},"update-event":{"href":"/api/events/8"}}}`)
		return r
	})
}
