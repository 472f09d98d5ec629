package oauth

import (
	"encoding/base64"
	"errors"
	"net/url"
	"testing"

	"eventsvc/server/account"
	"eventsvc/server/clock"
	"eventsvc/server/secret"
)

// testEndpoint is an endpoint whose clients are "app", with clientSecret,
// the password and refresh grants, the read and write scopes and the
// resource "event", then others, and whose one account is u@example.com
// with the password pw; secrets are hashed at bcrypt cost 4.
func testEndpoint(t testing.TB, clientSecret string, others ...Client) *TokenEndpoint {
	t.Helper()
	clients, err := NewClients(append([]Client{{
		ID: "app", SecretHash: testHash(t, clientSecret), GrantTypes: []string{GrantPassword, GrantRefreshToken},
		Scopes: []string{ScopeRead, ScopeWrite}, ResourceIDs: []string{"event"},
	}}, others...))
	if err != nil {
		t.Fatal(err)
	}
	accounts, err := account.NewRegistry([]account.Account{{Email: "u@example.com", PasswordHash: testHash(t, "pw"), Roles: []account.Role{account.User}}})
	if err != nil {
		t.Fatal(err)
	}
	return &TokenEndpoint{Clients: clients, Accounts: accounts, Store: NewStore(clock.System{})}
}

// testHash is the stored form of the plain secret s, at bcrypt cost 4.
func testHash(t testing.TB, s string) string {
	t.Helper()
	h, err := secret.Hash([]byte(s), 4)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

const passwordGrant = "grant_type=password&username=u%40example.com&password=pw"

func TestClientCredentialsAreTakenFormEncodedOrAsSent(t *testing.T) {
	e := testEndpoint(t, "a+b/c%d")
	for name, userinfo := range map[string]string{
		"form-encoded (RFC 6749 §2.3.1)": "app:" + url.QueryEscape("a+b/c%d"),
		"as sent (curl -u)":              "app:a+b/c%d",
	} {
		header := "Basic " + base64.StdEncoding.EncodeToString([]byte(userinfo))
		if _, err := e.Exchange(header, formMediaType, []byte(passwordGrant)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	wrong := "Basic " + base64.StdEncoding.EncodeToString([]byte("app:a b/c%d"))
	if _, err := e.Exchange(wrong, formMediaType, []byte(passwordGrant)); !errors.Is(err, ErrInvalidClient) {
		t.Errorf("a wrong secret: err = %v, want invalid_client", err)
	}
}

func TestTokenResponseOfThePasswordGrant(t *testing.T) {
	e := testEndpoint(t, "s3cret")
	header := "Basic " + base64.StdEncoding.EncodeToString([]byte("app:s3cret"))
	resp, err := e.Exchange(header, formMediaType, []byte(passwordGrant+"&scope=read"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.TokenType != "bearer" || resp.ExpiresIn != 600 || resp.Scope != "read" || resp.AccessToken == "" || resp.RefreshToken == "" {
		t.Fatalf("response %+v", resp)
	}
	if _, err := e.Exchange(header, formMediaType, []byte("grant_type=password&username=u%40example.com&password=no")); !errors.Is(err, ErrInvalidGrant) {
		t.Fatalf("wrong password: err = %v", err)
	}
}
