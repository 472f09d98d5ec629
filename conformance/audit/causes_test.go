package audit

import (
	"strings"
	"testing"
)

// causes returns the rule and cause of each finding.
func causes(found []*Finding) []string {
	var out []string
	for _, f := range found {
		out = append(out, f.Rule+": "+f.Cause)
	}
	return out
}

// TestAnAnswerServedToACallerWhoMustBeAnsweredOtherwiseNamesItsCause:
// a page given to an anonymous caller, then served byte for byte to a
// caller with a valid token, who must be offered create-new-event, is
// one fault however many reads show it (a cache whose key forgets who
// asked): each finding names that cause, and says whose answer it was.
// A page that merely lacks the link, unlike any answer given before,
// names none.
func TestAnAnswerServedToACallerWhoMustBeAnsweredOtherwiseNamesItsCause(t *testing.T) {
	r, _ := withUser(t)
	anonymous := page(readLinks)
	want(t, "anonymous", r.send("GET", "/api/events?size=5", "", "", 200, jsonType, anonymous))
	for i := range 2 {
		found := r.observe("GET", "/api/events?size=5", "Authorization: Bearer tok-user", "", 200, jsonType, anonymous)
		if got := causes(found); len(got) != 1 || got[0] != "API-4: "+sharedAnswerCause {
			t.Fatalf("read %d with a token, served the anonymous page: %v, want API-4 of the shared answer", i+1, got)
		}
		if !strings.Contains(found[0].Message, "the one given to an anonymous caller") {
			t.Errorf("the finding does not say whose answer it was: %s", found[0].Message)
		}
	}
	found := r.observe("GET", "/api/events?size=6", "Authorization: Bearer tok-user", "", 200, jsonType, page(`"self":{"href":"/api/events?size=6"}`))
	if got := causes(found); len(got) == 0 || strings.Contains(strings.Join(got, " "), sharedAnswerCause) {
		t.Errorf("a page no other caller was given names %v, want findings of no cause", got)
	}
}

// TestAnEventARefusedRequestRemovedIsThatRequestsFault: an event the
// audit saw created, and nobody deleted, that is gone after a DELETE
// refused without a token breaks the refused request's rule (AUTH-3),
// not API-6; every read that finds it gone names the same cause. Gone
// with no refused request before, it breaks API-6.
func TestAnEventARefusedRequestRemovedIsThatRequestsFault(t *testing.T) {
	r, user := withUser(t)
	want(t, "a creation", r.createFirst(""))
	want(t, "gone with nothing refused", r.send("GET", "/api/events/7", "", "", 404, "", ""), "API-6")
	want(t, "a second creation", r.send("POST", "/api/events", user, `{"name":"Second"}`, 201, "Location: /api/events/8\n"+jsonType, `{"id":8,"name":"Second","_links":{"self":{"href":"/api/events/8"}}}`))
	want(t, "a DELETE without a token, refused", r.send("DELETE", "/api/events/8", "", "", 401, "", ""))
	var first string
	for i := range 2 {
		found := r.observe("GET", "/api/events/8", "", "", 404, "", "")
		if len(found) != 1 || found[0].Rule != "AUTH-3" || !strings.Contains(found[0].Cause, "DELETE /api/events/8") {
			t.Fatalf("read %d of the removed event: %v, want AUTH-3 caused by the refused DELETE", i+1, causes(found))
		}
		if i == 1 && found[0].Cause != first {
			t.Errorf("two reads of one removal name two causes: %q and %q", first, found[0].Cause)
		}
		first = found[0].Cause
	}
}
