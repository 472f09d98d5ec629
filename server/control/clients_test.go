package control

import (
	"net/http"
	"strings"
	"testing"
)

const otherClient = `{"clientId": "other", "clientSecret": "first-client-secret", "authorizedGrantTypes": ["password", "refresh_token", "password"],
  "scopes": ["read"], "resourceIds": ["event"]}`

// TestClientsAreAddedChangedAndRemoved: a client registered through the
// control API gets tokens at once with its plain secret; a changed secret
// is refused at once although the token endpoint remembered it as
// verified, the client's tokens live on; a removed client's tokens stop
// working at once.
func TestClientsAreAddedChangedAndRemoved(t *testing.T) {
	r := newRig(t, "")
	status, body := r.call(t, http.MethodPost, "/clients", otherClient)
	if status != http.StatusCreated || body["clientId"] != "other" || mustJSON(t, body["authorizedGrantTypes"]) != `["password","refresh_token"]` || body["clientSecret"] != nil {
		t.Fatalf("POST /clients = %d %v", status, body)
	}
	status, token := r.tokenFor(t, "other", "first-client-secret", "user@email.com", "user")
	if status != http.StatusOK {
		t.Fatalf("the new client's login = %d", status)
	}
	if status, _ := r.tokenFor(t, "other", "first-client-secret", "user@email.com", "user"); status != http.StatusOK {
		t.Fatalf("the new client's second login (its secret remembered) = %d", status)
	}
	if status, _ := r.publicCall(t, http.MethodPost, "/api/events", token, newEvent); status != http.StatusForbidden {
		t.Fatalf("a write with a read-only client's token = %d, want 403", status)
	}

	status, body = r.call(t, http.MethodPatch, "/clients/other", `{"clientSecret": "second-client-secret", "scopes": ["read", "write"]}`)
	if status != http.StatusOK || mustJSON(t, body["scopes"]) != `["read","write"]` {
		t.Fatalf("PATCH /clients/other = %d %v", status, body)
	}
	if status, _ := r.tokenFor(t, "other", "first-client-secret", "user@email.com", "user"); status != http.StatusUnauthorized {
		t.Fatalf("the old secret after the change = %d, want 401 invalid_client", status)
	}
	status, writer := r.tokenFor(t, "other", "second-client-secret", "user@email.com", "user")
	if status != http.StatusOK {
		t.Fatalf("the new secret = %d", status)
	}
	if status, _ := r.publicCall(t, http.MethodPost, "/api/events", writer, newEvent); status != http.StatusCreated {
		t.Fatalf("a write with a token of the new scopes = %d", status)
	}
	if status, _ := r.publicCall(t, http.MethodGet, "/api/events", token, ""); status != http.StatusOK {
		t.Fatalf("a token from before the change = %d", status)
	}
	_, myApp := r.login(t, "user")

	status, body = r.call(t, http.MethodDelete, "/clients/other", "")
	if status != http.StatusOK || body["removed"].(map[string]any)["clientId"] != "other" || body["revokedTokens"] != float64(6) {
		t.Fatalf("DELETE /clients/other = %d %v, want its 6 tokens revoked", status, body)
	}
	if status, _ := r.publicCall(t, http.MethodPost, "/api/events", writer, newEvent); status != http.StatusUnauthorized {
		t.Fatalf("the removed client's token = %d, want 401", status)
	}
	if status, _ := r.tokenFor(t, "other", "second-client-secret", "user@email.com", "user"); status != http.StatusUnauthorized {
		t.Fatalf("the removed client's login = %d, want 401", status)
	}
	if status, _ := r.publicCall(t, http.MethodPost, "/api/events", myApp, newEvent); status != http.StatusCreated {
		t.Fatalf("another client's token after the removal = %d", status)
	}
	if status, body := r.call(t, http.MethodDelete, "/clients/myApp", ""); status != http.StatusConflict || body["error"] != "last_client" {
		t.Fatalf("DELETE the last client = %d %v", status, body)
	}
	noSecretIn(t, "the log", r.log.String(), "first-client-secret", "second-client-secret")
	_, journal := r.call(t, http.MethodGet, "/journal", "")
	noSecretIn(t, "the journal", mustJSON(t, journal), "first-client-secret", "second-client-secret")
	noSecretIn(t, "GET /clients", r.listed(t, "/clients"))
	for _, want := range []string{"clients: added client other grants [password refresh_token] scopes [read]", "clients: changed scopes, clientSecret of client other", "clients: removed other, revoked 6 tokens"} {
		if !strings.Contains(r.log.String(), want) {
			t.Errorf("the log does not say %q: %s", want, r.log.String())
		}
	}
}

