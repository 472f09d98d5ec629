package audit

import (
	"encoding/base64"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"eventsvc/conformance/repro"
)

const base = "http://target.example"

// rig is an audit of one world, fed exchanges written by hand.
type rig struct {
	t     *testing.T
	a     *Audit
	s     *Scope
	clock time.Time
	n     int // the exchanges fed so far
}

// next numbers the next exchange.
func (r *rig) next() int {
	r.n++
	return r.n - 1
}

func newRig(t *testing.T) *rig {
	a := New(Options{ClientID: "app"})
	return &rig{t: t, a: a, s: a.Scope(base, Place{Name: "a test", File: "test.feature"}), clock: time.Unix(1_800_000_000, 0)}
}

// send feeds the audit an exchange: method and path, the request's
// headers ("Name: value" lines) and body, the answer's status, headers
// and body. It returns the rules of what the audit found.
func (r *rig) send(method, path, reqHeader, reqBody string, status int, respHeader, respBody string) []string {
	r.t.Helper()
	var rules []string
	for _, f := range r.observe(method, path, reqHeader, reqBody, status, respHeader, respBody) {
		rules = append(rules, f.Rule)
	}
	return rules
}

// observe is send, returning the standing findings themselves.
func (r *rig) observe(method, path, reqHeader, reqBody string, status int, respHeader, respBody string) []*Finding {
	r.t.Helper()
	start := r.clock
	r.clock = r.clock.Add(10 * time.Millisecond)
	x := Exchange{Exchange: repro.Exchange{Method: method, URL: base + path, Header: header(reqHeader), Body: []byte(reqBody),
		Status: status, RespHeader: header(respHeader), RespBody: []byte(respBody)}, Start: start, End: r.clock}
	var found []*Finding
	for _, f := range r.s.Observe(x, r.next()) {
		if f.standing() {
			found = append(found, f)
		}
	}
	return found
}

func header(lines string) http.Header {
	h := http.Header{}
	for _, l := range strings.Split(lines, "\n") {
		if name, v, ok := strings.Cut(l, ":"); ok {
			h.Add(strings.TrimSpace(name), strings.TrimSpace(v))
		}
	}
	return h
}

const (
	jsonType = "Content-Type: application/hal+json"
	formType = "Content-Type: application/x-www-form-urlencoded"
	noStore  = "Cache-Control: no-store\nContent-Type: application/json;charset=UTF-8"
)

var client = "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("app:secret")) + "\n" + formType

// login issues tokens for username through the rig, correctly.
func (r *rig) login(username, access, refresh string) {
	r.t.Helper()
	body := `{"access_token":"` + access + `","token_type":"bearer","refresh_token":"` + refresh + `","expires_in":599,"scope":"read write"}`
	if got := r.send("POST", "/oauth/token", client, "grant_type=password&username="+username+"&password=pw", 200, noStore, body); len(got) != 0 {
		r.t.Fatalf("a correct token answer breaks %v", got)
	}
}

// root reads the API root, whose events link names the list.
func (r *rig) root() {
	r.t.Helper()
	if got := r.send("GET", "/api", "", "", 200, jsonType, `{"_links":{"events":{"href":"/api/events"},"profile":{"href":"/docs/index.html"}}}`); len(got) != 0 {
		r.t.Fatalf("a correct root breaks %v", got)
	}
}

func want(t *testing.T, what string, got []string, rules ...string) {
	t.Helper()
	if strings.Join(got, " ") != strings.Join(rules, " ") {
		t.Errorf("%s: the audit found %v, want %v", what, got, rules)
	}
}

