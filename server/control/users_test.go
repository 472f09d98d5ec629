package control

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// tokenFor asks the public server for tokens with the password grant,
// as client id with secret, for email with password; it returns the
// status and the access token.
func (r *rig) tokenFor(t *testing.T, id, clientSecret, email, password string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, r.public+"/oauth/token", strings.NewReader(url.Values{
		"grant_type": {"password"}, "username": {email}, "password": {password},
	}.Encode()))
	req.SetBasicAuth(id, clientSecret)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	status, body := do(t, req)
	token, _ := body["access_token"].(string)
	return status, token
}

// listed is the answer of GET path (/users, /clients) as JSON, to compare
// before and after.
func (r *rig) listed(t *testing.T, path string) string {
	t.Helper()
	status, body := r.call(t, http.MethodGet, path, "")
	if status != http.StatusOK {
		t.Fatalf("GET %s = %d %v", path, status, body)
	}
	return mustJSON(t, body)
}

// noSecretIn fails the test when what shows one of secrets.
func noSecretIn(t *testing.T, where, what string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(what, s) {
			t.Errorf("%s shows the secret %q: %s", where, s, what)
		}
	}
	if strings.Contains(what, "$2a$") || strings.Contains(what, "{bcrypt}") {
		t.Errorf("%s shows a hash: %s", where, what)
	}
}

// TestUsersAreAddedChangedAndRemoved: an account added through the
// control API logs in on the public API at once with its plain password,
// hashed by the server; a changed password replaces the old one at once,
// the tokens live on; a removed account's tokens stop working at once,
// its events stay, and its id is not given again.
func TestUsersAreAddedChangedAndRemoved(t *testing.T) {
	r := newRig(t, "")
	const first, second = "first-plain-password", "second-plain-password"
	status, body := r.call(t, http.MethodGet, "/users", "")
	users, _ := body["users"].([]any)
	if status != http.StatusOK || len(users) != 2 || users[1].(map[string]any)["email"] != "user@email.com" || users[1].(map[string]any)["id"] != float64(2) {
		t.Fatalf("GET /users = %d %v", status, body)
	}
	noSecretIn(t, "GET /users", mustJSON(t, body))

	status, body = r.call(t, http.MethodPost, "/users", `{"email": "New@Email.com", "password": "`+first+`"}`)
	if status != http.StatusCreated || body["id"] != float64(3) || body["email"] != "New@Email.com" || mustJSON(t, body["roles"]) != `["USER"]` {
		t.Fatalf("POST /users = %d %v, want 201, id 3, roles USER", status, body)
	}
	status, token := r.tokenFor(t, "myApp", "pass", "new@email.com", first)
	if status != http.StatusOK {
		t.Fatalf("the new account's login = %d", status)
	}
	status, created := r.publicCall(t, http.MethodPost, "/api/events", token, newEvent)
	if status != http.StatusCreated {
		t.Fatalf("the new account's create = %d %v", status, created)
	}
	eventPath := "/api/events/" + strings.TrimPrefix(mustJSON(t, created["id"]), "")

	status, body = r.call(t, http.MethodPatch, "/users/new@email.com", `{"password": "`+second+`", "roles": ["ADMIN", "USER", "ADMIN"]}`)
	if status != http.StatusOK || mustJSON(t, body["roles"]) != `["ADMIN","USER"]` || body["id"] != float64(3) {
		t.Fatalf("PATCH /users/new@email.com = %d %v", status, body)
	}
	if status, _ := r.tokenFor(t, "myApp", "pass", "new@email.com", first); status != http.StatusBadRequest {
		t.Fatalf("the old password after the change = %d, want 400 invalid_grant", status)
	}
	if status, _ := r.tokenFor(t, "myApp", "pass", "new@email.com", second); status != http.StatusOK {
		t.Fatalf("the new password = %d", status)
	}
	if status, _ := r.publicCall(t, http.MethodPost, "/api/events", token, newEvent); status != http.StatusCreated {
		t.Fatalf("a token from before the change = %d, want it to live on", status)
	}

	status, body = r.call(t, http.MethodDelete, "/users/NEW%40email.com", "")
	if status != http.StatusOK || body["removed"].(map[string]any)["id"] != float64(3) || body["revokedTokens"] != float64(4) {
		t.Fatalf("DELETE /users/NEW@email.com = %d %v, want its 4 tokens revoked", status, body)
	}
	if status, _ := r.publicCall(t, http.MethodPost, "/api/events", token, newEvent); status != http.StatusUnauthorized {
		t.Fatalf("the removed account's token = %d, want 401", status)
	}
	if status, _ := r.tokenFor(t, "myApp", "pass", "new@email.com", second); status != http.StatusBadRequest {
		t.Fatalf("the removed account's login = %d, want 400", status)
	}
	if status, e := r.publicCall(t, http.MethodGet, eventPath, "", ""); status != http.StatusOK || e["manager"].(map[string]any)["id"] != float64(3) {
		t.Fatalf("the removed account's event = %d %v, want it kept", status, e)
	}
	if status, body := r.call(t, http.MethodPost, "/users", `{"email": "new@email.com", "password": "x", "roles": ["USER"]}`); status != http.StatusCreated || body["id"] != float64(4) {
		t.Fatalf("the account added again = %d %v, want id 4: id 3 manages an event", status, body)
	}
	if status, _ := r.publicCall(t, http.MethodGet, "/api/events", "", ""); status != http.StatusOK {
		t.Fatalf("GET /api/events = %d", status)
	}
	if _, s := r.call(t, http.MethodGet, "/", ""); s["users"] != float64(3) || s["clients"] != float64(1) {
		t.Fatalf("GET / counts %v users, %v clients; want 3 and 1", s["users"], s["clients"])
	}
	_, journal := r.call(t, http.MethodGet, "/journal", "")
	noSecretIn(t, "the journal", mustJSON(t, journal), first, second)
	noSecretIn(t, "the log", r.log.String(), first, second)
	for _, want := range []string{"users: added account 3 New@Email.com [USER]", "users: changed account 3 New@Email.com: roles [ADMIN USER], password", "users: removed account 3 New@Email.com, revoked 4 tokens"} {
		if !strings.Contains(r.log.String(), want) {
			t.Errorf("the log does not say %q: %s", want, r.log.String())
		}
	}
}

