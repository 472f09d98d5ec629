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

// theirs starts a rig where the other user created event 7 and the user
// logged in after it.
func theirs(t *testing.T) *rig {
	r := newRig(t)
	r.root()
	r.login("other", "tok-other", "ref-other")
	r.send("POST", "/api/events", "Authorization: Bearer tok-other\nContent-Type: application/json", `{"name":"Theirs"}`, 201, "Location: /api/events/7\n"+jsonType, eventDoc(`"id":7,"name":"Theirs"`, ""))
	r.login("user", "tok-user", "ref-user")
	return r
}

// grantsMeet observes the user's password grant answered with tok-u2
// and the other user's with tok-o2, at the same moment (beside) or one
// after the other, and moves the clock past them.
func (r *rig) grantsMeet(beside bool) {
	r.t.Helper()
	start := r.clock
	r.grantAt("user", "tok-u2", start, start.Add(20*time.Millisecond))
	otherStart := start.Add(30 * time.Millisecond)
	if beside {
		otherStart = start.Add(5 * time.Millisecond)
	}
	r.grantAt("other", "tok-o2", otherStart, otherStart.Add(20*time.Millisecond))
	r.clock = start.Add(time.Second)
}

// TestATokenThatActsForTheAccountLoggedInBesideIsACC1: a token of the
// user's password grant, answered while the other user's was under way,
// that is offered the update of the other user's event and not of its
// own acts for the other user: ACC-1 alone. The same reads after grants
// one after the other are the events' links' fault (API-8).
func TestATokenThatActsForTheAccountLoggedInBesideIsACC1(t *testing.T) {
	eachWay(t, "grants at the same moment", []string{"ACC-1"}, []string{"API-8", "API-8"}, func(beside bool) *rig {
		r := theirs(t)
		r.send("POST", "/api/events", userJSON, `{"name":"Mine"}`, 201, "Location: /api/events/8\n"+jsonType, `{"id":8,"name":"Mine","_links":{"self":{"href":"/api/events/8"}}}`)

		r.grantsMeet(beside)
		r.send("GET", "/api/events/7", "Authorization: Bearer tok-u2", "", 200, jsonType, eventDoc(`"id":7,"name":"Theirs"`, `,"update-event":{"href":"/api/events/7"}`))
		r.send("GET", "/api/events/8", "Authorization: Bearer tok-u2", "", 200, jsonType, `{"id":8,"name":"Mine","_links":{"self":{"href":"/api/events/8"}}}`)
		return r
	})
}

// TestATokenActsForTheAccountWhoseCredentialsItsGrantSent: a password
// grant that sends the username twice, the other account's in one copy,
// may be refused or read once (RFC 6749 §3.1 binds the client), but the
// token it gets acts for the account whose password it sent; a refresh
// grant that also sends a username, a parameter no refresh takes (RFC
// 6749 §3.2: ignored), gets a token of the refresh token's account.
// Offered the other account's updates and denied its own, the token acts
// for the account its form named beside: ACC-1 for the password grant,
// TOK-8 for the refresh.
func TestATokenActsForTheAccountWhoseCredentialsItsGrantSent(t *testing.T) {
	for _, tt := range []struct {
		name, form string
		want       []string
	}{
		{"the user's username first", "grant_type=password&username=user&username=other&password=pw-user", []string{"ACC-1"}},
		{"the other's username first", "grant_type=password&username=other&username=user&password=pw-user", []string{"ACC-1"}},
		{"a username beside the refresh token", "grant_type=refresh_token&token=ref-user&username=other", []string{"TOK-8"}},
		{"a plain refresh", "grant_type=refresh_token&token=ref-user", []string{"API-8"}},
	} {
		a := New(Options{ClientID: "app", Logins: map[string]string{"user": "pw-user", "other": "pw-other"}})
		r := &rig{t: t, a: a, s: a.Scope(base, Place{Name: "a test", File: "test.feature"}), clock: time.Unix(1_800_000_000, 0)}
		r.root()
		for _, who := range []string{"other", "user"} {
			body := `{"access_token":"tok-` + who + `","token_type":"bearer","refresh_token":"ref-` + who + `","expires_in":599,"scope":"read write"}`
			want(t, tt.name+": "+who+"'s login", r.send("POST", "/oauth/token", client, "grant_type=password&username="+who+"&password=pw-"+who, 200, noStore, body))
		}
		r.send("POST", "/api/events", "Authorization: Bearer tok-other\nContent-Type: application/json", `{"name":"Theirs"}`, 201, "Location: /api/events/7\n"+jsonType, eventDoc(`"id":7,"name":"Theirs"`, ""))
		r.send("POST", "/api/events", userJSON, `{"name":"Mine"}`, 201, "Location: /api/events/8\n"+jsonType, `{"id":8,"name":"Mine","_links":{"self":{"href":"/api/events/8"}}}`)
		want(t, tt.name+": the grant", r.send("POST", "/oauth/token", client, tt.form, 200, noStore,
			`{"access_token":"tok-2","token_type":"bearer","refresh_token":"ref-2","expires_in":599,"scope":"read write"}`))
		r.send("GET", "/api/events/7", "Authorization: Bearer tok-2", "", 200, jsonType, eventDoc(`"id":7,"name":"Theirs"`, `,"update-event":{"href":"/api/events/7"}`))
		r.send("GET", "/api/events/8", "Authorization: Bearer tok-2", "", 200, jsonType, `{"id":8,"name":"Mine","_links":{"self":{"href":"/api/events/8"}}}`)
		wantStanding(t, r.a, tt.want, "%s", tt.name)
	}
}