// TestEveryTokenAnswerIsChecked: every answer of the token endpoint that
// holds a token, whatever its grant, is checked (TOK-5, TOK-7, TOK-9,
// TOK-15), accepting what RFC 6749 §5.1 allows.
func TestEveryTokenAnswerIsChecked(t *testing.T) {
	for _, tt := range []struct {
		name, form, header, body string
		rules                    []string
	}{
		{"a correct password grant", "grant_type=password&username=u&password=p", noStore, `{"access_token":"a1","token_type":"bearer","refresh_token":"r1","expires_in":600,"scope":"read write"}`, nil},
		{"token_type in another case, scope in another order", "grant_type=password&username=u&password=p", noStore, `{"access_token":"a1","token_type":"Bearer","refresh_token":"r1","expires_in":1,"scope":"write read"}`, nil},
		{"no Cache-Control", "grant_type=password&username=u&password=p", "Content-Type: application/json", `{"access_token":"a1","token_type":"bearer","refresh_token":"r1","expires_in":600,"scope":"read write"}`, []string{"TOK-15"}},
		{"Cache-Control: no-cache", "grant_type=password&username=u&password=p", "Cache-Control: no-cache\n" + jsonType, `{"access_token":"a1","token_type":"bearer","refresh_token":"r1","expires_in":600,"scope":"read write"}`, []string{"TOK-15"}},
		{"no-store among other directives", "grant_type=password&username=u&password=p", "Cache-Control: private, No-Store\n" + jsonType, `{"access_token":"a1","token_type":"bearer","refresh_token":"r1","expires_in":600,"scope":"read write"}`, nil},
		{"a mac token", "grant_type=password&username=u&password=p", noStore, `{"access_token":"a1","token_type":"mac","refresh_token":"r1","expires_in":600,"scope":"read write"}`, []string{"TOK-5"}},
		{"an hour", "grant_type=password&username=u&password=p", noStore, `{"access_token":"a1","token_type":"bearer","refresh_token":"r1","expires_in":3600,"scope":"read write"}`, []string{"TOK-5"}},
		{"expires_in as text", "grant_type=password&username=u&password=p", noStore, `{"access_token":"a1","token_type":"bearer","refresh_token":"r1","expires_in":"600","scope":"read write"}`, []string{"TOK-5"}},
		{"read only, unasked", "grant_type=password&username=u&password=p", noStore, `{"access_token":"a1","token_type":"bearer","refresh_token":"r1","expires_in":600,"scope":"read"}`, []string{"TOK-5"}},
		{"read only, asked", "grant_type=password&username=u&password=p&scope=read", noStore, `{"access_token":"a1","token_type":"bearer","refresh_token":"r1","expires_in":600}`, nil},
		{"a scope beyond the registration, asked and said", "grant_type=password&username=u&password=p&scope=read+admin", noStore, `{"access_token":"a1","token_type":"bearer","refresh_token":"r1","expires_in":600,"scope":"read"}`, nil},
		{"a scope beyond the registration, asked and not said", "grant_type=password&username=u&password=p&scope=read+admin", noStore, `{"access_token":"a1","token_type":"bearer","refresh_token":"r1","expires_in":600}`, []string{"CLI-4"}},
		{"a refresh asking a scope beyond the registration, not said", "grant_type=refresh_token&token=r0&scope=write+delete", noStore, `{"access_token":"a2","token_type":"bearer"}`, []string{"CLI-4"}},
		{"no refresh token", "grant_type=password&username=u&password=p", noStore, `{"access_token":"a1","token_type":"bearer","expires_in":600,"scope":"read write"}`, []string{"TOK-7"}},
		{"a refresh with no scope and no lifetime", "grant_type=refresh_token&token=r0", noStore, `{"access_token":"a2","token_type":"bearer"}`, nil},
		{"a refresh for an hour", "grant_type=refresh_token&token=r0", noStore, `{"access_token":"a2","token_type":"bearer","expires_in":3600}`, []string{"TOK-5"}},
		{"a refresh that may be cached", "grant_type=refresh_token&token=r0", jsonType, `{"access_token":"a2","token_type":"bearer","expires_in":600}`, []string{"TOK-15"}},
		{"client credentials, not supported", "grant_type=client_credentials", noStore, `{"access_token":"a3","token_type":"bearer","expires_in":600}`, []string{"TOK-9"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			want(t, tt.name, r.send("POST", "/oauth/token", client, tt.form, 200, tt.header, tt.body), tt.rules...)
		})
	}
	r := newRig(t)
	want(t, "a refusal", r.send("POST", "/oauth/token", client, "grant_type=password&username=u&password=wrong", 400, "Content-Type: application/json", `{"error":"invalid_grant"}`))
	r.login("u", "a1", "r1")
	want(t, "the same token for another account", r.send("POST", "/oauth/token", client, "grant_type=password&username=v&password=p", 200, noStore,
		`{"access_token":"a1","token_type":"bearer","refresh_token":"r9","expires_in":600,"scope":"read write"}`), "ACC-1")
}

