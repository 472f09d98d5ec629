package oauth

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"eventsvc/server/secret"
)

// clientTestHash is the stored form of the secret "pass" at bcrypt.MinCost.
var clientTestHash = func() string {
	h, err := secret.Hash([]byte("pass"), bcrypt.MinCost)
	if err != nil {
		panic(err)
	}
	return h
}()

func clientTestApp(id string) Client {
	return Client{
		ID:          id,
		SecretHash:  clientTestHash,
		GrantTypes:  []string{GrantPassword, GrantRefreshToken},
		Scopes:      []string{ScopeRead, ScopeWrite},
		ResourceIDs: []string{"event"},
	}
}

func TestClientMethods(t *testing.T) {
	c := clientTestApp("myApp")
	c.GrantTypes = []string{GrantPassword}
	c.Scopes = []string{ScopeRead}
	tests := []struct {
		name string
		got  bool
		want bool
	}{
		{"AllowsGrant password", c.AllowsGrant(GrantPassword), true},
		{"AllowsGrant refresh_token", c.AllowsGrant(GrantRefreshToken), false},
		{"AllowsGrant empty", c.AllowsGrant(""), false},
		{"HasScope read", c.HasScope(ScopeRead), true},
		{"HasScope write", c.HasScope(ScopeWrite), false},
		{"HasResource event", c.HasResource("event"), true},
		{"HasResource other", c.HasResource("other"), false},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

func TestClientFormatHidesSecret(t *testing.T) {
	c := clientTestApp("myApp")
	if got, want := c.String(), "client myApp grants [password refresh_token] scopes [read write] resources [event]"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%d", "%x", "%-20v"} {
		for _, v := range []any{c, &c, []Client{c}, struct{ C Client }{c}} {
			got := fmt.Sprintf(verb, v)
			if strings.Contains(got, "$2a$") || strings.Contains(got, "bcrypt") ||
				strings.Contains(got, fmt.Sprintf("%x", "$2a$")) {
				t.Errorf("Sprintf(%q, %T) = %q, shows the secret hash", verb, v, got)
			}
		}
	}
	if got := fmt.Sprintf("%#v", c); !strings.Contains(got, `ID:"myApp"`) || !strings.Contains(got, "REDACTED") {
		t.Errorf("%%#v = %q, want the id and a redacted hash", got)
	}
}

func TestClientRegistryRefuses(t *testing.T) {
	with := func(id string, change func(*Client)) Client {
		c := clientTestApp(id)
		change(&c)
		return c
	}
	tests := []struct {
		name     string
		extra    Client // added as client 2
		wantErr  error
		wantText string
	}{
		{name: "duplicate id", extra: clientTestApp("myApp"), wantErr: ErrDuplicateClient,
			wantText: `client 2 "myApp": duplicate client id, same as client 1`},
		{name: "implicit grant", extra: with("x", func(c *Client) { c.GrantTypes = []string{GrantPassword, "implicit"} }),
			wantErr: ErrUnknownGrantType, wantText: `client 2 "x": unknown grant type "implicit"`},
		{name: "client_credentials grant", extra: with("x", func(c *Client) { c.GrantTypes = []string{"client_credentials"} }),
			wantErr: ErrUnknownGrantType, wantText: `client 2 "x": unknown grant type "client_credentials"`},
		{name: "grant in upper case", extra: with("x", func(c *Client) { c.GrantTypes = []string{"PASSWORD"} }),
			wantErr: ErrUnknownGrantType, wantText: `client 2 "x": unknown grant type "PASSWORD"`},
		{name: "no grant types", extra: with("x", func(c *Client) { c.GrantTypes = nil }),
			wantErr: ErrInvalidClientEntry, wantText: `client 2 "x": invalid client registration: no grant types`},
		{name: "unknown scope", extra: with("x", func(c *Client) { c.Scopes = []string{ScopeRead, "admin"} }),
			wantErr: ErrUnknownScope, wantText: `client 2 "x": unknown scope "admin"`},
		{name: "no scopes", extra: with("x", func(c *Client) { c.Scopes = []string{} }),
			wantErr: ErrInvalidClientEntry, wantText: `client 2 "x": invalid client registration: no scopes`},
		{name: "no resource ids", extra: with("x", func(c *Client) { c.ResourceIDs = nil }),
			wantErr: ErrInvalidClientEntry, wantText: `client 2 "x": invalid client registration: no resource ids`},
		{name: "empty resource id", extra: with("x", func(c *Client) { c.ResourceIDs = []string{"event", ""} }),
			wantErr: ErrInvalidClientEntry, wantText: `client 2 "x": invalid client registration: resource ids`},
		{name: "empty id", extra: clientTestApp(""),
			wantErr: ErrInvalidClientEntry, wantText: `client 2 "": invalid client registration: empty client id`},
		{name: "id too long", extra: clientTestApp(strings.Repeat("x", 257)),
			wantErr: ErrInvalidClientEntry, wantText: `client 2 "` + strings.Repeat("x", 257) + `": invalid client registration: client id longer than 256 bytes`},
		{name: "colon in id", extra: clientTestApp("my:app"),
			wantErr: ErrInvalidClientEntry, wantText: `client 2 "my:app": invalid client registration: client id contains ":"`},
		{name: "control character in id", extra: clientTestApp("my\napp"),
			wantErr: ErrInvalidClientEntry, wantText: `client 2 "my\napp": invalid client registration: client id contains a control character`},
		{name: "secret without marker", extra: with("x", func(c *Client) { c.SecretHash = "hunter2" }),
			wantErr: secret.ErrUnknownScheme, wantText: `client 2 "x": secret: unknown encoding scheme`},
		{name: "noop secret", extra: with("x", func(c *Client) { c.SecretHash = "{noop}hunter2" }),
			wantErr: secret.ErrUnknownScheme, wantText: `client 2 "x": secret: unknown encoding scheme: scheme {noop}`},
		{name: "malformed secret", extra: with("x", func(c *Client) { c.SecretHash = "{bcrypt}hunter2" }),
			wantErr: secret.ErrMalformed, wantText: `client 2 "x": secret: malformed encoded secret`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewClients([]Client{clientTestApp("myApp"), tt.extra})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("NewClients() = %v, %v; want error %v", r, err, tt.wantErr)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, tt.wantText) {
				t.Errorf("NewClients() error = %q, want prefix %q", msg, tt.wantText)
			}
			for _, leak := range []string{"hunter2", "$2a$"} {
				if strings.Contains(msg, leak) {
					t.Errorf("NewClients() error = %q, leaks %q", msg, leak)
				}
			}
		})
	}
}

