package eventsvctest_test

import (
	"net/http"
	"slices"
	"testing"

	"eventsvc/eventsvctest"
)

// TestClientsAreAddedChangedAndRemoved: a client AddClient registers gets
// tokens with its secret, the demo client's grant types, scopes and
// resource ids unless it says others; once ChangeClient changed its
// secret, the old one is refused; once RemoveClient removed it, the
// tokens issued to it are refused on a write.
func TestClientsAreAddedChangedAndRemoved(t *testing.T) {
	srv := eventsvctest.NewServer(t, eventsvctest.Options{})
	if clients := srv.Clients(t); len(clients) != 1 || clients[0].ClientID != eventsvctest.ClientID {
		t.Fatalf("Clients = %+v, want the demo client", clients)
	}

	const id, first, second = "front End", "first-secret", "second-secret"
	added := srv.AddClient(t, eventsvctest.NewClient{ClientID: id, ClientSecret: first})
	want := eventsvctest.Client{ClientID: id, AuthorizedGrantTypes: []string{"password", "refresh_token"}, Scopes: []string{"read", "write"}, ResourceIDs: []string{"event"}}
	if !sameClient(added, want) {
		t.Fatalf("AddClient = %+v, want %+v", added, want)
	}
	if clients := srv.Clients(t); len(clients) != 2 || !sameClient(clients[1], want) {
		t.Fatalf("Clients after AddClient = %+v", clients)
	}
	status, tokens := loginWith(t, srv, id, first, eventsvctest.User, eventsvctest.UserPassword)
	if status != http.StatusOK || tokens["scope"] != "read write" {
		t.Fatalf("the added client's login = %d %v, want 200 with read and write", status, tokens)
	}
	access := tokens["access_token"].(string)

	changed := srv.ChangeClient(t, id, eventsvctest.ClientChange{ClientSecret: second, Scopes: []string{"read"}})
	if !slices.Equal(changed.Scopes, []string{"read"}) || !slices.Equal(changed.AuthorizedGrantTypes, want.AuthorizedGrantTypes) {
		t.Fatalf("ChangeClient = %+v, want scope read alone, the grant types unchanged", changed)
	}
	if status, body := loginWith(t, srv, id, first, eventsvctest.User, eventsvctest.UserPassword); status != http.StatusUnauthorized || body["error"] != "invalid_client" {
		t.Fatalf("the old secret after ChangeClient = %d %v, want 401 invalid_client", status, body)
	}
	if status, body := loginWith(t, srv, id, second, eventsvctest.User, eventsvctest.UserPassword); status != http.StatusOK || body["scope"] != "read" {
		t.Fatalf("the new secret after ChangeClient = %d %v, want 200 with scope read", status, body)
	}
	if status, body := create(t, srv, access, "{}"); status == http.StatusUnauthorized {
		t.Fatalf("a write with the token issued before the change = %d %v, want it past authentication", status, body)
	}

	removed, revoked := srv.RemoveClient(t, id)
	if removed.ClientID != id || revoked != 4 {
		t.Fatalf("RemoveClient = %+v, %d revoked, want %q and its 4 live tokens (two logins)", removed, revoked, id)
	}
	if status, body := create(t, srv, access, "{}"); status != http.StatusUnauthorized {
		t.Fatalf("a write with the removed client's token = %d %v, want 401", status, body)
	}
	if clients := srv.Clients(t); len(clients) != 1 {
		t.Fatalf("Clients after RemoveClient = %+v, want the demo client", clients)
	}
}

func sameClient(a, b eventsvctest.Client) bool {
	return a.ClientID == b.ClientID && slices.Equal(a.AuthorizedGrantTypes, b.AuthorizedGrantTypes) &&
		slices.Equal(a.Scopes, b.Scopes) && slices.Equal(a.ResourceIDs, b.ResourceIDs)
}

// TestARefusedClientChangeFailsTheTestWithItsDescription: each refusal
// of the control API fails the test with its status, error and
// description, never with the secret sent, and changes no client.
func TestARefusedClientChangeFailsTheTestWithItsDescription(t *testing.T) {
	srv := eventsvctest.NewServer(t, eventsvctest.Options{})
	const secret = "never-shown-secret"
	before := srv.Clients(t)
	checkRefusals(t, []refusal{
		{"an id a client has", func(tb testing.TB) {
			srv.AddClient(tb, eventsvctest.NewClient{ClientID: eventsvctest.ClientID, ClientSecret: secret})
		}, []string{"POST /clients", "409", "conflict", `a client has the id "myApp" already`}},
		{"an unknown scope", func(tb testing.TB) {
			srv.AddClient(tb, eventsvctest.NewClient{ClientID: "other", ClientSecret: secret, Scopes: []string{"admin"}})
		}, []string{"POST /clients", "400", "invalid_request", `invalid client "other"`, "admin"}},
		{"no secret", func(tb testing.TB) { srv.AddClient(tb, eventsvctest.NewClient{ClientID: "other"}) },
			[]string{"POST /clients", "400", "clientSecret must not be empty"}},
		{"nothing to change", func(tb testing.TB) { srv.ChangeClient(tb, eventsvctest.ClientID, eventsvctest.ClientChange{}) },
			[]string{"PATCH /clients/myApp", "400", "give what changes"}},
		{"change an unknown client", func(tb testing.TB) {
			srv.ChangeClient(tb, "nobody", eventsvctest.ClientChange{ClientSecret: secret})
		}, []string{"PATCH /clients/nobody", "404", "not_found", `no client has the id "nobody"`}},
		{"remove the last client", func(tb testing.TB) { srv.RemoveClient(tb, eventsvctest.ClientID) },
			[]string{"DELETE /clients/myApp", "409", "last_client"}},
	}, "secret", secret)
	if after := srv.Clients(t); !slices.EqualFunc(after, before, sameClient) {
		t.Fatalf("refused requests changed the clients: %+v, were %+v", after, before)
	}
	if status, _ := login(t, srv, eventsvctest.User, eventsvctest.UserPassword); status != http.StatusOK {
		t.Fatalf("the demo client's secret after the refusals: login = %d, want 200", status)
	}
}