// TestEveryJSONAnswerOfTheAPIIsHAL: every successful JSON answer of
// /api/**, and every resource it lists, holds links keyed by relation,
// each a link with an href or an array of them (SVC-2).
func TestEveryJSONAnswerOfTheAPIIsHAL(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		rules      []string
	}{
		{"links", `{"_links":{"self":{"href":"/api/x"}}}`, nil},
		{"an array of links", `{"_links":{"self":[{"href":"/api/x"},{"href":"/api/y"}]}}`, nil},
		{"no _links", `{"id":1}`, []string{"SVC-2"}},
		{"a null link", `{"_links":{"self":{"href":"/api/x"},"update-event":null}}`, []string{"SVC-2"}},
		{"a link as a string", `{"_links":{"self":"/api/x"}}`, []string{"SVC-2"}},
		{"an empty array", `{"_links":{"self":[]}}`, []string{"SVC-2"}},
		{"an array of strings", `{"_links":{"self":["/api/x"]}}`, []string{"SVC-2"}},
		{"an empty href", `{"_links":{"self":{"href":""}}}`, []string{"SVC-2"}},
		{"a listed event without links", `{"_links":{"self":{"href":"/api/x"}},"_embedded":{"events":[{"_links":{"self":{"href":"/api/x/1"}}},{"id":2}]}}`, []string{"SVC-2"}},
		{"an href that resolves nowhere", `{"_links":{"self":{"href":"http://[::1"}}}`, []string{"API-10"}},
	} {
		r := newRig(t)
		want(t, tt.name, r.send("GET", "/api/x", "", "", 200, jsonType, tt.body), tt.rules...)
	}
	r := newRig(t)
	want(t, "an error that is not HAL", r.send("GET", "/api/x", "", "", 404, jsonType, `{"error":"not found"}`))
	want(t, "a 401 to a read without credentials", r.send("GET", "/api/x", "", "", 401, jsonType, `{"error":"unauthorized"}`), "AUTH-2")
}

// page is a page of the list at /api/events, with the links given.
func page(links string, items ...string) string {
	return `{"_links":{` + links + `},"_embedded":{"events":[` + strings.Join(items, ",") + `]}}`
}

const readLinks = `"self":{"href":"/api/events"},"profile":{"href":"/docs/index.html"},"get-an-event":{"href":"/api/events/{id}","templated":true}`

