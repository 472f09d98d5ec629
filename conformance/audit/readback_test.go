package audit

import "testing"

// TestAValueStoredAsABinderReadsItIsNoFindingWhenTheAnswerSaysSo: a
// service may read a body's value as a JSON binder does by default
// (Jackson: a text of digits as a number, a fraction as the whole number
// it stores, null as a field's default). A value that reads back the same
// in another type (the text "120" as the number 120) is what was
// written; one the service changed is, when the answer to the write
// shows what it stored, and the reads after it must show that. A value
// changed without the answer saying so, or changed in no way a binder
// reads it (null as the text "null"), breaks the write's rule.
func TestAValueStoredAsABinderReadsItIsNoFindingWhenTheAnswerSaysSo(t *testing.T) {
	r, user := withUser(t)
	want(t, "a creation of seats as a fraction, answered with the whole number stored",
		r.send("POST", "/api/events", user, `{"name":"First","seats":100.5,"venue":null}`, 201, "Location: /api/events/7\n"+jsonType, eventDoc(`"id":7,"name":"First","seats":100,"venue":""`, "")))
	want(t, "it reads back as stored", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"First","seats":100,"venue":""`, "")))
	want(t, "it reads back as sent, not as stored", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"First","seats":100.5,"venue":""`, "")), "API-6")
	want(t, "an update of seats as a text of digits, answered 204", r.send("PUT", "/api/events/7", user, `{"name":"First","seats":"120"}`, 204, "", ""))
	want(t, "it reads back as the number", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"First","seats":120`, "")))
	want(t, "an update of seats as a fraction, answered 204", r.send("PUT", "/api/events/7", user, `{"name":"First","seats":130.5}`, 204, "", ""))
	want(t, "it reads back cut, which the answer did not say", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"First","seats":130`, "")), "API-9")

	r, user = withUser(t)
	want(t, "a creation of a venue as null, answered with the text \"null\"",
		r.send("POST", "/api/events", user, `{"name":"First","venue":null}`, 201, "Location: /api/events/7\n"+jsonType, eventDoc(`"id":7,"name":"First","venue":"null"`, "")), "API-6")
	want(t, "an update of the venue as a number, answered with another text",
		r.send("PUT", "/api/events/7", user, `{"name":"First","venue":42}`, 200, jsonType, eventDoc(`"id":7,"name":"First","venue":"4"`, "")), "API-9")
	want(t, "an update of the venue as a number, answered with its text",
		r.send("PUT", "/api/events/7", user, `{"name":"First","venue":42}`, 200, jsonType, eventDoc(`"id":7,"name":"First","venue":"42"`, "")))
}
