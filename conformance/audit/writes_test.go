package audit

import (
	"testing"
	"time"

	"eventsvc/conformance/repro"
)

// TestARefusedUpdateChangesNothingWhoeverSentIt: an update refused to
// a token the audit cannot tell (one without the write scope), of
// another account than the event's manager, changes nothing either: an
// event that reads back changed since, with no write taken, and read as
// written before it, breaks AUTH-6, blamed on the last refused write.
func TestARefusedUpdateChangesNothingWhoeverSentIt(t *testing.T) {
	r, user := withUser(t)
	body := `{"access_token":"tok-read","token_type":"bearer","refresh_token":"ref-read","expires_in":599,"scope":"read"}`
	want(t, "a token to read only", r.send("POST", "/oauth/token", client, "grant_type=password&username=other&password=pw&scope=read", 200, noStore, body))
	want(t, "a creation", r.send("POST", "/api/events", user, `{"name":"First","location":"Hall"}`, 201, "Location: /api/events/7\n"+jsonType, eventDoc(`"id":7,"name":"First","location":"Hall"`, "")))
	want(t, "it reads back as created", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"First","location":"Hall"`, "")))
	want(t, "an update without a token, refused", r.send("PUT", "/api/events/7", "Content-Type: application/json", `{"name":"First","location":"Street"}`, 401, "", ""))
	want(t, "the other user's update, refused", r.send("PUT", "/api/events/7", "Authorization: Bearer tok-read\nContent-Type: application/json", `{"name":"First","location":"Yard"}`, 403, jsonType, `{"error":"insufficient_scope"}`))
	want(t, "it reads back moved", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"First","location":"Moved"`, "")), "AUTH-6")

	// Without a read that showed it as created before the refused
	// update, what changed may be the creation taken wrong, or a replica
	// behind: the creation's rule.
	r = newRig(t)
	r.root()
	r.login("user", "tok-user", "ref-user")
	r.login("other", "tok-other", "ref-other")
	want(t, "a creation, unread", r.send("POST", "/api/events", user, `{"name":"First","location":"Hall"}`, 201, "Location: /api/events/7", ""))
	want(t, "the other user's update, refused", r.send("PUT", "/api/events/7", "Authorization: Bearer tok-other\nContent-Type: application/json", `{"name":"First","location":"Yard"}`, 403, "", ""))
	want(t, "it reads back moved, unread before", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"First","location":"Moved"`, "")), "API-6")
}

// TestACreationShowsWhatItWroteWhoeverSentIt: a creation the target
// took from a caller the audit cannot tell (a token without the write
// scope) made an event all the same: its answer, and the reads after
// it, show what it wrote (API-6).
func TestACreationShowsWhatItWroteWhoeverSentIt(t *testing.T) {
	r := newRig(t)
	r.root()
	body := `{"access_token":"tok-read","token_type":"bearer","refresh_token":"ref-read","expires_in":599,"scope":"read"}`
	want(t, "a token to read only", r.send("POST", "/oauth/token", client, "grant_type=password&username=other&password=pw&scope=read", 200, noStore, body))
	reader := "Authorization: Bearer tok-read\nContent-Type: application/json"
	want(t, "a creation answered with another name", r.send("POST", "/api/events", reader, `{"name":"First"}`, 201, "Location: /api/events/7\n"+jsonType, eventDoc(`"id":7,"name":"Cut"`, "")), "API-6")
	want(t, "it reads back with another name", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"Cut"`, "")), "API-6")
}

// TestAWriteByAValidTokenIsRefusedOnlyAsTheRulesSay: a creation by a
// valid token is taken (API-6), an update by the event's manager too
// (API-9), and another user's update is refused with 403 (AUTH-6); a
// body the target refuses as invalid (400, 422), the target protecting
// itself (429) and a cap on an account's events (403 to a creation) are
// its right. A creation refused to the
// scheme spelt otherwise, when the target took one sent with "Bearer",
// breaks SVC-7.
func TestAWriteByAValidTokenIsRefusedOnlyAsTheRulesSay(t *testing.T) {
	r, user := withUser(t)
	r.login("other", "tok-other", "ref-other")
	other := "Authorization: Bearer tok-other\nContent-Type: application/json"
	want(t, "a creation refused as invalid", r.send("POST", "/api/events", user, `{"name":""}`, 400, jsonType, `{"error":"invalid"}`))
	want(t, "a creation refused as unprocessable", r.send("POST", "/api/events", user, `{"name":""}`, 422, jsonType, `{"error":"invalid"}`))
	want(t, "a creation throttled", r.send("POST", "/api/events", user, `{"name":"First"}`, 429, "", ""))
	want(t, "a creation forbidden, as a cap on an account's events may", r.send("POST", "/api/events", user, `{"name":"First"}`, 403, "", ""))
	want(t, "a creation unauthenticated", r.send("POST", "/api/events", user, `{"name":"First"}`, 401, "", ""), "API-6")
	want(t, "a creation not found", r.send("POST", "/api/events", user, `{"name":"First"}`, 404, "", ""), "API-6")
	want(t, "a creation", r.send("POST", "/api/events", user, `{"name":"First"}`, 201, "Location: /api/events/7", ""))
	want(t, "a creation with the scheme spelt otherwise, refused", r.send("POST", "/api/events", "Authorization: bearer tok-user\nContent-Type: application/json", `{"name":"Second"}`, 401, "", ""), "SVC-7")
	want(t, "the manager's update, not allowed", r.send("PUT", "/api/events/7", user, `{"name":"Renamed"}`, 405, "", ""), "API-9")
	want(t, "the manager's update, refused as invalid", r.send("PUT", "/api/events/7", user, `{"name":""}`, 400, "", ""))
	want(t, "another user's update, not found", r.send("PUT", "/api/events/7", other, `{"name":"Taken"}`, 404, "", ""), "AUTH-6")
	want(t, "another user's update, refused as invalid", r.send("PUT", "/api/events/7", other, `{"name":""}`, 422, "", ""))
	want(t, "another user's update, forbidden", r.send("PUT", "/api/events/7", other, `{"name":"Taken"}`, 403, "", ""))
}

