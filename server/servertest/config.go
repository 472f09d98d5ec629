package servertest

import (
	"testing"

	"golang.org/x/crypto/bcrypt"

	"eventsvc/server/config"
	"eventsvc/server/secret"
)

// DemoConfig is the embedded demo configuration (client myApp/pass,
// admin@email.com/admin, user@email.com/user) with its secrets hashed by
// real bcrypt at its lowest cost, so that tests log in quickly.
func DemoConfig(tb testing.TB) *config.Config {
	tb.Helper()
	hash := func(plain string) string {
		h, err := secret.Hash([]byte(plain), bcrypt.MinCost)
		if err != nil {
			tb.Fatal(err)
		}
		return h
	}
	cfg, err := config.New(config.File{
		Clients: []config.ClientEntry{{ClientID: "myApp", ClientSecret: hash("pass"),
			AuthorizedGrantTypes: []string{"password", "refresh_token"}, Scopes: []string{"read", "write"}, ResourceIDs: []string{"event"}}},
		Accounts: []config.AccountEntry{
			{Email: "admin@email.com", Password: hash("admin"), Roles: []string{"ADMIN", "USER"}},
			{Email: "user@email.com", Password: hash("user"), Roles: []string{"USER"}},
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}