// TestWhatAPageOffersDependsOnTheCaller: a page of the list offers its
// reading links to everyone, create-new-event to a caller with a valid
// token and nobody else; none of its events offers update-event to a
// caller who does not manage it; callers the audit cannot tell are not
// judged (SVC-3, API-3, API-4, API-8).
func TestWhatAPageOffersDependsOnTheCaller(t *testing.T) {
	create := `,"create-new-event":{"href":"/api/events"}`
	r, _ := withUser(t)
	r.login("other", "tok-other", "ref-other")
	r.s.MadeUp("made-up")
	for _, tt := range []struct {
		name, auth, body string
		rules            []string
	}{
		{"anonymous, reading links", "", page(readLinks), nil},
		{"anonymous, no profile", "", page(`"self":{"href":"/api/events"},"get-an-event":{"href":"/api/events/{id}","templated":true}`), []string{"API-3"}},
		{"a valid token", "Authorization: Bearer tok-user", page(readLinks + create), nil},
		{"a valid token, scheme in lower case", "Authorization: bearer tok-user", page(readLinks + create), nil},
		{"a valid token, not offered a creation", "Authorization: Bearer tok-user", page(readLinks), []string{"API-4"}},
		{"a valid token in another case, not offered a creation", "Authorization: BEARER tok-user", page(readLinks), []string{"SVC-7"}},
		{"a made-up token, offered a creation", "Authorization: Bearer made-up", page(readLinks + create), []string{"API-3"}},
		{"a refresh token, offered a creation", "Authorization: Bearer ref-user", page(readLinks + create), []string{"TOK-13"}},
		{"client credentials, offered a creation", client, page(readLinks + create), []string{"AUTH-1"}},
		{"a token in the query, offered a creation", "", page(readLinks + create), nil},
		{"a token the audit did not see issued", "Authorization: Bearer unknown", page(readLinks), nil},
		{"anonymous, a listed event offers update-event", "", page(readLinks, `{"_links":{"self":{"href":"/api/events/1"},"update-event":{"href":"/api/events/1"}}}`), []string{"API-8"}},
	} {
		path := "/api/events"
		if strings.Contains(tt.name, "query") {
			path += "?access_token=tok-user"
			tt.rules = []string{"SVC-4"}
		}
		want(t, tt.name, r.send("GET", path, tt.auth, "", 200, jsonType, tt.body), tt.rules...)
	}
	r.clock = r.clock.Add(time.Hour)
	want(t, "an expired token, offered a creation: the lifetime rules' to tell", r.send("GET", "/api/events", "Authorization: Bearer tok-user", "", 200, jsonType, page(readLinks+create)))
	// Offered to anyone, the creation was not offered for what a caller
	// sent: the anonymous caller's finding tells the fault alone.
	want(t, "anonymous, offered a creation", r.send("GET", "/api/events", "", "", 200, jsonType, page(readLinks+create)), "API-3")
	want(t, "client credentials, offered a creation where anyone is", r.send("GET", "/api/events", client, "", 200, jsonType, page(readLinks+create)))
}

// userJSON is the headers of a JSON write by "user", whose access token
// is tok-user.
const userJSON = "Authorization: Bearer tok-user\nContent-Type: application/json"

// withUser is a rig that has read the API root and issued "user" its
// tokens (tok-user, refresh ref-user), with the headers of the user's
// JSON writes.
func withUser(t *testing.T) (*rig, string) {
	t.Helper()
	r := newRig(t)
	r.root()
	r.login("user", "tok-user", "ref-user")
	return r, userJSON
}

// createFirst feeds the user's creation of "First", answered as event 7
// with links beside self, and returns the rules of what the audit found.
func (r *rig) createFirst(links string) []string {
	r.t.Helper()
	return r.send("POST", "/api/events", userJSON, `{"name":"First"}`, 201, "Location: /api/events/7\n"+jsonType, eventDoc(`"id":7,"name":"First"`, links))
}

// eventDoc is an event's answer: its fields and links.
func eventDoc(fields, links string) string {
	return `{` + fields + `,"_links":{"self":{"href":"/api/events/7"}` + links + `}}`
}