// TestAnUpdateTakenFromATokenThatActsForTheManagerIsACC1: the user's
// update of the other user's event is refused (403), so the target
// checks who manages it; the same update, taken from the user's token of
// a grant answered at the same moment as the other user's, was taken
// because that token acts for the other user: ACC-1 alone. Taken from a
// token of a grant answered alone, it is AUTH-6.
func TestAnUpdateTakenFromATokenThatActsForTheManagerIsACC1(t *testing.T) {
	eachWay(t, "grants at the same moment", []string{"ACC-1"}, []string{"AUTH-6"}, func(beside bool) *rig {
		r := theirs(t)
		r.send("PUT", "/api/events/7", userJSON, `{"name":"Mine now"}`, 403, "", "")

		r.grantsMeet(beside)
		r.send("PUT", "/api/events/7", "Authorization: Bearer tok-u2\nContent-Type: application/json", `{"name":"Mine now"}`, 204, "", "")
		return r
	})
}

// TestAnUpdateOfItsOwnEventRefusedToATokenIssuedBesideAnother: the
// user's update of the event they created, refused as not the manager's
// to a token of a grant answered at the same moment as the other user's,
// is the token's fault (ACC-1) when another of the user's tokens was
// offered that event's update; with no such evidence it tells neither
// fault apart, and nothing stands; refused to a token of a grant answered
// alone, it is the creation's fault (API-6).
func TestAnUpdateOfItsOwnEventRefusedToATokenIssuedBesideAnother(t *testing.T) {
	for _, tc := range []struct {
		beside, offered bool
		want            []string
	}{{true, true, []string{"ACC-1"}}, {true, false, nil}, {false, true, []string{"API-6"}}} {
		r := newRig(t)
		r.root()
		r.login("other", "tok-other", "ref-other")
		r.login("user", "tok-user", "ref-user")
		r.send("POST", "/api/events", userJSON, `{"name":"Mine"}`, 201, "Location: /api/events/7\n"+jsonType, eventDoc(`"id":7,"name":"Mine"`, ""))
		if tc.offered {
			r.send("GET", "/api/events/7", "Authorization: Bearer tok-user", "", 200, jsonType, eventDoc(`"id":7,"name":"Mine"`, `,"update-event":{"href":"/api/events/7"}`))
		}
		r.grantsMeet(tc.beside)
		r.send("PUT", "/api/events/7", "Authorization: Bearer tok-u2\nContent-Type: application/json", `{"name":"Renamed"}`, 403, "", "")
		wantStanding(t, r.a, tc.want, "beside %v, offered before %v", tc.beside, tc.offered)
	}
}