func TestClientRegistry(t *testing.T) {
	in := []Client{clientTestApp("myApp"), clientTestApp("MyApp")}
	in[1].GrantTypes = []string{GrantPassword, GrantPassword}
	r, err := NewClients(in)
	if err != nil {
		t.Fatal(err)
	}
	in[0].Scopes[0] = "changed"
	c, ok := r.Lookup("myApp")
	if !ok || c.Scopes[0] != ScopeRead {
		t.Errorf("Lookup(myApp) = %v, %v; want it unaffected by its argument", c, ok)
	}
	c.Scopes[0] = "changed"
	if c, _ := r.Lookup("myApp"); c.Scopes[0] != ScopeRead {
		t.Errorf("Lookup returned shared memory: %v", c)
	}
	if c, _ := r.Lookup("MyApp"); len(c.GrantTypes) != 1 {
		t.Errorf("grant types = %v, want repeats dropped", c.GrantTypes)
	}
	if _, ok := r.Lookup("myapp"); ok {
		t.Error("Lookup(myapp) found a client: ids are compared exactly")
	}
}

func TestClientAuthenticate(t *testing.T) {
	r, err := NewClients([]Client{clientTestApp("myApp")})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		id      string
		secret  string
		wantErr error
	}{
		{name: "ok", id: "myApp", secret: "pass"},
		{name: "wrong secret", id: "myApp", secret: "Pass", wantErr: ErrClientNotAuthenticated},
		{name: "empty secret", id: "myApp", secret: "", wantErr: ErrClientNotAuthenticated},
		{name: "id in other case", id: "myapp", secret: "pass", wantErr: ErrClientNotAuthenticated},
		{name: "unknown id", id: "other", secret: "pass", wantErr: ErrClientNotAuthenticated},
		{name: "unknown id, dummy secret", id: "other", secret: clientDummySecret, wantErr: ErrClientNotAuthenticated},
		{name: "user credentials", id: "user@email.com", secret: "user", wantErr: ErrClientNotAuthenticated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := r.Authenticate(tt.id, tt.secret)
			if tt.wantErr != nil {
				if err != tt.wantErr {
					t.Fatalf("Authenticate() = %v, %v; want exactly %v", c, err, tt.wantErr)
				}
				if c.ID != "" {
					t.Errorf("Authenticate() = %v on error, want zero", c)
				}
				return
			}
			if err != nil || c.ID != tt.id || !c.AllowsGrant(GrantPassword) {
				t.Fatalf("Authenticate() = %v, %v", c, err)
			}
		})
	}
}

func TestClientRegistryEmptyAndConcurrent(t *testing.T) {
	empty, err := NewClients(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := empty.Authenticate("myApp", "pass"); err != ErrClientNotAuthenticated {
		t.Errorf("Authenticate() on empty registry = %v", err)
	}
	r, err := NewClients([]Client{clientTestApp("myApp")})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := r.Authenticate("myApp", "pass"); err != nil {
				t.Error(err)
			}
			r.Lookup("myApp")
		})
	}
	wg.Wait()
}
