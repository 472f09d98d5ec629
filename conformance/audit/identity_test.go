package audit

import (
	"slices"
	"testing"
	"time"

	"eventsvc/conformance/repro"
)

// grantAt observes a password grant of username answered with access,
// sent at start and answered at end.
func (r *rig) grantAt(username, access string, start, end time.Time) {
	r.t.Helper()
	body := `{"access_token":"` + access + `","token_type":"bearer","refresh_token":"ref-` + access + `","expires_in":599,"scope":"read write"}`
	x := Exchange{Exchange: repro.Exchange{Method: "POST", URL: base + "/oauth/token", Header: header(client), Body: []byte("grant_type=password&username=" + username + "&password=pw"),
		Status: 200, RespHeader: header(noStore), RespBody: []byte(body)}, Start: start, End: end}
	if found := r.s.Observe(x, r.next()); len(found) != 0 {
		r.t.Fatalf("a correct token answer breaks %v", found)
	}
}

// TestATokenThatActsForTheAccountLoggedInBesideIsACC1: a token of the
// user's password grant, answered while the other user's was under way,
// that is offered the update of the other user's event and not of its
// own acts for the other user: ACC-1 alone. The same reads after grants
// one after the other are the events' links' fault (API-8).
func TestATokenThatActsForTheAccountLoggedInBesideIsACC1(t *testing.T) {
	for _, beside := range []bool{true, false} {
		r := newRig(t)
		r.root()
		r.login("other", "tok-other", "ref-other")
		r.send("POST", "/api/events", "Authorization: Bearer tok-other\nContent-Type: application/json", `{"name":"Theirs"}`, 201, "Location: /api/events/7\n"+jsonType, eventDoc(`"id":7,"name":"Theirs"`, ""))
		r.login("user", "tok-user", "ref-user")
		r.send("POST", "/api/events", userJSON, `{"name":"Mine"}`, 201, "Location: /api/events/8\n"+jsonType, `{"id":8,"name":"Mine","_links":{"self":{"href":"/api/events/8"}}}`)

		start := r.clock
		r.grantAt("user", "tok-u2", start, start.Add(20*time.Millisecond))
		otherStart := start.Add(30 * time.Millisecond)
		if beside {
			otherStart = start.Add(5 * time.Millisecond)
		}
		r.grantAt("other", "tok-o2", otherStart, otherStart.Add(20*time.Millisecond))
		r.clock = start.Add(time.Second)
		r.send("GET", "/api/events/7", "Authorization: Bearer tok-u2", "", 200, jsonType, eventDoc(`"id":7,"name":"Theirs"`, `,"update-event":{"href":"/api/events/7"}`))
		r.send("GET", "/api/events/8", "Authorization: Bearer tok-u2", "", 200, jsonType, `{"id":8,"name":"Mine","_links":{"self":{"href":"/api/events/8"}}}`)

		want := []string{"ACC-1"}
		if !beside {
			want = []string{"API-8", "API-8"}
		}
		if rules := unclaimedRules(r.a); !slices.Equal(rules, want) {
			t.Errorf("grants at the same moment %v: %v stand, want %v", beside, rules, want)
		}
	}
}
