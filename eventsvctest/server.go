package eventsvctest

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"eventsvc/server"
	"eventsvc/server/clock"
	"eventsvc/server/config"
	"eventsvc/server/control"
	"eventsvc/server/event"
	"eventsvc/server/oauth"
	"eventsvc/server/servertest"
)

// The demo credentials a Server accepts unless Options.Config replaces
// them: those of `eventsvc serve`. They are public, for tests and local
// use only.
const (
	ClientID      = "myApp"
	ClientSecret  = "pass"
	User          = "user@email.com" // roles USER
	UserPassword  = "user"
	Admin         = "admin@email.com" // roles ADMIN, USER
	AdminPassword = "admin"
)

// DemoEvents is how many demo events a Server starts with, unless
// Options.Events or Options.NoDemoEvents say otherwise: those of
// `eventsvc serve`, dated from the server's clock and managed in turn by
// each account.
const DemoEvents = 25

// Options change how a Server starts. The zero value is the documented
// default: the demo credentials, DemoEvents demo events, the
// specification's token lifetimes and the machine's clock.
type Options struct {
	// AccessTTL and RefreshTTL are the lifetimes of the tokens the server
	// issues, whole seconds. Zero: the specification's, 600 s and 3600 s
	// (oauth.DefaultLifetimes); any other value makes the server say it
	// does not conform (State.Conforms).
	AccessTTL, RefreshTTL time.Duration
	// Events are the events the server starts with, and that Reset puts
	// back, in place of the demo events; their ids are given from 1 in
	// this order.
	Events []Event
	// NoDemoEvents starts the server with no event when Events is empty.
	NoDemoEvents bool
	// Clock is the clock the server's clock reads before AdvanceClock
	// moves it. Nil: clock.System{}, the machine's; clock.NewManual(t)
	// stands still at t, so that a test's tokens and dates are the same
	// at each run.
	Clock clock.Clock
	// Config holds the clients and accounts. Nil: the demo credentials
	// (ClientID, User, Admin), their secrets hashed by bcrypt at its
	// lowest cost so that logins are fast.
	Config *config.Config
	// FailOnClientFindings fails the test at its end when its client
	// broke the client's side of the specification (ClientFindings),
	// with the findings as the failure's message.
	FailOnClientFindings bool
}

// Server is the Event Service reference server, running in the test's
// process on a loopback port, with its control API on another. Its
// methods call the control API over HTTP; each takes the calling test's
// testing.TB and fails it, with the control API's error_description,
// when the control API refuses the request or cannot be reached (as
// httptest and testing's helpers do, so that a test reads as a list of
// steps).
//
// A Server is safe for use by concurrent tests, which share its state.
type Server struct {
	// URL is the public API's base URL, http://127.0.0.1:PORT, without a
	// trailing slash: a client under test starts from URL + "/api".
	URL string
	// ControlURL is the control API's base URL, http://127.0.0.1:PORT,
	// without a trailing slash (docs/control-api.md).
	ControlURL string

	client *http.Client
}

// controlTimeout bounds a call of the control API.
const controlTimeout = 10 * time.Second

// NewServer starts a reference server and its control API, each on
// 127.0.0.1 on a port the system picks, and stops both, gracefully, when
// tb and its subtests end (tb.Cleanup); a shutdown that fails fails tb.
// The server logs every request, every write of the control API and the
// cause of every failure (500) to a buffer that goes to tb.Log only when
// tb has failed. Options it cannot use (a lifetime that is not whole
// seconds, an invalid event) fail tb at once.
func NewServer(tb testing.TB, opts Options) *Server {
	tb.Helper()
	cfg := opts.Config
	if cfg == nil {
		cfg = servertest.DemoConfig(tb)
	}
	lifetimes := oauth.DefaultLifetimes()
	if opts.AccessTTL != 0 {
		lifetimes.Access = opts.AccessTTL
	}
	if opts.RefreshTTL != 0 {
		lifetimes.Refresh = opts.RefreshTTL
	}
	if err := lifetimes.Validate(); err != nil {
		tb.Fatalf("eventsvctest: token lifetimes: %v", err)
		return nil
	}
	base := opts.Clock
	if base == nil {
		base = clock.System{}
	}
	start, err := startEvents(opts, cfg, base.Now())
	if err != nil {
		tb.Fatalf("eventsvctest: Options.Events: %v", err)
		return nil
	}
	events := event.NewMemory()
	events.Replace(start())

	log := &servertest.Log{}
	logger := slog.New(slog.NewTextHandler(log, nil))
	tb.Cleanup(func() { // registered first: runs once both have stopped
		if tb.Failed() && log.String() != "" {
			tb.Logf("eventsvctest: the server's log:\n%s", log.String())
		}
	})
	m := control.NewMock(base)
	sopts := server.Options{Config: cfg, Events: events, Lifetimes: lifetimes, Logger: logger}
	m.Steer(&sopts)
	if err := sopts.Validate(); err != nil {
		tb.Fatalf("eventsvctest: %v", err)
		return nil
	}
	srv := server.New(sopts)
	ctl := m.Control(control.Options{Server: srv, Events: events, Start: start, Accounts: cfg.Accounts, Clients: cfg.Clients, Cost: bcrypt.MinCost, Logger: logger})
	s := &Server{client: &http.Client{Timeout: controlTimeout}}
	s.URL = servertest.New(tb, srv).URL
	s.ControlURL = servertest.New(tb, ctl).URL
	tb.Cleanup(s.client.CloseIdleConnections) // before the control API stops
	if opts.FailOnClientFindings {
		tb.Cleanup(func() { s.failOnClientFindings(tb) })
	}
	return s
}

// startEvents is the Start of the control API: the events of opts, or the
// demo events dated from now, or none.
func startEvents(opts Options, cfg *config.Config, now time.Time) (func() []event.Event, error) {
	switch {
	case len(opts.Events) > 0:
		b, err := json.Marshal(opts.Events)
		if err != nil {
			return nil, fmt.Errorf("write the seed: %w", err)
		}
		return control.SeedStart(b, cfg.Accounts)
	case opts.NoDemoEvents:
		return control.DemoStart(0, cfg.Accounts, now), nil
	}
	return control.DemoStart(DemoEvents, cfg.Accounts, now), nil
}

// answer calls the control API as call does and returns its answer read
// as a T; the zero T when the call fails.
func answer[T any](tb testing.TB, s *Server, method, path string, in any) T {
	tb.Helper()
	var out T
	s.call(tb, method, path, in, &out)
	return out
}

// member calls the control API as call does and returns the member name of
// its answer, an object, read as a T; the zero T when the call fails or
// the answer has no such member.
func member[T any](tb testing.TB, s *Server, method, path string, in any, name string) T {
	tb.Helper()
	var out T
	var members map[string]json.RawMessage
	if !s.call(tb, method, path, in, &members) {
		return out
	}
	if raw, ok := members[name]; ok {
		if err := json.Unmarshal(raw, &out); err != nil {
			tb.Fatalf("eventsvctest: %s %s: read the answer: %v", method, path, err)
		}
	}
	return out
}

// remove removes the account or client at path (DELETE) and returns it
// and how many of its live tokens were revoked.
func remove[T any](tb testing.TB, s *Server, path string) (removed T, revokedTokens int) {
	tb.Helper()
	out := answer[struct {
		Removed       T   `json:"removed"`
		RevokedTokens int `json:"revokedTokens"`
	}](tb, s, http.MethodDelete, path, nil)
	return out.Removed, out.RevokedTokens
}
