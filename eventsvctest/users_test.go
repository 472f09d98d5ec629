package eventsvctest_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"eventsvc/eventsvctest"
)

// login asks srv for tokens with the password grant of the demo client
// and returns the status and the decoded answer.
func login(t *testing.T, srv *eventsvctest.Server, user, password string) (int, map[string]any) {
	t.Helper()
	return loginWith(t, srv, eventsvctest.ClientID, eventsvctest.ClientSecret, user, password)
}

// loginWith asks srv for tokens with the password grant of the client
// clientID, and returns the status and the decoded answer.
func loginWith(t *testing.T, srv *eventsvctest.Server, clientID, clientSecret, user, password string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/oauth/token", strings.NewReader(url.Values{
		"grant_type": {"password"}, "username": {user}, "password": {password},
	}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(clientID, clientSecret)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return send(t, req)
}

// TestAccountsAreAddedChangedAndRemoved: an account AddUser adds logs in
// through the public token endpoint; once ChangeUser changed its
// password, the old one is refused and the new one taken; once
// RemoveUser removed it, its token is refused on a write.
func TestAccountsAreAddedChangedAndRemoved(t *testing.T) {
	srv := eventsvctest.NewServer(t, eventsvctest.Options{})
	if users := srv.Users(t); len(users) != 2 || users[0].Email != eventsvctest.Admin || users[1].Email != eventsvctest.User {
		t.Fatalf("Users = %+v, want the two demo accounts", users)
	}

	const dev, first, second = "dev+1@example.com", "first-password", "second-password"
	added := srv.AddUser(t, eventsvctest.NewAccount{Email: dev, Password: first})
	if added.ID != 3 || added.Email != dev || !slices.Equal(added.Roles, []string{"USER"}) {
		t.Fatalf("AddUser = %+v, want account 3, %s, USER", added, dev)
	}
	if users := srv.Users(t); len(users) != 3 || users[2].Email != dev {
		t.Fatalf("Users after AddUser = %+v", users)
	}
	if status, body := login(t, srv, dev, first); status != http.StatusOK || body["access_token"] == nil {
		t.Fatalf("the added account's login = %d %v, want 200 with tokens", status, body)
	}

	changed := srv.ChangeUser(t, "DEV+1@example.com", eventsvctest.AccountChange{Password: second, Roles: []string{"ADMIN", "USER"}})
	if changed.ID != 3 || !slices.Equal(changed.Roles, []string{"ADMIN", "USER"}) {
		t.Fatalf("ChangeUser = %+v, want account 3 with ADMIN and USER", changed)
	}
	if status, body := login(t, srv, dev, first); status != http.StatusBadRequest || body["error"] != "invalid_grant" {
		t.Fatalf("the old password after ChangeUser = %d %v, want 400 invalid_grant", status, body)
	}
	status, tokens := login(t, srv, dev, second)
	if status != http.StatusOK {
		t.Fatalf("the new password after ChangeUser = %d %v", status, tokens)
	}
	access := tokens["access_token"].(string)
	if status, body := create(t, srv, access, "{}"); status == http.StatusUnauthorized {
		t.Fatalf("a write with the live token = %d %v, want it past authentication", status, body)
	}

	removed, revoked := srv.RemoveUser(t, dev)
	if removed.ID != 3 || removed.Email != dev || revoked != 4 {
		t.Fatalf("RemoveUser = %+v, %d revoked, want account 3 and its 4 live tokens (two logins)", removed, revoked)
	}
	if status, body := create(t, srv, access, "{}"); status != http.StatusUnauthorized {
		t.Fatalf("a write with the removed account's token = %d %v, want 401", status, body)
	}
	if status, _ := login(t, srv, dev, second); status != http.StatusBadRequest {
		t.Fatalf("the removed account's login = %d, want 400", status)
	}
	if users := srv.Users(t); len(users) != 2 {
		t.Fatalf("Users after RemoveUser = %+v, want the two demo accounts", users)
	}
	srv.AddUser(t, eventsvctest.NewAccount{Email: dev, Password: first})
	srv.RemoveUser(t, eventsvctest.User)
	if st := srv.Reset(t); st.Users != 2 {
		t.Fatalf("Reset = %+v, want the two demo accounts back", st)
	}
	if status, _ := login(t, srv, eventsvctest.User, eventsvctest.UserPassword); status != http.StatusOK {
		t.Fatalf("the demo user's login after Reset = %d, want 200", status)
	}
}

// TestARefusedAccountChangeFailsTheTestWithItsDescription: each refusal
// of the control API fails the test with its status, error and
// description, never with the password sent, and changes no account.
func TestARefusedAccountChangeFailsTheTestWithItsDescription(t *testing.T) {
	srv := eventsvctest.NewServer(t, eventsvctest.Options{})
	const password = "never-shown-password"
	srv.AddUser(t, eventsvctest.NewAccount{Email: "dev@example.com", Password: password})
	before := srv.Users(t)
	checkRefusals(t, []refusal{
		{"an email an account has", func(tb testing.TB) {
			srv.AddUser(tb, eventsvctest.NewAccount{Email: "Dev@Example.com", Password: password})
		}, []string{"POST /users", "409", "conflict", `an account has the email "dev@example.com" already`}},
		{"an unknown role", func(tb testing.TB) {
			srv.AddUser(tb, eventsvctest.NewAccount{Email: "x@y.z", Password: password, Roles: []string{"GUEST"}})
		}, []string{"POST /users", "400", "invalid_request", `invalid user "x@y.z": unknown role "GUEST"`}},
		{"no password", func(tb testing.TB) { srv.AddUser(tb, eventsvctest.NewAccount{Email: "x@y.z"}) },
			[]string{"POST /users", "400", "password must not be empty"}},
		{"nothing to change", func(tb testing.TB) { srv.ChangeUser(tb, "dev@example.com", eventsvctest.AccountChange{}) },
			[]string{"PATCH /users/dev@example.com", "400", "give what changes"}},
		{"change an unknown account", func(tb testing.TB) {
			srv.ChangeUser(tb, "nobody@example.com", eventsvctest.AccountChange{Password: password})
		}, []string{"PATCH /users/nobody@example.com", "404", "not_found", `no account has the email "nobody@example.com"`}},
		{"remove an unknown account", func(tb testing.TB) { srv.RemoveUser(tb, "nobody@example.com") },
			[]string{"DELETE /users/nobody@example.com", "404", "not_found"}},
	}, "password", password)
	if after := srv.Users(t); !slices.EqualFunc(after, before, func(a, b eventsvctest.Account) bool {
		return a.ID == b.ID && a.Email == b.Email && slices.Equal(a.Roles, b.Roles)
	}) {
		t.Fatalf("refused requests changed the accounts: %+v, were %+v", after, before)
	}
	if status, _ := login(t, srv, "dev@example.com", password); status != http.StatusOK {
		t.Fatalf("the account's password after the refusals: login = %d, want 200", status)
	}
	srv.RemoveUser(t, eventsvctest.Admin)
	srv.RemoveUser(t, "dev@example.com")
	got := failure(t, func(tb testing.TB) { srv.RemoveUser(tb, eventsvctest.User) })
	if !strings.Contains(got, "409") || !strings.Contains(got, "last_account") {
		t.Fatalf("removing the last account failed the test with %q, want 409 last_account", got)
	}
}