// TestTheAPIRootIsServedToEveryCaller: the API root is served to a
// caller without credentials and to one with a valid token, and links
// to the list (API-1; refused without credentials, a GET under /api/
// refused, AUTH-2 too); one who sent a token the target did not issue
// may be refused it (RFC 6750 §3.1).
func TestTheAPIRootIsServedToEveryCaller(t *testing.T) {
	r, _ := withUser(t)
	r.s.MadeUp("made-up")
	want(t, "refused without credentials", r.send("GET", "/api", "", "", 401, "", ""), "API-1", "AUTH-2")
	want(t, "refused to a valid token", r.send("GET", "/api", "Authorization: Bearer tok-user", "", 403, "", ""), "API-1")
	want(t, "refused to a made-up token", r.send("GET", "/api", "Authorization: Bearer made-up", "", 401, "", ""))
	want(t, "not JSON", r.send("GET", "/api", "", "", 200, "Content-Type: text/html", "<html></html>"), "API-1")
	want(t, "without the events link", r.send("GET", "/api", "", "", 200, jsonType, `{"_links":{"self":{"href":"/api"}}}`), "API-1")
}

// TestAnEventCreatedIsThereAndItsOwn: an event the audit saw created is
// there when read after (API-6), unless deleted, and no other creation
// is given its address or its id; the link that leads to a lost event
// is right, and not blamed.
func TestAnEventCreatedIsThereAndItsOwn(t *testing.T) {
	r, user := withUser(t)
	want(t, "a creation", r.createFirst(""))
	want(t, "it is not there", r.send("GET", "/api/events/7", "", "", 404, "", ""), "API-6")
	want(t, "an event never seen is not there", r.send("GET", "/api/events/70", "", "", 404, "", ""))
	want(t, "another creation given its id", r.send("POST", "/api/events", user, `{"name":"Second"}`, 201, "Location: /api/events/8\n"+jsonType, `{"id":7,"name":"Second","_links":{"self":{"href":"/api/events/8"}}}`), "API-6")
	want(t, "it is deleted", r.send("DELETE", "/api/events/7", user, "", 204, "", ""))
	want(t, "it is not there, deleted", r.send("GET", "/api/events/7", "", "", 404, "", ""))
}

// TestAnUpdateThatWritesWhatTheEventHoldsTakesNoLink: an update of an
// event with the body it holds changes nothing, so the link its manager
// is then not offered is the link's fault (API-8), not the update's
// (API-9).
func TestAnUpdateThatWritesWhatTheEventHoldsTakesNoLink(t *testing.T) {
	r, user := withUser(t)
	want(t, "a creation", r.send("POST", "/api/events", user, `{"name":"First"}`, 201, "Location: /api/events/7", ""))
	want(t, "the creator is offered the update", r.send("GET", "/api/events/7", "Authorization: Bearer tok-user", "", 200, jsonType, eventDoc(`"id":7,"name":"First"`, `,"update-event":{"href":"/api/events/7"}`)))
	want(t, "an update with the body it holds", r.send("PUT", "/api/events/7", user, `{"name":"First"}`, 204, "", ""))
	want(t, "the creator is no longer offered it", r.send("GET", "/api/events/7", "Authorization: Bearer tok-user", "", 200, jsonType, eventDoc(`"id":7,"name":"First"`, "")), "API-8")
}

