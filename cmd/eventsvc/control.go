package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"eventsvc/server"
	"eventsvc/server/clock"
	"eventsvc/server/config"
	"eventsvc/server/control"
	"eventsvc/server/event"
	"eventsvc/server/secret"
)

// controlTokenEnv names the variable that may hold the control API's token,
// so that it need not show in the process list.
const controlTokenEnv = "EVENTSVC_CONTROL_TOKEN"

// mockFlags are the flags that make the server a mock a client developer
// drives: a seed and the control API.
type mockFlags struct {
	seed, control, token *string
}

func addMockFlags(fs *flag.FlagSet) mockFlags {
	return mockFlags{
		seed:    fs.String("seed", "", "JSON file of events to start with, in place of the demo events (docs/control-api.md)"),
		control: fs.String("control", "", "address of the control API, HOST:PORT on loopback such as 127.0.0.1:9090 (default: no control API)"),
		token:   fs.String("control-token", "", "bearer token the control API requires; needed on an address other than loopback (default: $"+controlTokenEnv+")"),
	}
}

// startEvents makes the events the server starts with, afresh at each
// call (the start, and each reset of the control API): those of -seed,
// read and checked once, or else that many demo events dated from at.
func (f mockFlags) startEvents(cfg *config.Config, demo int, at time.Time) (func() []event.Event, error) {
	if *f.seed == "" {
		return control.DemoStart(demo, cfg.Accounts, at), nil
	}
	b, err := os.ReadFile(*f.seed)
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	start, err := control.SeedStart(b, cfg.Accounts)
	if err != nil {
		return nil, fmt.Errorf("seed %q: %w", *f.seed, err)
	}
	return start, nil
}

// listenControl opens the control API's listener, or returns nil when
// there is none. It refuses an address other than loopback without a
// token.
func (f mockFlags) listenControl() (net.Listener, string, error) {
	if *f.control == "" {
		return nil, "", nil
	}
	token := *f.token
	if token == "" {
		token = os.Getenv(controlTokenEnv)
	}
	if err := control.CheckAddress(*f.control, token); err != nil {
		return nil, "", err
	}
	ln, err := net.Listen("tcp", *f.control)
	if err != nil {
		return nil, "", fmt.Errorf("control API: %w", err)
	}
	return ln, token, nil
}

// mock is the server's steerable parts (control.Mock) on the machine's
// clock; the public server is steered by them when the control API is on.
type mock struct{ control.Mock }

func newMock() mock { return mock{control.NewMock(clock.System{})} }

// newControl is the control API of srv, with the public listener's
// timeouts; its writes are logged to stderr, -quiet or not.
func (m mock) newControl(srv *server.Server, cfg *config.Config, events *event.Memory, start func() []event.Event, token string, t timeouts, stderr io.Writer) *control.Control {
	return m.Control(control.Options{
		Server: srv, Events: events, Start: start, Accounts: cfg.Accounts, Clients: cfg.Clients, Cost: secret.DefaultCost, Token: token,
		Logger:      slog.New(slog.NewTextHandler(stderr, nil)),
		ReadTimeout: t.read, IdleTimeout: t.idle, WriteTimeout: t.write,
	})
}
