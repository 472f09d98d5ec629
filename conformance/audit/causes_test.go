package audit

import (
	"slices"
	"strings"
	"testing"
	"time"

	"eventsvc/conformance/repro"
	"eventsvc/internal/redact"
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

// TestARefusedRequestRemovedNothingAReadShowedAfterIt: a refused DELETE
// followed by a read that shows the event there removed nothing: the
// event gone after that read breaks API-6. A refused write of another
// method, or one answered as if the event were already gone, removed
// nothing the audit can tell either.
func TestARefusedRequestRemovedNothingAReadShowedAfterIt(t *testing.T) {
	r := newRig(t)
	r.root()
	r.login("user", "tok-user", "ref-user")
	r.login("other", "tok-other", "ref-other")
	user := "Authorization: Bearer tok-user\nContent-Type: application/json"
	other := "Authorization: Bearer tok-other\nContent-Type: application/json"
	want(t, "a creation", r.send("POST", "/api/events", user, `{"name":"First"}`, 201, "Location: /api/events/7\n"+jsonType, eventDoc(`"id":7,"name":"First"`, "")))
	want(t, "a DELETE without a token, refused", r.send("DELETE", "/api/events/7", "", "", 401, "", ""))
	want(t, "it is still there", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"First"`, "")))
	want(t, "gone after it was seen there", r.send("GET", "/api/events/7", "", "", 404, "", ""), "API-6")

	r.send("POST", "/api/events", user, `{"name":"Second"}`, 201, "Location: /api/events/8\n"+jsonType, `{"id":8,"name":"Second","_links":{"self":{"href":"/api/events/8"}}}`)
	want(t, "the other user's update, refused", r.send("PUT", "/api/events/8", other, `{"name":"Theirs"}`, 403, "", ""))
	want(t, "a DELETE without a token answered as if it were gone", r.send("DELETE", "/api/events/8", "", "", 404, "", ""))
	want(t, "gone after refused writes that removed nothing", r.send("GET", "/api/events/8", "", "", 404, "", ""), "API-6")
}

// TestOnlyWhatDependsOnTheCallerNamesTheSharedAnswer: of the findings
// about an answer served to a caller who must be offered otherwise, only
// those about what depends on the caller (the actions offered) name the
// shared answer as their cause; a page that lacks its profile link lacks
// it whoever asks.
func TestOnlyWhatDependsOnTheCallerNamesTheSharedAnswer(t *testing.T) {
	r := newRig(t)
	r.root()
	r.login("user", "tok-user", "ref-user")
	noProfile := page(`"self":{"href":"/api/events"},"get-an-event":{"href":"/api/events/{id}","templated":true}`)
	r.send("GET", "/api/events", "", "", 200, jsonType, noProfile)
	for _, f := range r.observe("GET", "/api/events", "Authorization: Bearer tok-user", "", 200, jsonType, noProfile) {
		shared := f.Cause == sharedAnswerCause
		if about := strings.Contains(f.Message, "create-new-event"); shared != about {
			t.Errorf("%s: %s names the cause %q", f.Rule, f.Message, f.Cause)
		}
	}
}

// TestACauseIsMasked: a cause holds what the target sent (an address, a
// relation's name), masked as the message is.
func TestACauseIsMasked(t *testing.T) {
	a := New(Options{ClientID: "app", Redactor: redact.New("s3cr3t-value")})
	r := &rig{t: t, a: a, s: a.Scope(base, Place{Name: "a test", File: "test.feature"}), clock: time.Unix(1_800_000_000, 0)}
	r.root()
	r.login("user", "tok-user", "ref-user")
	user := "Authorization: Bearer tok-user\nContent-Type: application/json"
	r.send("POST", "/api/events", user, `{"name":"First"}`, 201, "Location: /api/events/9?k=s3cr3t-value\n"+jsonType, `{"id":9,"name":"First","_links":{"self":{"href":"/api/events/9?k=s3cr3t-value"}}}`)
	r.send("DELETE", "/api/events/9?k=s3cr3t-value", "", "", 401, "", "")
	found := r.observe("GET", "/api/events/9?k=s3cr3t-value", "", "", 404, "", "")
	if len(found) == 0 || found[0].Cause == "" {
		t.Fatalf("no finding with a cause: %v", causes(found))
	}
	for _, f := range found {
		if strings.Contains(f.Cause, "s3cr3t-value") || strings.Contains(f.Message, "s3cr3t-value") {
			t.Errorf("a secret shows in the finding: cause %q, message %q", f.Cause, f.Message)
		}
	}
}

// TestAListedEventUnderAnotherEventsLinkIsNotReadBackAsThatEvent: a page
// that lists an event whose id says it is another than the one its self
// link names is judged by where that link leads (API-10), not read back
// as the event the link names (API-6): one fault, its rule alone. A
// listed event whose id is the one its link names is read back.
func TestAListedEventUnderAnotherEventsLinkIsNotReadBackAsThatEvent(t *testing.T) {
	r := newRig(t)
	r.root()
	r.login("user", "tok-user", "ref-user")
	user := "Authorization: Bearer tok-user\nContent-Type: application/json"
	r.send("POST", "/api/events", user, `{"name":"First"}`, 201, "Location: /api/events/7\n"+jsonType, eventDoc(`"id":7,"name":"First"`, ""))
	r.send("POST", "/api/events", user, `{"name":"Second"}`, 201, "Location: /api/events/8\n"+jsonType, `{"id":8,"name":"Second","_links":{"self":{"href":"/api/events/8"}}}`)
	other := `{"id":8,"name":"Second","_links":{"self":{"href":"/api/events/7"}}}`
	want(t, "the second event listed under the first one's link", r.send("GET", "/api/events", "", "", 200, jsonType, page(readLinks, other)))
	wrong := `{"id":7,"name":"Renamed","_links":{"self":{"href":"/api/events/7"}}}`
	want(t, "the first event listed renamed", r.send("GET", "/api/events", "", "", 200, jsonType, page(readLinks, wrong)), "API-6")
}

// TestTheLinksOfAnAnswerThatMustNotBeAreNotFollowed: the answer to a
// write taken without a valid token must not be; its refusal is the
// finding, and where its links lead tells nothing more (a self link
// built from an address the write should never have been taken at). The
// answer to a write taken from a valid token is followed.
func TestTheLinksOfAnAnswerThatMustNotBeAreNotFollowed(t *testing.T) {
	r := newRig(t)
	r.root()
	r.login("user", "tok-user", "ref-user")
	w := r.a.world(r.s.worldNow())
	observe := func(auth string) *observed {
		x := Exchange{Exchange: repro.Exchange{Method: "POST", URL: base + "/api/./events", Header: header(auth + "\nContent-Type: application/json"), Body: []byte(`{"name":"x"}`),
			Status: 201, RespHeader: header(jsonType), RespBody: []byte(`{"id":9,"_links":{"self":{"href":"/api/./events/9"}}}`)}, Start: r.clock, End: r.clock}
		return newObserved(w, x)
	}
	if o := observe(""); o.followable() {
		t.Error("the links of a creation taken without a token are followed")
	}
	if o := observe("Authorization: Bearer tok-user"); !o.followable() {
		t.Error("the links of a creation taken from a valid token are not followed")
	}
}

// TestAWriteTakenFromAnyoneIsNotTheRefreshTokensFault: a creation taken
// with a refresh token as the bearer token breaks TOK-13, until the same
// creation is seen taken from an anonymous caller: then it was taken
// from anyone, whatever was sent, and the fault is AUTH-3's alone. A
// creation at another address taken from anyone leaves it standing.
func TestAWriteTakenFromAnyoneIsNotTheRefreshTokensFault(t *testing.T) {
	r, _ := withUser(t)
	created := func(id string) (int, string, string) {
		return 201, "Location: /api/events/" + id + "\n" + jsonType, `{"id":` + id + `,"name":"Taken","_links":{"self":{"href":"/api/events/` + id + `"}}}`
	}
	status, h, body := created("7")
	withRefresh := r.observe("POST", "/api//events", "Authorization: Bearer ref-user", `{"name":"Taken"}`, status, h, body)
	if len(withRefresh) != 1 || withRefresh[0].Rule != "TOK-13" || !withRefresh[0].Stands() {
		t.Fatalf("a creation taken with a refresh token: %v, want TOK-13, standing", causes(withRefresh))
	}
	status, h, body = created("8")
	want(t, "a creation at another address taken from anyone", r.send("POST", "/api///events", "", `{"name":"Taken"}`, status, h, body), "AUTH-3")
	if !withRefresh[0].Stands() {
		t.Fatalf("TOK-13 no longer stands after a creation at another address was taken from anyone")
	}
	status, h, body = created("9")
	want(t, "the same creation taken from anyone", r.send("POST", "/api//events", "", `{"name":"Taken"}`, status, h, body), "AUTH-3")
	if withRefresh[0].Stands() {
		t.Errorf("TOK-13 still stands after the same creation was taken from anyone: the fault is AUTH-3's alone")
	}
}

// TestAStaleAnswerAfterARefusedWriteIsTheUpdatesFault: after an update
// the manager took and a read that showed it, another user's update is
// refused; a read then shows the event as it was before the manager's
// update, byte for byte an earlier version: a stale answer (a cache the
// update did not purge), which breaks API-9, not the refused write's
// AUTH-6. A read that shows what no write sent still blames the refusal.
func TestAStaleAnswerAfterARefusedWriteIsTheUpdatesFault(t *testing.T) {
	r, user := withUser(t)
	r.login("other", "tok-other", "ref-other")
	want(t, "a creation", r.createFirst(`,"update-event":{"href":"/api/events/7"}`))
	r.clock = r.clock.Add(time.Second)
	want(t, "an update", r.send("PUT", "/api/events/7", user, `{"name":"Second"}`, 200, jsonType, eventDoc(`"id":7,"name":"Second"`, `,"update-event":{"href":"/api/events/7"}`)))
	r.clock = r.clock.Add(time.Second)
	want(t, "a read of the update", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"Second"`, "")))
	r.clock = r.clock.Add(time.Second)
	want(t, "another user's update, refused", r.send("PUT", "/api/events/7", "Authorization: Bearer tok-other\nContent-Type: application/json", `{"name":"Third"}`, 403, "", ""))
	r.clock = r.clock.Add(time.Second)
	want(t, "a stale read", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"First"`, "")), "API-9")
	want(t, "a read of what nobody wrote", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"Fourth"`, "")), "AUTH-6")
}

