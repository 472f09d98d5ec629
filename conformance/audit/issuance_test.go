package audit

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"eventsvc/conformance/repro"
)

// newLoginRig is a rig whose audit knows the run's credentials: client
// "app" with secret "secret", accounts u@x.example (password "pw") and
// v@x.example ("pv").
func newLoginRig(t *testing.T) *rig {
	a := New(Options{ClientID: "app", ClientSecret: "secret", Logins: map[string]string{"u@x.example": "pw", "v@x.example": "pv"}})
	return &rig{t: t, a: a, s: a.Scope(base, Place{Name: "a test", File: "test.feature"}), clock: time.Unix(1_800_000_000, 0)}
}

func basicOf(id, secret string) string {
	return "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(id+":"+secret)) + "\n" + formType
}

const issued = `{"access_token":"a1","token_type":"bearer","refresh_token":"r1","expires_in":600,"scope":"read write"}`

// TestATokenIsIssuedForExactCredentialsAlone: whatever else a token
// request holds, a token is issued only for the client's and an account's
// exact credentials in a form-encoded POST (TOK-1, TOK-2, TOK-3, TOK-10,
// TOK-14); a client whose Basic authentication failed is answered 401 and
// challenged for Basic (TOK-16); and a well-formed grant with the exact
// credentials is not refused (TOK-3, SVC-7).
func TestATokenIsIssuedForExactCredentialsAlone(t *testing.T) {
	refused := `{"error":"invalid_grant"}`
	challenge := "WWW-Authenticate: Basic realm=\"oauth\"\n" + jsonType
	for _, tt := range []struct {
		name, method, path, header, body string
		status                           int
		respHeader, respBody             string
		rules                            []string
	}{
		{"the exact credentials, issued", "POST", "/oauth/token", client, "grant_type=password&username=u@x.example&password=pw", 200, noStore, issued, nil},
		{"the exact credentials, scheme basic, issued", "POST", "/oauth/token", "Authorization: basic " + base64.StdEncoding.EncodeToString([]byte("app:secret")) + "\n" + formType, "grant_type=password&username=u@x.example&password=pw", 200, noStore, issued, nil},
		{"the username in another case, issued", "POST", "/oauth/token", client, "grant_type=password&username=U@X.example&password=pw", 200, noStore, issued, nil},
		{"the client's credentials in the form, issued (RFC 6749 §2.3.1)", "POST", "/oauth/token", formType, "grant_type=password&username=u@x.example&password=pw&client_id=app&client_secret=secret", 200, noStore, issued, nil},
		{"a password with a character more", "POST", "/oauth/token", client, "grant_type=password&username=u@x.example&password=pw%20", 200, noStore, issued, []string{"TOK-3"}},
		{"the other account's password", "POST", "/oauth/token", client, "grant_type=password&username=u@x.example&password=pv", 200, noStore, issued, []string{"TOK-3"}},
		{"no password", "POST", "/oauth/token", client, "grant_type=password&username=u@x.example", 200, noStore, issued, []string{"TOK-3"}},
		{"a made-up username", "POST", "/oauth/token", client, "grant_type=password&username=nobody-1@example.invalid&password=pw", 200, noStore, issued, []string{"TOK-3"}},
		{"an account the audit does not know, not judged", "POST", "/oauth/token", client, "grant_type=password&username=w@x.example&password=pw", 200, noStore, issued, nil},
		{"a wrong client secret", "POST", "/oauth/token", basicOf("app", "secreT"), "grant_type=password&username=u@x.example&password=pw", 200, noStore, issued, []string{"TOK-1"}},
		{"no client authentication", "POST", "/oauth/token", formType, "grant_type=password&username=u@x.example&password=pw", 200, noStore, issued, []string{"TOK-1"}},
		{"the client's id alone in the form", "POST", "/oauth/token", formType, "grant_type=password&username=u@x.example&password=pw&client_id=app", 200, noStore, issued, []string{"TOK-1"}},
		{"an account's credentials as the client's", "POST", "/oauth/token", basicOf("u@x.example", "pw"), "grant_type=password&username=u@x.example&password=pw", 200, noStore, issued, []string{"TOK-10"}},
		{"the client's credentials as an account's", "POST", "/oauth/token", client, "grant_type=password&username=app&password=secret", 200, noStore, issued, []string{"TOK-10"}},
		{"the parameters in the query of a POST: a server may take them (RFC 6749 §3.2 binds the client)", "POST", "/oauth/token?grant_type=password&username=u@x.example&password=pw", client, "", 200, noStore, issued, nil},
		{"the parameters in the query of a GET: a server may take them", "GET", "/oauth/token?grant_type=password&username=u@x.example&password=pw", client, "", 200, noStore, issued, nil},
		{"the parameters in a JSON body", "POST", "/oauth/token", "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("app:secret")) + "\nContent-Type: application/json", `{"grant_type":"password","username":"u@x.example","password":"pw"}`, 200, noStore, issued, []string{"TOK-2"}},
		{"a wrong password, refused", "POST", "/oauth/token", client, "grant_type=password&username=u@x.example&password=px", 400, jsonType, refused, nil},
		{"a wrong password, answered 200 without a token", "POST", "/oauth/token", client, "grant_type=password&username=u@x.example&password=px", 200, jsonType, `{}`, []string{"TOK-3"}},
		{"a wrong secret, 401 challenged for Basic", "POST", "/oauth/token", basicOf("app", "x"), "grant_type=password&username=u@x.example&password=pw", 401, challenge, `{"error":"invalid_client"}`, nil},
		{"a wrong secret, 400", "POST", "/oauth/token", basicOf("app", "x"), "grant_type=password&username=u@x.example&password=pw", 400, jsonType, `{"error":"invalid_client"}`, []string{"TOK-16"}},
		{"a wrong secret, 401 not challenged", "POST", "/oauth/token", basicOf("app", "x"), "grant_type=password&username=u@x.example&password=pw", 401, jsonType, `{"error":"invalid_client"}`, []string{"TOK-16"}},
		{"the exact credentials, refused", "POST", "/oauth/token", client, "grant_type=password&username=u@x.example&password=pw", 400, jsonType, refused, []string{"TOK-3"}},
		{"the exact credentials, scheme BASIC, refused", "POST", "/oauth/token", "Authorization: BASIC " + base64.StdEncoding.EncodeToString([]byte("app:secret")) + "\n" + formType, "grant_type=password&username=u@x.example&password=pw", 401, jsonType, refused, []string{"SVC-7"}},
		{"the exact credentials, throttled", "POST", "/oauth/token", client, "grant_type=password&username=u@x.example&password=pw", 429, jsonType, `{}`, nil},
		{"the exact credentials and a scope beyond the client's, refused", "POST", "/oauth/token", client, "grant_type=password&username=u@x.example&password=pw&scope=admin", 400, jsonType, `{"error":"invalid_scope"}`, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newLoginRig(t)
			r.s.MadeUp("nobody-1@example.invalid")
			want(t, tt.name, r.send(tt.method, tt.path, tt.header, tt.body, tt.status, tt.respHeader, tt.respBody), tt.rules...)
		})
	}
}