// TestUpdatesSentAtOnceMayLeaveEitherBody: two updates of one event
// sent at the same time, one of them writing what the event held, leave
// it as either wrote it: a read after them that shows the body it held
// is no finding.
func TestUpdatesSentAtOnceMayLeaveEitherBody(t *testing.T) {
	r, user := withUser(t)
	want(t, "a creation", r.send("POST", "/api/events", user, `{"name":"First"}`, 201, "Location: /api/events/7", ""))
	start := r.clock
	r.clock = r.clock.Add(50 * time.Millisecond)
	for _, body := range []string{`{"name":"First"}`, `{"name":"Renamed"}`} {
		x := Exchange{Exchange: repro.Exchange{Method: "PUT", URL: base + "/api/events/7", Header: header(user), Body: []byte(body), Status: 204}, Start: start, End: r.clock}
		if got := r.s.Observe(x, r.next()); len(got) != 0 {
			t.Fatalf("an update sent at once: %v", got)
		}
	}
	want(t, "it reads back as it was", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"First"`, "")))
	want(t, "it reads back renamed", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"Renamed"`, "")))
}

// TestATokenAnywhereButAuthorizationBearerAuthenticatesNothing: a write
// taken with a valid access token elsewhere than "Authorization: Bearer"
// (any query parameter, form field, cookie or other header, another
// scheme or none) breaks SVC-4, whatever the place is called; refused,
// it is right.
func TestATokenAnywhereButAuthorizationBearerAuthenticatesNothing(t *testing.T) {
	r, _ := withUser(t)
	j := "Content-Type: application/json"
	for _, tt := range []struct{ name, path, header, body string }{
		{"a query parameter of any name", "/api/events?jwt=tok-user", j, `{"name":"A"}`},
		{"a form field of any name", "/api/events", formType, "name=A&token=tok-user"},
		{"a cookie of any name", "/api/events", j + "\nCookie: session=tok-user", `{"name":"A"}`},
		{"another header", "/api/events", j + "\nX-Auth-Token: tok-user", `{"name":"A"}`},
		{"Proxy-Authorization", "/api/events", j + "\nProxy-Authorization: Bearer tok-user", `{"name":"A"}`},
		{"another scheme", "/api/events", j + "\nAuthorization: Token tok-user", `{"name":"A"}`},
		{"no scheme", "/api/events", j + "\nAuthorization: tok-user", `{"name":"A"}`},
	} {
		want(t, tt.name+", refused", r.send("POST", tt.path, tt.header, tt.body, 401, "", ""))
		want(t, tt.name+", taken", r.send("POST", tt.path, tt.header, tt.body, 201, "", ""), "SVC-4")
	}
	want(t, "an unknown scheme with a token the audit did not see", r.send("POST", "/api/events", j+"\nAuthorization: Token something-else", `{"name":"A"}`, 201, "", ""))
}

// TestWhatTheServiceOwnsIsNotTakenFromABody: a creation or an update
// whose body sends an id, links or a manager reads back without them
// (they are the service's), and one that takes the id its body sent
// breaks API-6 or API-9.
func TestWhatTheServiceOwnsIsNotTakenFromABody(t *testing.T) {
	r, user := withUser(t)
	owned := `"id":2147000123,"manager":"other","_links":{"self":{"href":"/api/events/1"}}`
	want(t, "a creation that ignores them", r.send("POST", "/api/events", user, `{"name":"First",`+owned+`}`, 201, "Location: /api/events/7\n"+jsonType, eventDoc(`"id":7,"name":"First"`, "")))
	want(t, "it reads back without them", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"First"`, "")))
	want(t, "an update that ignores them", r.send("PUT", "/api/events/7", user, `{"name":"Second",`+owned+`}`, 200, jsonType, eventDoc(`"id":7,"name":"Second"`, "")))
	want(t, "an update that takes the id", r.send("PUT", "/api/events/7", user, `{"name":"Third",`+owned+`}`, 200, jsonType, eventDoc(`"id":2147000123,"name":"Third"`, "")), "API-9")
	want(t, "a creation that takes the id", r.send("POST", "/api/events", user, `{"name":"Fourth",`+owned+`}`, 201, "Location: /api/events/2147000123\n"+jsonType, eventDoc(`"id":2147000123,"name":"Fourth"`, "")), "API-6")
}

// TestAnotherMethodByAnotherUserChangesNothing: a write at an event by
// another method than PUT (PATCH, DELETE, a POST that overrides its
// method) from another user than its manager breaks AUTH-6 when taken;
// refused, whatever the status, it is right, and the event reads back as
// its manager left it.
func TestAnotherMethodByAnotherUserChangesNothing(t *testing.T) {
	r, _ := withUser(t)
	r.login("other", "tok-other", "ref-other")
	other := "Authorization: Bearer tok-other\nContent-Type: application/json"
	want(t, "a creation", r.createFirst(""))
	for _, status := range []int{403, 404, 405, 501} {
		want(t, "a PATCH by the other user, refused", r.send("PATCH", "/api/events/7", other, `{"name":"Taken"}`, status, "", ""))
	}
	want(t, "it reads back as created", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"First"`, "")))
	want(t, "a POST overriding its method, by the other user, taken", r.send("POST", "/api/events/7", other+"\nX-HTTP-Method-Override: PUT", `{"name":"Taken"}`, 200, "", ""), "AUTH-6")
	want(t, "a DELETE by the other user, taken", r.send("DELETE", "/api/events/7", other, "", 204, "", ""), "AUTH-6")
}