// TestTheLastAccountStays: every account but the last can be removed.
func TestTheLastAccountStays(t *testing.T) {
	r := newRig(t, "")
	if status, body := r.call(t, http.MethodDelete, "/users/admin@email.com", ""); status != http.StatusOK {
		t.Fatalf("DELETE admin = %d %v", status, body)
	}
	before := r.listed(t, "/users")
	status, body := r.call(t, http.MethodDelete, "/users/user@email.com", "")
	if desc, _ := body["error_description"].(string); status != http.StatusConflict || body["error"] != "last_account" || !strings.Contains(desc, "last account") {
		t.Fatalf("DELETE the last account = %d %v", status, body)
	}
	if after := r.listed(t, "/users"); after != before {
		t.Fatalf("a refused removal changed the accounts:\n%s\n%s", before, after)
	}
	if status, _ := r.login(t, "user"); status != http.StatusOK {
		t.Fatalf("the last account's login = %d", status)
	}
	seed := `[` + strings.TrimSuffix(newEvent, "}") + `}]`
	if status, _ := r.call(t, http.MethodPut, "/events", seed); status != http.StatusOK {
		t.Fatalf("a seed without a manager, once account 1 is gone = %d", status)
	}
	if _, e := r.publicCall(t, http.MethodGet, "/api/events/1", "", ""); e["manager"].(map[string]any)["id"] != float64(2) {
		t.Fatalf("a seeded event without a manager is managed by %v, want the first account left (2)", e["manager"])
	}
}

// TestResetPutsBackTheAccountsAndClients: POST /reset puts back the
// accounts and clients the server started with, POST /snapshot keeps
// them as they are and a reset to the snapshot puts those back; a
// password changed after the snapshot is the snapshot's again.
func TestResetPutsBackTheAccountsAndClients(t *testing.T) {
	r := newRig(t, "")
	start, startClients := r.listed(t, "/users"), r.listed(t, "/clients")
	r.call(t, http.MethodPost, "/users", `{"email": "kept@email.com", "password": "kept-password"}`)
	r.call(t, http.MethodPost, "/clients", otherClient)
	if status, body := r.call(t, http.MethodPost, "/snapshot", ""); status != http.StatusOK || body["users"] != float64(3) || body["clients"] != float64(2) {
		t.Fatalf("snapshot = %d %v", status, body)
	}
	snapUsers, snapClients := r.listed(t, "/users"), r.listed(t, "/clients")
	r.call(t, http.MethodPatch, "/users/kept@email.com", `{"password": "changed-after"}`)
	r.call(t, http.MethodDelete, "/users/admin@email.com", "")
	r.call(t, http.MethodDelete, "/clients/other", "")
	r.call(t, http.MethodPost, "/users", `{"email": "late@email.com", "password": "late"}`)

	r.checkReset(t, "reset to the snapshot", `{"to": "snapshot"}`, 3, 2, snapUsers, snapClients)
	if status, _ := r.tokenFor(t, "other", "first-client-secret", "kept@email.com", "kept-password"); status != http.StatusOK {
		t.Fatalf("the snapshot's client and password = %d", status)
	}
	if status, _ := r.tokenFor(t, "myApp", "pass", "kept@email.com", "changed-after"); status != http.StatusBadRequest {
		t.Fatalf("the password changed after the snapshot = %d, want 400", status)
	}

	r.checkReset(t, "reset to start", "", 2, 1, start, startClients)
	if status, _ := r.tokenFor(t, "other", "first-client-secret", "user@email.com", "user"); status != http.StatusUnauthorized {
		t.Fatalf("a client added after the start, after the reset = %d, want 401", status)
	}
	if status, _ := r.login(t, "user"); status != http.StatusOK {
		t.Fatalf("the start account after the reset = %d", status)
	}
	if !strings.Contains(r.log.String(), "snapshot: 3 events, 3 accounts, 2 clients kept") || !strings.Contains(r.log.String(), "reset to start: 3 events, 2 accounts, 1 clients") {
		t.Errorf("the log does not tell the accounts and clients: %s", r.log.String())
	}
}

// checkReset resets the server (what, with body) and checks that it
// answers with users accounts and clients clients, and that the accounts
// and clients listed after it are wantUsers and wantClients.
func (r *rig) checkReset(t *testing.T, what, body string, users, clients int, wantUsers, wantClients string) {
	t.Helper()
	if status, s := r.call(t, http.MethodPost, "/reset", body); status != http.StatusOK || s["users"] != float64(users) || s["clients"] != float64(clients) {
		t.Fatalf("%s = %d %v", what, status, s)
	}
	if got := r.listed(t, "/users"); got != wantUsers {
		t.Fatalf("the accounts after the %s:\n%s\nwant\n%s", what, got, wantUsers)
	}
	if got := r.listed(t, "/clients"); got != wantClients {
		t.Fatalf("the clients after the %s:\n%s\nwant\n%s", what, got, wantClients)
	}
}