// TestWritesAndTheReadsAfterThem: a creation makes an event its caller
// manages, at an address of its own (API-6); an update by the manager
// reads back (API-9); a write without a valid token is refused (AUTH-3,
// AUTH-4), and reads after a refused write do not show it; a read during
// an update may show either body; two creations answered with one address
// are API-6, and the reads of that event blame nothing else.
func TestWritesAndTheReadsAfterThem(t *testing.T) {
	r, user := withUser(t)
	r.login("other", "tok-other", "ref-other")
	other := "Authorization: Bearer tok-other\nContent-Type: application/json"
	want(t, "a creation", r.createFirst(""))
	want(t, "the creator reads it", r.send("GET", "/api/events/7", "Authorization: Bearer tok-user", "", 200, jsonType, eventDoc(`"id":7,"name":"First"`, `,"update-event":{"href":"/api/events/7"}`)))
	want(t, "the creator is not offered the update", r.send("GET", "/api/events/7", "Authorization: Bearer tok-user", "", 200, jsonType, eventDoc(`"id":7,"name":"First"`, "")), "API-8")
	want(t, "another user is offered the update", r.send("GET", "/api/events/7", "Authorization: Bearer tok-other", "", 200, jsonType, eventDoc(`"id":7,"name":"First"`, `,"update-event":{"href":"/api/events/7"}`)), "API-8")
	want(t, "it reads back otherwise", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"first"`, "")), "API-6")
	want(t, "an update answered with the old values", r.send("PUT", "/api/events/7", user, `{"name":"Renamed"}`, 200, jsonType, eventDoc(`"id":7,"name":"First"`, "")), "API-9")
	want(t, "it reads back as updated", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"Renamed"`, "")))
	want(t, "the other user's update, refused", r.send("PUT", "/api/events/7", other, `{"name":"Taken"}`, 403, jsonType, `{"error":"access_denied"}`))
	want(t, "it reads back as the refused update", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"Taken"`, "")), "AUTH-6")
	want(t, "the other user's update, refused again", r.send("PUT", "/api/events/7", other, `{"name":"Grabbed"}`, 403, jsonType, `{"error":"access_denied"}`))
	want(t, "it reads back changed to a value no write sent", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"Moved"`, "")), "AUTH-6")
	want(t, "the other user's update, taken", r.send("PUT", "/api/events/7", other, `{"name":"Taken"}`, 200, jsonType, ""), "AUTH-6")
	want(t, "a creation without a token, taken", r.send("POST", "/api/events", "Content-Type: application/json", `{"name":"Sneaky"}`, 201, "Location: /api/events/8", ""), "AUTH-3")
	want(t, "a creation without a token outside /api/, taken", r.send("POST", "/API/EVENTS", "Content-Type: application/json", `{"name":"Sneaky"}`, 201, "", ""), "AUTH-4")
	want(t, "a creation without a token, refused", r.send("POST", "/api/events", "Content-Type: application/json", `{"name":"Sneaky"}`, 401, "", ""))

	// A read sent while an update is under way shows either body; one
	// sent after it shows the update's.
	start := r.clock
	r.clock = r.clock.Add(time.Second)
	want(t, "a read during an update, the old body", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"Renamed"`, "")))
	end := r.clock
	x := Exchange{Exchange: repro.Exchange{Method: "PUT", URL: base + "/api/events/7", Header: header(user), Body: []byte(`{"name":"Again"}`), Status: 204},
		Start: start.Add(-time.Millisecond), End: end.Add(time.Millisecond)}
	r.s.Observe(x, r.next())
	r.clock = r.clock.Add(time.Second)
	want(t, "a read after the update, the old body", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"Renamed"`, "")), "API-9")

	// Two creations answered with one address made one event: who
	// manages it and what it holds are that fault's alone (API-6).
	ninth := func(name, links string) string {
		return `{"id":9,"name":"` + name + `","_links":{"self":{"href":"/api/events/9"}` + links + `}}`
	}
	want(t, "a creation of a ninth event", r.send("POST", "/api/events", user, `{"name":"Ninth"}`, 201, "Location: /api/events/9\n"+jsonType, ninth("Ninth", "")))
	want(t, "a second creation at the same address", r.send("POST", "/api/events", other, `{"name":"Second"}`, 201, "Location: /api/events/9", ""), "API-6")
	want(t, "the second creator is offered the update", r.send("GET", "/api/events/9", "Authorization: Bearer tok-other", "", 200, jsonType, ninth("Second", `,"update-event":{"href":"/api/events/9"}`)))
	want(t, "the first is not, and reads the second's", r.send("GET", "/api/events/9", "Authorization: Bearer tok-user", "", 200, jsonType, ninth("Second", "")))
}

