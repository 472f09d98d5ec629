package server

import (
	"net"
	"net/http"
	"testing"
	"time"

	"eventsvc/server/clock"
	"eventsvc/server/config"
	"eventsvc/server/oauth"
	"eventsvc/server/secret"
	"eventsvc/server/servertest"
)

const (
	loadClientID     = "loadApp"
	loadClientSecret = "load-secret"
)

// loadUsers are the accounts of the load test; worker w acts as
// loadUsers[w%len(loadUsers)], so that several workers share an account
// and update the same events at once.
var loadUsers = []struct{ email, password string }{
	{"alice@load.example", "alice-pw"},
	{"bob@load.example", "bob-pw"},
	{"carol@load.example", "carol-pw"},
}

// startLoadServer serves conf on a loopback port until the test ends and
// returns its base URL.
func startLoadServer(tb testing.TB, conf *config.Config) string {
	tb.Helper()
	// All workers share one address, and the clock stands still: the
	// token endpoint's budget per address (tested on its own) is off.
	return servertest.New(tb, New(Options{Config: conf, Clock: clock.NewManual(time.Now()), TokenRate: -1})).URL
}

// loadClient is a plain client with a bounded transport and timeouts.
func loadClient(tb testing.TB, conns int) *http.Client {
	tr := &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxConnsPerHost:       conns,
		MaxIdleConnsPerHost:   conns,
		IdleConnTimeout:       30 * time.Second,
		ResponseHeaderTimeout: 10 * time.Second,
		DisableCompression:    true,
	}
	tb.Cleanup(tr.CloseIdleConnections) // runs before the server's Shutdown
	return &http.Client{
		Transport: tr,
		Timeout:   15 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// demoConfig is the configuration eventsvc starts with: the demo clients
// and accounts.
func demoConfig(tb testing.TB) *config.Config {
	tb.Helper()
	conf, err := config.Demo()
	if err != nil {
		tb.Fatal(err)
	}
	return conf
}

func loadConfig(t *testing.T) *config.Config {
	t.Helper()
	hash := func(plain string) string {
		h, err := secret.Hash([]byte(plain), loadCost)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	doc := config.File{Clients: []config.ClientEntry{{
		ClientID: loadClientID, ClientSecret: hash(loadClientSecret),
		AuthorizedGrantTypes: []string{oauth.GrantPassword, oauth.GrantRefreshToken},
		Scopes:               []string{oauth.ScopeRead, oauth.ScopeWrite},
		ResourceIDs:          []string{ResourceID},
	}}}
	for _, u := range loadUsers {
		doc.Accounts = append(doc.Accounts, config.AccountEntry{Email: u.email, Password: hash(u.password), Roles: []string{"USER"}})
	}
	conf, err := config.New(doc)
	if err != nil {
		t.Fatal(err)
	}
	return conf
}