// TestAManagerServedAnAnswerGivenToAnotherIsAPIEight: after an update, an
// event read by its manager without "update-event", byte for byte the
// answer given to an anonymous caller, is the shared answer's fault,
// API-8, not an update that took the link away (API-9), unless the
// manager's next update is refused.
func TestAManagerServedAnAnswerGivenToAnotherIsAPIEight(t *testing.T) {
	r, user := withUser(t)
	want(t, "a creation", r.createFirst(""))
	want(t, "the manager is offered the update", r.send("GET", "/api/events/7", "Authorization: Bearer tok-user", "", 200, jsonType, eventDoc(`"id":7,"name":"First"`, `,"update-event":{"href":"/api/events/7"}`)))
	want(t, "an update", r.send("PUT", "/api/events/7", user, `{"name":"Renamed"}`, 200, jsonType, eventDoc(`"id":7,"name":"Renamed"`, "")))
	anonymous := eventDoc(`"id":7,"name":"Renamed"`, "")
	want(t, "an anonymous read", r.send("GET", "/api/events/7", "", "", 200, jsonType, anonymous))
	r.send("GET", "/api/events/7", "Authorization: Bearer tok-user", "", 200, jsonType, anonymous)
	if rules := unclaimedRules(r.a); !slices.Equal(rules, []string{"API-8"}) {
		t.Errorf("%v stand, want API-8 alone", rules)
	}
	// Unless the manager's next update is refused: the update took the
	// manager away, and the same answer is anyone's.
	want(t, "the manager's update, refused", r.send("PUT", "/api/events/7", user, `{"name":"Again"}`, 403, jsonType, `{"error":"access_denied"}`), "API-9")
	if rules := unclaimedRules(r.a); !slices.Equal(rules, []string{"API-9", "API-9"}) {
		t.Errorf("after the manager's refused update, %v stand, want API-9 (the read and the refusal)", rules)
	}
}

// TestAStaleReadIsNoRefusedWritesDoing: a read that shows, after an update
// was taken, the event as another user's refused write sent it, which is
// also how it was before that update, is a stale answer (API-9): had the
// refused write been taken, the update would have replaced it.
func TestAStaleReadIsNoRefusedWritesDoing(t *testing.T) {
	r, user := withUser(t)
	r.login("other", "tok-other", "ref-other")
	other := "Authorization: Bearer tok-other\nContent-Type: application/json"
	want(t, "a creation", r.createFirst(""))
	want(t, "the other user's update, as it is, refused", r.send("PUT", "/api/events/7", other, `{"name":"First"}`, 403, jsonType, `{"error":"access_denied"}`))
	want(t, "the manager's update", r.send("PUT", "/api/events/7", user, `{"name":"Renamed"}`, 200, jsonType, eventDoc(`"id":7,"name":"Renamed"`, "")))
	r.clock = r.clock.Add(time.Second) // the update's answer long read
	want(t, "a stale read", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"First"`, "")), "API-9")
}