// TestAFindingAboutAValidTokenFallsWhenARefreshRevokedIt: a token the
// audit took for valid, whose refresh token a grant sent before the read
// ended spent, may have been revoked: the finding does not stand.
func TestAFindingAboutAValidTokenFallsWhenARefreshRevokedIt(t *testing.T) {
	r, _ := withUser(t)
	start := r.clock
	want(t, "a page without create-new-event", r.send("GET", "/api/events", "Authorization: Bearer tok-user", "", 200, jsonType, page(readLinks)), "API-4")
	if n := len(r.a.Unclaimed()); n != 1 {
		t.Fatalf("%d findings, want 1", n)
	}
	x := Exchange{Exchange: repro.Exchange{Method: "POST", URL: base + "/oauth/token", Header: header(client), Body: []byte("grant_type=refresh_token&token=ref-user"),
		Status: 200, RespHeader: header(noStore), RespBody: []byte(`{"access_token":"tok-2","token_type":"bearer","expires_in":600}`)}, Start: start.Add(-time.Millisecond), End: r.clock.Add(time.Second)}
	r.s.Observe(x, r.next())
	if n := len(r.a.Unclaimed()); n != 0 {
		t.Errorf("%d findings stand, want none: the token was refreshed while the page was read", n)
	}
}

// TestAnEventWrittenByACallerTheAuditCannotTellIsNotJudged: once a write
// the audit cannot follow succeeded (a token it did not see issued, a body
// that is not JSON), what the event holds is not known, and no read of it
// is judged against the writes it saw.
func TestAnEventWrittenByACallerTheAuditCannotTellIsNotJudged(t *testing.T) {
	for _, c := range []struct{ name, header, body string }{
		{"a token the audit did not see issued", "Authorization: Bearer tok-unseen\nContent-Type: application/json", `{"name":"Renamed"}`},
		{"a body that is not JSON", "Authorization: Bearer tok-user\nContent-Type: text/plain", `name=Renamed`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, _ := withUser(t)
			want(t, "a creation", r.createFirst(""))
			want(t, "a read of another body before the write", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"Renamed"`, "")), "API-6")
			want(t, "the write, taken", r.send("PUT", "/api/events/7", c.header, c.body, 200, "", ""))
			want(t, "a read of its body", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"Renamed"`, "")))
		})
	}
}

func TestLimit(t *testing.T) {
	for max, want := range map[int64]int64{0: MaxFollowed, 4 << 20: MaxFollowed, 1000: 1000, -1: MaxFollowed} {
		if got := Limit(max); got != want {
			t.Errorf("Limit(%d) = %d, want %d", max, got, want)
		}
	}
}