// TestAnOfferToATokenIssuedBesideTheManagerAloneBlamesNothing: a token of
// the user's grant answered at the same moment as the other user's,
// offered the update of the other user's event, and not seen read its
// own, may act for the other user or meet the links' fault: nothing
// stands; another token of the user's offered it too shows the links'
// fault (API-8).
func TestAnOfferToATokenIssuedBesideTheManagerAloneBlamesNothing(t *testing.T) {
	eachWay(t, "another token offered it before", []string{"API-8", "API-8"}, nil, func(before bool) *rig {
		r := theirs(t)
		theirs := eventDoc(`"id":7,"name":"Theirs"`, `,"update-event":{"href":"/api/events/7"}`)
		if before {
			r.send("GET", "/api/events/7", "Authorization: Bearer tok-user", "", 200, jsonType, theirs)
		}
		r.grantsMeet(true)
		r.send("GET", "/api/events/7", "Authorization: Bearer tok-u2", "", 200, jsonType, theirs)
		return r
	})
}

// TestAUsernameSentTwiceWithAPasswordBothAccountsHoldTellsNothing: when
// both accounts have the password sent, a target that reads either copy
// of the username is right, and its token's reads blame nothing.
func TestAUsernameSentTwiceWithAPasswordBothAccountsHoldTellsNothing(t *testing.T) {
	a := New(Options{ClientID: "app", Logins: map[string]string{"user": "pw", "other": "pw"}})
	r := &rig{t: t, a: a, s: a.Scope(base, Place{Name: "a test", File: "test.feature"}), clock: time.Unix(1_800_000_000, 0)}
	r.root()
	for _, who := range []string{"other", "user"} {
		r.login(who, "tok-"+who, "ref-"+who)
	}
	r.send("POST", "/api/events", "Authorization: Bearer tok-other\nContent-Type: application/json", `{"name":"Theirs"}`, 201, "Location: /api/events/7\n"+jsonType, eventDoc(`"id":7,"name":"Theirs"`, ""))
	r.send("POST", "/api/events", userJSON, `{"name":"Mine"}`, 201, "Location: /api/events/8\n"+jsonType, `{"id":8,"name":"Mine","_links":{"self":{"href":"/api/events/8"}}}`)
	r.send("POST", "/oauth/token", client, "grant_type=password&username=user&username=other&password=pw", 200, noStore, `{"access_token":"tok-2","token_type":"bearer","refresh_token":"ref-2","expires_in":599,"scope":"read write"}`)
	r.send("GET", "/api/events/7", "Authorization: Bearer tok-2", "", 200, jsonType, eventDoc(`"id":7,"name":"Theirs"`, `,"update-event":{"href":"/api/events/7"}`))
	r.send("GET", "/api/events/8", "Authorization: Bearer tok-2", "", 200, jsonType, `{"id":8,"name":"Mine","_links":{"self":{"href":"/api/events/8"}}}`)
	if rules := unclaimedRules(r.a); len(rules) != 0 {
		t.Errorf("%v stand, want none", rules)
	}
}

// TestGrantsToAnotherServerDoNotMeet: a password grant of the other
// account, answered at the same moment by another server of the run,
// did not meet the user's: the user's token is plain, and its offer of
// the other user's update is the links' fault (API-8).
func TestGrantsToAnotherServerDoNotMeet(t *testing.T) {
	r := theirs(t)
	elsewhere := r.a.Scope("http://elsewhere.example", Place{Name: "another server", File: "test.feature"})
	start := r.clock
	r.grantAt("user", "tok-u2", start, start.Add(20*time.Millisecond))
	body := `{"access_token":"tok-o9","token_type":"bearer","refresh_token":"ref-o9","expires_in":599,"scope":"read write"}`
	elsewhere.Observe(Exchange{Exchange: repro.Exchange{Method: "POST", URL: "http://elsewhere.example/oauth/token", Header: header(client), Body: []byte("grant_type=password&username=other&password=pw"),
		Status: 200, RespHeader: header(noStore), RespBody: []byte(body)}, Start: start.Add(5 * time.Millisecond), End: start.Add(25 * time.Millisecond)}, 0)
	r.clock = start.Add(time.Second)
	r.send("GET", "/api/events/7", "Authorization: Bearer tok-u2", "", 200, jsonType, eventDoc(`"id":7,"name":"Theirs"`, `,"update-event":{"href":"/api/events/7"}`))
	if rules := unclaimedRules(r.a); !slices.Equal(rules, []string{"API-8"}) {
		t.Errorf("%v stand, want [API-8]", rules)
	}
}