// TestBadUsersAndClientsAreRefusedAndChangeNothing: every bad write of
// /users and /clients gets a 4xx saying what was wrong, and the accounts,
// the clients and the state are as before; no answer shows the password
// or secret it was sent.
func TestBadUsersAndClientsAreRefusedAndChangeNothing(t *testing.T) {
	r := newRig(t, "")
	_, token := r.login(t, "user")
	users, clients, state := r.listed(t, "/users"), r.listed(t, "/clients"), r.stateOf(t)
	const pw = "hunter2-plain"
	long := strings.Repeat("p", 73)
	client := func(change string) string { return strings.Replace(otherClient, `"scopes": ["read"]`, change, 1) }
	for _, c := range []struct {
		method, path, body string
		status             int
		want               string
	}{
		{"POST", "/users", `{"email": "a@b.c", "password": "` + pw + `",`, 400, "not valid JSON"},
		{"POST", "/users", `{"email": "a@b.c", "password": "` + pw + `", "admin": true}`, 400, `unknown field "admin"`},
		{"POST", "/users", `{"email": "a@b.c", "password": "` + pw + `", "passwordHash": "{bcrypt}x"}`, 400, `unknown field "passwordHash"`},
		{"POST", "/users", ``, 400, "empty"},
		{"POST", "/users", `["a@b.c"]`, 400, "one JSON object"},
		{"POST", "/users", `{"email": "not-an-email", "password": "` + pw + `"}`, 400, `invalid user "not-an-email": invalid email`},
		{"POST", "/users", `{"email": "a @b.c", "password": "` + pw + `"}`, 400, "whitespace"},
		{"POST", "/users", `{"email": "USER@Email.com", "password": "` + pw + `"}`, 409, `"user@email.com" already`},
		{"POST", "/users", `{"email": "a@b.c", "password": "` + pw + `", "roles": ["GUEST"]}`, 400, `unknown role "GUEST"`},
		{"POST", "/users", `{"email": "a@b.c", "password": "` + pw + `", "roles": []}`, 400, "roles must name at least one"},
		{"POST", "/users", `{"email": "a@b.c", "password": ""}`, 400, "password must not be empty"},
		{"POST", "/users", `{"email": "a@b.c"}`, 400, "password must not be empty"},
		{"POST", "/users", `{"email": "a@b.c", "password": "` + long + `"}`, 400, "longer than 72 bytes"},
		{"POST", "/users", `{"email": "a@b.c", "password": 5}`, 400, "password must be a JSON string"},
		{"PATCH", "/users/user@email.com", `{}`, 400, `give what changes`},
		{"PATCH", "/users/user@email.com", `{"password": ""}`, 400, "password must not be empty"},
		{"PATCH", "/users/user@email.com", `{"roles": ["user"]}`, 400, `unknown role "user"`},
		{"PATCH", "/users/user@email.com", `{"email": "x@y.z"}`, 400, `unknown field "email"`},
		{"PATCH", "/users/nobody@email.com", `{"password": "` + pw + `"}`, 404, `no account has the email "nobody@email.com"`},
		{"DELETE", "/users/nobody@email.com", ``, 404, "no account"},
		{"POST", "/clients", client(`"scopes": ["read"], "colour": "red"`), 400, `unknown field "colour"`},
		{"POST", "/clients", client(`"scopes": ["admin"]`), 400, `unknown scope "admin"`},
		{"POST", "/clients", strings.Replace(otherClient, `"refresh_token", "password"`, `"implicit"`, 1), 400, `unknown grant type "implicit"`},
		{"POST", "/clients", client(`"scopes": []`), 400, "no scopes"},
		{"POST", "/clients", strings.Replace(otherClient, `"resourceIds": ["event"]`, `"resourceIds": [""]`, 1), 400, "resource ids"},
		{"POST", "/clients", strings.Replace(otherClient, `"other"`, `"my:app"`, 1), 400, `contains ":"`},
		{"POST", "/clients", strings.Replace(otherClient, `"other"`, `"myApp"`, 1), 409, `"myApp" already`},
		{"POST", "/clients", strings.Replace(otherClient, `"first-client-secret"`, `""`, 1), 400, "clientSecret must not be empty"},
		{"POST", "/clients", strings.Replace(otherClient, `"first-client-secret"`, `"`+long+`"`, 1), 400, "clientSecret is longer than 72 bytes"},
		{"PATCH", "/clients/myApp", `{}`, 400, "give what changes"},
		{"PATCH", "/clients/myApp", `{"clientId": "renamed"}`, 400, `unknown field "clientId"`},
		{"PATCH", "/clients/myApp", `{"authorizedGrantTypes": ["client_credentials"], "clientSecret": "` + pw + `"}`, 400, `unknown grant type "client_credentials"`},
		{"PATCH", "/clients/myApp", `{"clientSecret": ""}`, 400, "clientSecret must not be empty"},
		{"PATCH", "/clients/nobody", `{"clientSecret": "` + pw + `"}`, 404, `no client has the id "nobody"`},
		{"DELETE", "/clients/nobody", ``, 404, "no client"},
	} {
		status, body := r.call(t, c.method, c.path, c.body)
		desc, _ := body["error_description"].(string)
		if status != c.status || body["error"] == nil || !strings.Contains(desc, c.want) {
			t.Errorf("%s %s %s = %d %v, want %d saying %q", c.method, c.path, c.body, status, body, c.status, c.want)
		}
		noSecretIn(t, c.method+" "+c.path, mustJSON(t, body), pw, long)
	}
	if after := r.listed(t, "/users"); after != users {
		t.Errorf("bad input changed the accounts:\nbefore %s\nafter  %s", users, after)
	}
	if after := r.listed(t, "/clients"); after != clients {
		t.Errorf("bad input changed the clients:\nbefore %s\nafter  %s", clients, after)
	}
	if after := r.stateOf(t); after != state {
		t.Errorf("bad input changed the state:\nbefore %s\nafter  %s", state, after)
	}
	if status, _ := r.login(t, "user"); status != http.StatusOK {
		t.Errorf("the password after refused changes: login = %d", status)
	}
	if status, _ := r.publicCall(t, http.MethodPost, "/api/events", token, newEvent); status != http.StatusCreated {
		t.Errorf("a token from before the refused writes = %d", status)
	}
	noSecretIn(t, "the log", r.log.String(), pw, long)
	if !strings.Contains(r.log.String(), "refused: ") {
		t.Errorf("refused writes are not logged: %s", r.log.String())
	}
}