// TestAnUpdateUnderWayWhenTheManagerIsNotOfferedTheLinkIsBlamed: a read
// that does not offer the manager "update-event", answered while the
// manager's update was on its way, may show what that update did: the
// update is blamed (API-9), not the offer (API-8).
func TestAnUpdateUnderWayWhenTheManagerIsNotOfferedTheLinkIsBlamed(t *testing.T) {
	r, user := withUser(t)
	r.createFirst("")
	want(t, "the manager is offered the update", r.send("GET", "/api/events/7", "Authorization: Bearer tok-user", "", 200, jsonType, eventDoc(`"id":7,"name":"First"`, `,"update-event":{"href":"/api/events/7"}`)))
	updateStart := r.clock
	r.clock = r.clock.Add(5 * time.Millisecond)
	readStart := r.clock
	r.clock = r.clock.Add(10 * time.Millisecond)
	read := Exchange{Exchange: repro.Exchange{Method: "GET", URL: base + "/api/events/7", Header: header("Authorization: Bearer tok-user"),
		Status: 200, RespHeader: header(jsonType), RespBody: []byte(eventDoc(`"id":7,"name":"Renamed"`, ""))}, Start: readStart, End: r.clock}
	found := r.s.Observe(read, r.next())
	r.clock = r.clock.Add(5 * time.Millisecond)
	update := Exchange{Exchange: repro.Exchange{Method: "PUT", URL: base + "/api/events/7", Header: header(user), Body: []byte(`{"name":"Renamed"}`),
		Status: 204}, Start: updateStart, End: r.clock}
	r.s.Observe(update, r.next())
	var standing []string
	for _, f := range found {
		if f.standing() {
			standing = append(standing, f.Rule)
		}
	}
	want(t, "a read during the update that does not offer it", standing, "API-9")
}

// TestAReadThatOfferedTheUpdateWhileTheUpdateWasUnderWayIsBeforeIt: the
// audit follows links beside the scenarios, so a read that offers the
// manager "update-event" may start after the manager's update was sent
// and be answered before the target applied it. A later read that no
// longer offers it shows what the update did: the update is blamed
// (API-9), not the offer (API-8).
func TestAReadThatOfferedTheUpdateWhileTheUpdateWasUnderWayIsBeforeIt(t *testing.T) {
	r, user := withUser(t)
	r.createFirst("")
	updateStart := r.clock
	r.clock = r.clock.Add(5 * time.Millisecond)
	offeredStart := r.clock
	r.clock = r.clock.Add(5 * time.Millisecond)
	offered := Exchange{Exchange: repro.Exchange{Method: "GET", URL: base + "/api/events/7", Header: header("Authorization: Bearer tok-user"),
		Status: 200, RespHeader: header(jsonType), RespBody: []byte(eventDoc(`"id":7,"name":"First"`, `,"update-event":{"href":"/api/events/7"}`))}, Start: offeredStart, End: r.clock}
	for _, f := range r.s.Observe(offered, r.next()) {
		t.Errorf("a read answered before the update took effect: the audit found %s", f.Rule)
	}
	r.clock = r.clock.Add(5 * time.Millisecond)
	update := Exchange{Exchange: repro.Exchange{Method: "PUT", URL: base + "/api/events/7", Header: header(user), Body: []byte(`{"name":"Renamed"}`),
		Status: 204}, Start: updateStart, End: r.clock}
	r.s.Observe(update, r.next())
	r.clock = r.clock.Add(5 * time.Millisecond)
	want(t, "a read after the update that does not offer it", r.send("GET", "/api/events/7", "Authorization: Bearer tok-user", "", 200, jsonType, eventDoc(`"id":7,"name":"Renamed"`, "")), "API-9")
}