// TestARefreshIsJudgedByTheTokenItSends: a refresh grant yields a token
// for a refresh token the target issued to the client, not for an
// access token (TOK-14) or a made-up one (TOK-4); one with a live refresh
// token is not refused (TOK-4) until an answer replaced it with another
// (RFC 6749 §6), however often it was sent; once replaced, it is not
// judged.
func TestARefreshIsJudgedByTheTokenItSends(t *testing.T) {
	newer := `{"access_token":"a2","token_type":"bearer","refresh_token":"r2","expires_in":600}`
	r := newLoginRig(t)
	r.s.MadeUp("made-up")
	r.login("u@x.example", "a1", "r1")
	want(t, "an access token as the refresh token", r.send("POST", "/oauth/token", client, "grant_type=refresh_token&token=a1", 200, noStore, newer), "TOK-14")
	want(t, "a made-up refresh token", r.send("POST", "/oauth/token", client, "grant_type=refresh_token&token=made-up", 200, noStore, `{"access_token":"a3","token_type":"bearer"}`), "TOK-4")
	want(t, "an access token as the refresh token, refused", r.send("POST", "/oauth/token", client, "grant_type=refresh_token&token=a1", 400, jsonType, `{"error":"invalid_grant"}`))

	r = newLoginRig(t)
	r.login("u@x.example", "a1", "r1")
	want(t, "a live refresh token with a username beside, refused", r.send("POST", "/oauth/token", client, "grant_type=refresh_token&token=r1&username=v@x.example", 400, jsonType, `{"error":"invalid_request"}`))
	want(t, "a live refresh token, refused", r.send("POST", "/oauth/token", client, "grant_type=refresh_token&token=r1", 400, jsonType, `{"error":"invalid_grant"}`), "TOK-4")
	want(t, "the same refresh token again, refused: no answer replaced it", r.send("POST", "/oauth/token", client, "grant_type=refresh_token&refresh_token=r1", 400, jsonType, `{"error":"invalid_grant"}`), "TOK-4")
	r.login("u@x.example", "a5", "r5")
	want(t, "a live refresh token, taken", r.send("POST", "/oauth/token", client, "grant_type=refresh_token&refresh_token=r5", 200, noStore, `{"access_token":"a6","token_type":"bearer","refresh_token":"r5","expires_in":600}`))
	want(t, "the same refresh token again, taken", r.send("POST", "/oauth/token", client, "grant_type=refresh_token&refresh_token=r5", 200, noStore, `{"access_token":"a7","token_type":"bearer","refresh_token":"r6","expires_in":600}`))
	want(t, "the same refresh token again, refused: an answer replaced it", r.send("POST", "/oauth/token", client, "grant_type=refresh_token&refresh_token=r5", 400, jsonType, `{"error":"invalid_grant"}`))
}

