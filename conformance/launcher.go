package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	"golang.org/x/crypto/bcrypt"

	"eventsvc/server"
	"eventsvc/server/clock"
	"eventsvc/server/config"
	"eventsvc/server/oauth"
	"eventsvc/server/secret"
	"eventsvc/steps"
)

// InProcess starts reference servers inside the test process, each on its own
// loopback port with its own clock, so that scenarios can move time forward
// and share nothing. It implements steps.Launcher.
//
// A scenario that configures no clients or no accounts gets the run's
// credentials: one client with both grants, scopes read and write and
// resource "event"; the user with role USER; the other user with roles ADMIN
// and USER (the shape of the embedded demo set). Their secrets are hashed
// with real bcrypt at Cost, so that the suite stays quick under the race
// detector.
type InProcess struct {
	// Credentials are the client and accounts of the default configuration.
	Credentials steps.Credentials
	// Cost is the bcrypt cost of the default configuration. Zero:
	// bcrypt.MinCost.
	Cost int
	// Start is the time every new server's clock starts at. Zero: the
	// machine's time at launch.
	Start time.Time
	// Log, when set, receives the servers' request logs.
	Log io.Writer
}

// Launch writes cfg as a configuration file, reads it the way `eventsvc
// serve -config` does, and starts a server with it.
func (l InProcess) Launch(cfg steps.ServerConfig) (steps.Instance, error) {
	file, err := l.configFile(cfg)
	if err != nil {
		return nil, err
	}
	conf, err := config.Parse("scenario configuration", bytes.NewReader(file))
	if err != nil {
		return nil, err
	}
	start := l.Start
	if start.IsZero() {
		start = time.Now()
	}
	clk := clock.NewManual(start)
	opts := server.Options{Config: conf, Clock: clk}
	if l.Log != nil {
		opts.Logger = slog.New(slog.NewTextHandler(l.Log, nil))
	}
	srv := server.New(opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen on loopback: %w", err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	return &instance{srv: srv, clock: clk, base: "http://" + ln.Addr().String(), served: served}, nil
}

type instance struct {
	srv    *server.Server
	clock  *clock.Manual
	base   string
	served chan error
}

func (i *instance) BaseURL() string         { return i.base }
func (i *instance) Advance(d time.Duration) { i.clock.Advance(d) }

func (i *instance) Close() error {
	if err := i.srv.Shutdown(); err != nil {
		return fmt.Errorf("stop the reference server: %w", err)
	}
	return <-i.served
}

// configFile renders cfg in the configuration file format, with the default
// entries where cfg leaves a list nil. Plain secrets and passwords are
// stored the way `eventsvc hash-password` prints them.
func (l InProcess) configFile(cfg steps.ServerConfig) ([]byte, error) {
	c := l.Credentials
	if cfg.Clients == nil {
		cfg.Clients = []steps.ClientConfig{{
			ID: c.ClientID, Secret: c.ClientSecret,
			GrantTypes:  []string{oauth.GrantPassword, oauth.GrantRefreshToken},
			Scopes:      []string{oauth.ScopeRead, oauth.ScopeWrite},
			ResourceIDs: []string{server.ResourceID},
		}}
	}
	if cfg.Accounts == nil {
		cfg.Accounts = []steps.AccountConfig{
			{Email: c.OtherUsername, Password: c.OtherPass, Roles: []string{"ADMIN", "USER"}},
			{Email: c.Username, Password: c.Password, Roles: []string{"USER"}},
		}
	}
	var doc config.File
	for _, cl := range cfg.Clients {
		stored, err := l.store(cl.Stored, cl.Secret)
		if err != nil {
			return nil, err
		}
		doc.Clients = append(doc.Clients, config.ClientEntry{
			ClientID: cl.ID, ClientSecret: stored, AuthorizedGrantTypes: cl.GrantTypes,
			Scopes: cl.Scopes, ResourceIDs: cl.ResourceIDs,
		})
	}
	for _, a := range cfg.Accounts {
		stored, err := l.store(a.Stored, a.Password)
		if err != nil {
			return nil, err
		}
		doc.Accounts = append(doc.Accounts, config.AccountEntry{Email: a.Email, Password: stored, Roles: a.Roles})
	}
	return json.MarshalIndent(doc, "", "  ")
}

// store returns stored when it is set, and otherwise plain hashed as
// `eventsvc hash-password` does, with real bcrypt at l.Cost.
func (l InProcess) store(stored, plain string) (string, error) {
	if stored != "" {
		return stored, nil
	}
	cost := l.Cost
	if cost == 0 {
		cost = bcrypt.MinCost
	}
	hashed, err := secret.Hash([]byte(plain), cost)
	if err != nil {
		return "", fmt.Errorf("hash a configured credential: %w", err)
	}
	return hashed, nil
}