// TestARefreshedTokensReadThatMetTheUpdateIsNotBlamedOnTheRefresh: a read
// with a token a refresh gave that does not offer its manager
// "update-event" breaks TOK-8 only when the account's plain token was
// offered it with no update in between. A read sent before the manager's
// update and answered after it (the audit follows links beside the
// scenarios' writes) may show what the update did: it is not TOK-8.
func TestARefreshedTokensReadThatMetTheUpdateIsNotBlamedOnTheRefresh(t *testing.T) {
	r, _ := withUser(t)
	r.createFirst(`,"update-event":{"href":"/api/events/7"}`)
	want(t, "the plain token is offered the update", r.send("GET", "/api/events/7", "Authorization: Bearer tok-user", "", 200, jsonType, eventDoc(`"id":7,"name":"First"`, `,"update-event":{"href":"/api/events/7"}`)))
	if got := r.send("POST", "/oauth/token", client, "grant_type=refresh_token&token=ref-user", 200, noStore, `{"access_token":"tok-fresh","token_type":"bearer","refresh_token":"ref-user","expires_in":599,"scope":"read write"}`); len(got) != 0 {
		t.Fatalf("a correct refresh breaks %v", got)
	}
	readStart := r.clock
	r.clock = r.clock.Add(2 * time.Millisecond)
	updateStart := r.clock
	r.clock = r.clock.Add(5 * time.Millisecond)
	fresh := "Authorization: Bearer tok-fresh\nContent-Type: application/json"
	update := Exchange{Exchange: repro.Exchange{Method: "PUT", URL: base + "/api/events/7", Header: header(fresh), Body: []byte(`{"name":"Renamed"}`),
		Status: 204}, Start: updateStart, End: r.clock}
	r.s.Observe(update, r.next())
	r.clock = r.clock.Add(2 * time.Millisecond)
	read := Exchange{Exchange: repro.Exchange{Method: "GET", URL: base + "/api/events/7", Header: header("Authorization: Bearer tok-fresh"),
		Status: 200, RespHeader: header(jsonType), RespBody: []byte(eventDoc(`"id":7,"name":"Renamed"`, ""))}, Start: readStart, End: r.clock}
	var standing []string
	for _, f := range r.s.Observe(read, r.next()) {
		if f.standing() {
			standing = append(standing, f.Rule)
		}
	}
	want(t, "a refreshed token's read sent before the update and answered after it", standing)
}

// TestAnEventManagedByAnotherThanItsCreatorIsTheCreationsFault: when the
// target refuses a creator's update as not its manager's (API-6), the
// update-event it offers another user is that fault, not API-8; before
// the refusal, it is API-8.
func TestAnEventManagedByAnotherThanItsCreatorIsTheCreationsFault(t *testing.T) {
	r, user := withUser(t)
	r.login("other", "tok-other", "ref-other")
	want(t, "a creation", r.createFirst(""))
	offeredOther := eventDoc(`"id":7,"name":"First"`, `,"update-event":{"href":"/api/events/7"}`)
	want(t, "another user is offered the update", r.send("GET", "/api/events/7", "Authorization: Bearer tok-other", "", 200, jsonType, offeredOther), "API-8")
	if rules := unclaimedRules(r.a); !slices.Equal(rules, []string{"API-8"}) {
		t.Fatalf("before the creator's update, %v stand, want API-8", rules)
	}
	want(t, "the creator's update, refused as not the manager's", r.send("PUT", "/api/events/7", user, `{"name":"Renamed"}`, 403, jsonType, `{"error":"access_denied"}`), "API-6")
	if rules := unclaimedRules(r.a); !slices.Equal(rules, []string{"API-6"}) {
		t.Errorf("after it, %v stand, want API-6 alone", rules)
	}
}

// wantStanding fails t unless the rules of a's findings that stand, in
// order, are want; format and args name the case, and a failure logs the
// findings.
func wantStanding(t *testing.T, a *Audit, want []string, format string, args ...any) {
	t.Helper()
	if rules := unclaimedRules(a); !slices.Equal(rules, want) {
		for _, f := range a.Unclaimed() {
			t.Log(f.Rule, f.Message)
		}
		t.Errorf(format+": %v stand, want %v", append(args, rules, want)...)
	}
}

// eachWay runs a case both ways, ifTrue then ifFalse, and wants the
// rules standing after it: ifTrue's or ifFalse's; what names the cases.
func eachWay(t *testing.T, what string, ifTrue, ifFalse []string, run func(way bool) *rig) {
	t.Helper()
	for _, way := range []bool{true, false} {
		want := ifFalse
		if way {
			want = ifTrue
		}
		wantStanding(t, run(way).a, want, "%s %v", what, way)
	}
}

// unclaimedRules are the rules of the findings that stand, in order.
func unclaimedRules(a *Audit) []string {
	var out []string
	for _, f := range a.Unclaimed() {
		out = append(out, f.Rule)
	}
	slices.Sort(out)
	return out
}
