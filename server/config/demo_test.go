package config

import (
	"strings"
	"testing"

	"eventsvc/server/account"
	"eventsvc/server/oauth"
	"eventsvc/server/secret"
)

func TestDemo(t *testing.T) {
	cfg, err := Demo()
	if err != nil {
		t.Fatalf("Demo() error = %v", err)
	}
	c, ok := cfg.Clients.Lookup(demoClientID)
	if !ok {
		t.Fatalf("no client %q", demoClientID)
	}
	for _, g := range []string{oauth.GrantPassword, oauth.GrantRefreshToken} {
		if !c.AllowsGrant(g) {
			t.Errorf("client does not allow %s: %v", g, c)
		}
	}
	if len(c.GrantTypes) != 2 || len(c.Scopes) != 2 || !c.HasScope(oauth.ScopeRead) || !c.HasScope(oauth.ScopeWrite) ||
		len(c.ResourceIDs) != 1 || !c.HasResource("event") {
		t.Errorf("client = %v, want grants password, refresh_token; scopes read, write; resource event", c)
	}
	if cfg.Accounts.Len() != 2 {
		t.Errorf("Accounts.Len() = %d, want 2", cfg.Accounts.Len())
	}
	for email, want := range map[string][]account.Role{
		demoAdminEmail: {account.Admin, account.User},
		demoUserEmail:  {account.User},
	} {
		a, ok := cfg.Accounts.ByEmail(email)
		if !ok || len(a.Roles) != len(want) {
			t.Errorf("account %s = %v, want roles %v", email, a, want)
			continue
		}
		for _, r := range want {
			if !a.HasRole(r) {
				t.Errorf("account %s = %v, want role %s", email, a, r)
			}
		}
	}
}

// TestDemoNoticeMatchesHashes checks, with the real cost-10 hashes, that the
// plain texts DemoNotice prints are the ones demo.json stores.
func TestDemoNoticeMatchesHashes(t *testing.T) {
	cfg, err := Demo()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		id, password string
		check        func(id, password string) error
	}{
		{name: "client", id: demoClientID, password: demoClientSecret, check: func(id, pw string) error {
			_, err := cfg.Clients.Authenticate(id, pw)
			return err
		}},
		{name: "admin", id: demoAdminEmail, password: demoAdminPassword, check: func(id, pw string) error {
			_, err := cfg.Accounts.Authenticate(id, pw)
			return err
		}},
		{name: "user", id: demoUserEmail, password: demoUserPassword, check: func(id, pw string) error {
			_, err := cfg.Accounts.Authenticate(id, pw)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(DemoNotice, tt.id+" / "+tt.password+" ") {
				t.Errorf("DemoNotice does not list %s / %s", tt.id, tt.password)
			}
			if err := tt.check(tt.id, tt.password); err != nil {
				t.Errorf("%s / %s does not match demo.json: %v", tt.id, tt.password, err)
			}
			if err := tt.check(tt.id, tt.password+"x"); err == nil {
				t.Errorf("%s accepts a wrong password", tt.id)
			}
		})
	}
	if n := strings.Count(demoJSON, "{bcrypt}$2a$10$"); n != len(tests) {
		t.Errorf("demo.json has %d cost-10 {bcrypt} hashes, want %d", n, len(tests))
	}
	for _, want := range []string{"public", "local use only", "-config FILE", "ADMIN, USER"} {
		if !strings.Contains(DemoNotice, want) {
			t.Errorf("DemoNotice does not say %q", want)
		}
	}
	if strings.Contains(DemoNotice, "$2a$") {
		t.Error("DemoNotice shows a hash")
	}
	if secret.DefaultCost != 10 {
		t.Errorf("secret.DefaultCost = %d, the demo hashes are cost 10", secret.DefaultCost)
	}
}