// TestIssuanceIsNotJudgedOnAServerOfOtherAccounts: on a server the
// scenario started with accounts of its own (Scope.Move), a password the
// run does not know may be right.
func TestIssuanceIsNotJudgedOnAServerOfOtherAccounts(t *testing.T) {
	r := newLoginRig(t)
	r.s.Move(base, false)
	want(t, "another password on a server of other accounts", r.send("POST", "/oauth/token", client, "grant_type=password&username=u@x.example&password=other", 200, noStore, issued))
	r.s.Move(base, true)
	want(t, "another password on a server of the run's accounts", r.send("POST", "/oauth/token", client, "grant_type=password&username=u@x.example&password=other", 200, noStore, issued), "TOK-3")
}

// TestTheReferenceServersChoicesAreJudgedWithRef: taken for the reference
// server (Options.Ref), a refused token request carries the error the
// reference server chose for its fault (TOK-11), and a write without a
// valid token is answered 401 challenged for Bearer (AUTH-7); otherwise
// neither is judged.
func TestTheReferenceServersChoicesAreJudgedWithRef(t *testing.T) {
	for _, ref := range []bool{false, true} {
		a := New(Options{ClientID: "app", ClientSecret: "secret", Logins: map[string]string{"u@x.example": "pw"}, Ref: ref})
		r := &rig{t: t, a: a, s: a.Scope(base, Place{Name: "a test", File: "test.feature"}), clock: time.Unix(1_800_000_000, 0)}
		judged := func(rules ...string) []string {
			if ref {
				return rules
			}
			return nil
		}
		want(t, "a wrong password, 400 invalid_grant", r.send("POST", "/oauth/token", client, "grant_type=password&username=u@x.example&password=px", 400, jsonType, `{"error":"invalid_grant"}`))
		want(t, "a wrong password, 401 invalid_client", r.send("POST", "/oauth/token", client, "grant_type=password&username=u@x.example&password=px", 401, jsonType, `{"error":"invalid_client"}`), judged("TOK-11")...)
		want(t, "no password, 400 invalid_request", r.send("POST", "/oauth/token", client, "grant_type=password&username=u@x.example", 400, jsonType, `{"error":"invalid_request"}`))
		want(t, "a wrong secret, 401 invalid_client", r.send("POST", "/oauth/token", basicOf("app", "x"), "grant_type=password&username=u@x.example&password=pw", 401, "WWW-Authenticate: Basic\n"+jsonType, `{"error":"invalid_client"}`))
		want(t, "a write without a token, 401 challenged", r.send("POST", "/api/events", "Content-Type: application/json", `{}`, 401, "WWW-Authenticate: Bearer", ``))
		want(t, "a write without a token, 403", r.send("POST", "/api/events", "Content-Type: application/json", `{}`, 403, "", ``), judged("AUTH-7")...)
		want(t, "a token for the parameters in the query of a GET", r.send("GET", "/oauth/token?grant_type=password&username=u@x.example&password=pw", strings.Split(client, "\n")[0], "", 200, noStore, issued), judged("TOK-2")...)
		want(t, "a token for the client's credentials in the form", r.send("POST", "/oauth/token", formType, "grant_type=password&username=u@x.example&password=pw&client_id=app&client_secret=secret", 200, noStore, issued), judged("TOK-1")...)
	}
}

