// Package inprocess starts reference servers inside the test process:
// the Launcher of a run without a base address, which gives each
// scenario a server of its own, and the one server an exploration in
// process explores.
package inprocess

import (
	"fmt"
	"io"
	"log/slog"
	"time"

	"golang.org/x/crypto/bcrypt"

	"eventsvc/conformance/target"
	"eventsvc/server"
	"eventsvc/server/clock"
	"eventsvc/server/config"
	"eventsvc/server/oauth"
	"eventsvc/server/secret"
	"eventsvc/server/servertest"
)

// Launcher starts reference servers inside the test process, each on its own
// loopback port with its own clock, so that scenarios can move time forward
// and share nothing. It implements target.Launcher.
//
// A scenario that configures no clients or no accounts gets the run's
// credentials: one client with both grants, scopes read and write and
// resource "event"; the user with role USER; the other user with roles ADMIN
// and USER (the shape of the embedded demo set). Their secrets are hashed
// with real bcrypt at Cost, so that the suite stays quick under the race
// detector.
type Launcher struct {
	// Credentials are the client and accounts of the default configuration.
	Credentials target.Credentials
	// Cost is the bcrypt cost of the default configuration. Zero:
	// bcrypt.MinCost.
	Cost int
	// Start is the time every new server's clock starts at. Zero: the
	// machine's time at launch.
	Start time.Time
	// Log, when set, receives the servers' request logs.
	Log io.Writer
	// RealTime makes the servers' clocks follow the machine's, as a
	// deployed server's does: their budgets of token requests refill and
	// their tokens age as time passes, Advance moving them further on. By
	// default a server's clock moves only when Advance moves it, so that
	// the scenarios that let time pass do not wait for it.
	RealTime bool
}

// Launch makes cfg a configuration with config.New, which refuses what
// `eventsvc serve -config` refuses in a file, and starts a server with it.
func (l Launcher) Launch(cfg target.ServerConfig) (target.Instance, error) {
	file, err := l.ConfigFile(cfg)
	if err != nil {
		return nil, err
	}
	conf, err := config.New(file)
	if err != nil {
		return nil, err
	}
	start := l.Start
	if start.IsZero() {
		start = time.Now()
	}
	var clk interface {
		clock.Clock
		advance(time.Duration)
	} = manual{clock.NewManual(start)}
	if l.RealTime || cfg.RealTime {
		clk = offset{clock.NewOffset(clock.System{})}
	}
	opts := server.Options{Config: conf, Clock: clk, MaxEventsPerUser: cfg.MaxEventsPerUser}
	if l.Log != nil {
		opts.Logger = slog.New(slog.NewTextHandler(l.Log, nil))
	}
	srv, err := servertest.Start(server.New(opts))
	if err != nil {
		return nil, err
	}
	return &instance{srv: srv, clock: clk}, nil
}

type instance struct {
	srv   *servertest.Running
	clock interface{ advance(time.Duration) }
}

// manual and offset are the clocks an instance moves.
type (
	manual struct{ *clock.Manual }
	offset struct{ *clock.Offset }
)

func (m manual) advance(d time.Duration) { m.Advance(d) }
func (o offset) advance(d time.Duration) { _, _ = o.Advance(d) }

func (i *instance) BaseURL() string         { return i.srv.URL }
func (i *instance) Advance(d time.Duration) { i.clock.advance(d) }
func (i *instance) Close() error            { return i.srv.Close() }

// ConfigFile is cfg as the entries of a configuration file, with the default
// entries where cfg leaves a list nil: the configuration Launch starts a
// server with. Plain secrets and passwords are stored the way `eventsvc
// hash-password` prints them.
func (l Launcher) ConfigFile(cfg target.ServerConfig) (config.File, error) {
	c := l.Credentials
	if cfg.Clients == nil {
		cfg.Clients = []target.ClientConfig{{
			ID: c.ClientID, Secret: c.ClientSecret,
			GrantTypes:  []string{oauth.GrantPassword, oauth.GrantRefreshToken},
			Scopes:      []string{oauth.ScopeRead, oauth.ScopeWrite},
			ResourceIDs: []string{server.ResourceID},
		}}
	}
	if cfg.Accounts == nil {
		cfg.Accounts = []target.AccountConfig{
			{Email: c.OtherUsername, Password: c.OtherPass, Roles: []string{"ADMIN", "USER"}},
			{Email: c.Username, Password: c.Password, Roles: []string{"USER"}},
		}
	}
	var doc config.File
	for _, cl := range cfg.Clients {
		stored, err := l.store(cl.Stored, cl.Secret)
		if err != nil {
			return config.File{}, err
		}
		doc.Clients = append(doc.Clients, config.ClientEntry{
			ClientID: cl.ID, ClientSecret: stored, AuthorizedGrantTypes: cl.GrantTypes,
			Scopes: cl.Scopes, ResourceIDs: cl.ResourceIDs,
		})
	}
	for _, a := range cfg.Accounts {
		stored, err := l.store(a.Stored, a.Password)
		if err != nil {
			return config.File{}, err
		}
		doc.Accounts = append(doc.Accounts, config.AccountEntry{Email: a.Email, Password: stored, Roles: a.Roles})
	}
	return doc, nil
}

// store returns stored when it is set, and otherwise plain hashed as
// `eventsvc hash-password` does, with real bcrypt at l.Cost.
func (l Launcher) store(stored, plain string) (string, error) {
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
