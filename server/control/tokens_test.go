package control

import (
	"net/http"
	"strings"
	"testing"
)

// TestOneTokenIsRevokedOrExpired: a token picked by the start GET /tokens
// shows is revoked (then unknown to the API) or expired (then expired),
// the others live on; a user's tokens go together; a body that picks
// nothing, too much or badly is refused, and changes nothing.
func TestOneTokenIsRevokedOrExpired(t *testing.T) {
	r := newRig(t, "")
	_, first := r.login(t, "user")
	_, second := r.login(t, "user")
	writes := func(token string) (int, string) {
		t.Helper()
		resp, body := r.raw(t, "POST", "/api/events", "Bearer "+token, "application/json", `{}`)
		return resp.StatusCode, body
	}
	if status, _ := writes(first); status != http.StatusBadRequest { // authenticated: the empty body is refused
		t.Fatalf("a fresh token's write = %d", status)
	}
	live := func() int {
		_, body := r.call(t, http.MethodGet, "/tokens", "")
		return len(body["tokens"].([]any))
	}
	before := live()
	for body, want := range map[string]string{
		``:   "empty",
		`{}`: "give the token to pick",
		`{"token": "` + first[:4] + `", "kind": "both"}`: "access or refresh",
		`{"token": "zzzz-not-a-start"}`:                  "no live token",
		`{"user": "nobody@example.org"}`:                 "no live token",
		`{"token": "` + first[:4] + `", "colour": 1}`:    `unknown field "colour"`,
	} {
		status, answer := r.call(t, http.MethodPost, "/tokens/revoke", body)
		desc, _ := answer["error_description"].(string)
		if status < 400 || status > 499 || !strings.Contains(desc, want) {
			t.Errorf("revoke %s = %d %q, want a 4xx saying %q", body, status, desc, want)
		}
	}
	if live() != before {
		t.Fatalf("refused requests changed the tokens: %d live, was %d", live(), before)
	}

	status, answer := r.call(t, http.MethodPost, "/tokens/revoke", `{"token": "`+first[:4]+`…", "kind": "access"}`)
	if status != http.StatusOK || len(answer["revoked"].([]any)) != 1 || strings.Contains(mustJSON(t, answer), first) {
		t.Fatalf("revoke one = %d %v", status, answer)
	}
	status, body := writes(first)
	if status != http.StatusUnauthorized || !strings.Contains(body, "not valid") {
		t.Fatalf("the revoked token's write = %d %s", status, body)
	}
	if status, _ := writes(second); status != http.StatusBadRequest {
		t.Fatalf("the other token's write = %d, want it still valid", status)
	}
	r.call(t, http.MethodPost, "/tokens/expire", `{"token": "`+second[:4]+`", "kind": "access"}`)
	if status, body := writes(second); status != http.StatusUnauthorized || !strings.Contains(body, "expired") {
		t.Fatalf("the expired token's write = %d %s", status, body)
	}
	status, answer = r.call(t, http.MethodPost, "/tokens/revoke", `{"user": "USER@email.com"}`)
	if status != http.StatusOK || len(answer["revoked"].([]any)) != 2 || live() != 0 {
		t.Fatalf("revoke the user's refresh tokens = %d %v, %d live", status, answer, live())
	}
}
