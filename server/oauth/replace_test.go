package oauth

import (
	"encoding/base64"
	"errors"
	"testing"

	"eventsvc/server/account"
	"eventsvc/server/secret"
)

// TestAChangedOrRemovedClientSecretStopsWorkingAtOnce: the token endpoint
// remembers a client secret that passed bcrypt, but a secret replaced or a
// client removed is refused on the next request, and a change of grant
// types applies at once.
func TestAChangedOrRemovedClientSecretStopsWorkingAtOnce(t *testing.T) {
	e := testEndpoint(t, "old-secret")
	basic := func(secretText string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte("app:"+secretText))
	}
	if _, err := e.Exchange(basic("old-secret"), formMediaType, []byte(passwordGrant)); err != nil {
		t.Fatal(err)
	}
	if e.verified.len() != 1 {
		t.Fatalf("the secret is not remembered: %d", e.verified.len())
	}
	c, _ := e.Clients.Lookup("app")
	c.SecretHash = mustHash(t, "new-secret")
	if err := e.Clients.Replace([]Client{c}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Exchange(basic("old-secret"), formMediaType, []byte(passwordGrant)); !errors.Is(err, ErrInvalidClient) {
		t.Fatalf("the replaced secret: err = %v, want invalid_client", err)
	}
	if _, err := e.Exchange(basic("new-secret"), formMediaType, []byte(passwordGrant)); err != nil {
		t.Fatalf("the new secret: %v", err)
	}
	c.GrantTypes = []string{GrantRefreshToken}
	if err := e.Clients.Replace([]Client{c}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Exchange(basic("new-secret"), formMediaType, []byte(passwordGrant)); !errors.Is(err, ErrUnauthorizedClient) {
		t.Fatalf("a grant type taken away: err = %v, want unauthorized_client", err)
	}
	other := c
	other.ID = "other"
	if err := e.Clients.Replace([]Client{other}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Exchange(basic("new-secret"), formMediaType, []byte("grant_type=refresh_token&token=x")); !errors.Is(err, ErrInvalidClient) {
		t.Fatalf("a removed client: err = %v, want invalid_client", err)
	}
}

// TestAChangedOrRemovedPasswordStopsWorkingAtOnce: the password grant
// reads the accounts as they are now.
func TestAChangedOrRemovedPasswordStopsWorkingAtOnce(t *testing.T) {
	e := testEndpoint(t, "s")
	header := "Basic " + base64.StdEncoding.EncodeToString([]byte("app:s"))
	a, _ := e.Accounts.ByEmail("u@example.com")
	a.PasswordHash = mustHash(t, "pw2")
	if err := e.Accounts.Replace([]account.Account{a}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Exchange(header, formMediaType, []byte(passwordGrant)); !errors.Is(err, ErrInvalidGrant) {
		t.Fatalf("the old password: err = %v, want invalid_grant", err)
	}
	if _, err := e.Exchange(header, formMediaType, []byte("grant_type=password&username=u%40example.com&password=pw2")); err != nil {
		t.Fatalf("the new password: %v", err)
	}
	a.Email = "v@example.com"
	if err := e.Accounts.Replace([]account.Account{a}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Exchange(header, formMediaType, []byte("grant_type=password&username=u%40example.com&password=pw2")); !errors.Is(err, ErrInvalidGrant) {
		t.Fatalf("a removed account: err = %v, want invalid_grant", err)
	}
}

// TestReplaceRefusesBadClientsAndKeepsTheOld: a refused replacement
// changes nothing.
func TestReplaceRefusesBadClientsAndKeepsTheOld(t *testing.T) {
	e := testEndpoint(t, "s")
	c, _ := e.Clients.Lookup("app")
	bad := c
	bad.GrantTypes = []string{"implicit"}
	if err := e.Clients.Replace([]Client{c, bad}); err == nil {
		t.Fatal("Replace took an unknown grant type")
	}
	if all := e.Clients.All(); len(all) != 1 || all[0].ID != "app" || !all[0].AllowsGrant(GrantPassword) {
		t.Fatalf("after a refused Replace: %v", all)
	}
}

func mustHash(t *testing.T, plain string) string {
	t.Helper()
	h, err := secret.Hash([]byte(plain), 4)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// removingStore is a Store that removes an account and revokes its tokens,
// as the control API does, while a password grant of it is between its
// password check and its tokens.
type removingStore struct {
	*Store
	remove func()
}

func (s removingStore) Issue(g Grant) (Issued, error) {
	s.remove()
	return s.Store.Issue(g)
}

// TestATokenIssuedWhileItsAccountIsRemovedIsNotHandedOut: a password
// grant whose account or client goes between its check and its tokens
// answers invalid_grant and leaves no live token behind.
func TestATokenIssuedWhileItsAccountIsRemovedIsNotHandedOut(t *testing.T) {
	for _, gone := range []string{"account", "client"} {
		t.Run(gone, func(t *testing.T) {
			e := testEndpoint(t, "s")
			store := e.Store.(*Store)
			e.Store = removingStore{Store: store, remove: func() {
				if gone == "account" {
					other := account.Account{Email: "other@example.com", PasswordHash: mustHash(t, "x"), Roles: []account.Role{account.User}}
					if err := e.Accounts.Replace([]account.Account{other}); err != nil {
						t.Fatal(err)
					}
					store.Revoke(Selector{User: "u@example.com"})
				} else {
					c, _ := e.Clients.Lookup("app")
					c.ID = "another"
					if err := e.Clients.Replace([]Client{c}); err != nil {
						t.Fatal(err)
					}
					store.Revoke(Selector{Client: "app"})
				}
			}}
			header := "Basic " + base64.StdEncoding.EncodeToString([]byte("app:s"))
			if _, err := e.Exchange(header, formMediaType, []byte(passwordGrant)); !errors.Is(err, ErrInvalidGrant) {
				t.Fatalf("a grant whose %s went meanwhile: err = %v, want invalid_grant", gone, err)
			}
			if live := store.Live(); len(live) != 0 {
				t.Fatalf("%d tokens live after the %s went", len(live), gone)
			}
		})
	}
}