// TestRefreshesSentAtOnceAreJudgedByEveryOrderOfThem: refreshes of one
// refresh token sent at the same time give what some order of them
// gives: the first is taken, and a later one is refused only when an
// answer replaced the refresh token (RFC 6749 §6); otherwise the refusal
// breaks TOK-4, whether the refresh token came back or none did.
func TestRefreshesSentAtOnceAreJudgedByEveryOrderOfThem(t *testing.T) {
	refused := `{"error":"invalid_grant"}`
	taken := func(refresh string) string {
		if refresh == "" {
			return `{"access_token":"a2","token_type":"bearer","expires_in":600}`
		}
		return `{"access_token":"a2","token_type":"bearer","refresh_token":"` + refresh + `","expires_in":600}`
	}
	for _, tt := range []struct {
		name    string
		answers []string // "" for refused
		want    []string // the rules found of the refused ones, in order
	}{
		{"both taken, neither replaced it", []string{taken(""), taken("")}, nil},
		{"one taken that replaced it, one refused", []string{taken("r2"), ""}, nil},
		{"one refused, one taken that replaced it", []string{"", taken("r2")}, nil},
		{"one taken that gave it again, one refused", []string{taken("r1"), ""}, []string{"TOK-4"}},
		{"one taken without a refresh token, one refused", []string{taken(""), ""}, []string{"TOK-4"}},
		{"both refused", []string{"", ""}, []string{"TOK-4", "TOK-4"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newLoginRig(t)
			r.login("u@x.example", "a1", "r1")
			start := r.clock
			r.clock = r.clock.Add(50 * time.Millisecond)
			var found []*Finding
			for _, answer := range tt.answers {
				x := Exchange{Exchange: repro.Exchange{Method: "POST", URL: base + "/oauth/token", Header: header(client), Body: []byte("grant_type=refresh_token&refresh_token=r1"), Status: 200, RespHeader: header(noStore), RespBody: []byte(answer)},
					Start: start, End: r.clock}
				if answer == "" {
					x.Status, x.RespHeader, x.RespBody = 400, header(jsonType), []byte(refused)
				}
				found = append(found, r.s.Observe(x, r.next())...)
			}
			var got []string
			for _, f := range found {
				if f.standing() {
					got = append(got, f.Rule)
				}
			}
			want(t, tt.name, got, tt.want...)
		})
	}
}

// TestAReusedRefreshTokenMayRevokeItsFamily: a target that detects a
// refresh token sent again once a refresh replaced it may revoke every
// token issued from it (RFC 6749 §10.4): a refresh with the newer refresh
// token is then not judged; and a refresh answered 5xx may have replaced
// the refresh token it sent, as a gateway's answer hides.
func TestAReusedRefreshTokenMayRevokeItsFamily(t *testing.T) {
	refused := `{"error":"invalid_grant"}`
	r := newLoginRig(t)
	r.login("u@x.example", "a1", "r1")
	want(t, "a refresh that replaces the refresh token", r.send("POST", "/oauth/token", client, "grant_type=refresh_token&refresh_token=r1", 200, noStore, `{"access_token":"a2","token_type":"bearer","refresh_token":"r2","expires_in":600}`))
	want(t, "the replaced refresh token sent again, refused", r.send("POST", "/oauth/token", client, "grant_type=refresh_token&refresh_token=r1", 400, jsonType, refused))
	want(t, "the newer refresh token, refused: the family is revoked", r.send("POST", "/oauth/token", client, "grant_type=refresh_token&refresh_token=r2", 400, jsonType, refused))

	r = newLoginRig(t)
	r.login("u@x.example", "a1", "r1")
	want(t, "a refresh answered by a gateway", r.send("POST", "/oauth/token", client, "grant_type=refresh_token&refresh_token=r1", 502, "", ""))
	want(t, "the refresh token sent again, refused", r.send("POST", "/oauth/token", client, "grant_type=refresh_token&refresh_token=r1", 400, jsonType, refused))
}
