// Package control is the reference server's control API: a JSON API on its
// own listener, off by default, that lets a client developer steer the
// server while building a client. It resets the server to its start state,
// seeds its events, reads and moves its clock, lists its live tokens and
// its request journal (masked), and injects faults.
//
// It listens on a loopback address unless it requires a bearer token
// (CheckAddress), and logs every write.
package control

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"

	"eventsvc/server"
	"eventsvc/server/account"
	"eventsvc/server/clock"
	"eventsvc/server/event"
	"eventsvc/server/fault"
	"eventsvc/server/journal"
)

// Realm is the realm of the control API's WWW-Authenticate challenge.
const Realm = "control"

// BodyLimit is the largest body the control API reads (a seed): 8 MiB.
const BodyLimit = 8 << 20

// Options are what the control API steers. Every field but Token and
// Logger is required.
type Options struct {
	// Server is the public server: its tokens and lockouts.
	Server *server.Server
	// Events is the server's event store.
	Events *event.Memory
	// Start makes the events the server started with, afresh for each
	// reset, which puts them back (the store keeps what it is given).
	// Nil: none.
	Start func() []event.Event
	// Accounts find the manager of a seeded event by email.
	Accounts *account.Registry
	// Clock is the server's clock.
	Clock *clock.Offset
	// Faults are the fault rules applied to the public server.
	Faults *fault.Set
	// Journal is the public server's request journal.
	Journal *journal.Journal
	// Token, when set, must be sent as "Authorization: Bearer TOKEN" with
	// every request. Required on an address other than loopback.
	Token string
	// Logger receives one line per write (reset, seed, clock, faults).
	// Nil: slog.Default().
	Logger *slog.Logger
}

// Control is the control API's server.
type Control struct {
	opts Options
	app  *fiber.App

	mu        sync.Mutex
	listeners []net.Listener
	stopped   bool
}

// New returns the control API, ready to Serve.
func New(o Options) *Control {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	c := &Control{opts: o}
	c.app = fiber.New(fiber.Config{
		AppName:               "eventsvc-control",
		DisableStartupMessage: true,
		CaseSensitive:         true,
		BodyLimit:             BodyLimit,
		ErrorHandler:          errorHandler,
	})
	c.app.Use(c.logWrites)
	c.app.Use(c.authenticate)
	c.app.Get("/", c.handleState)
	c.app.Post("/reset", c.handleReset)
	c.app.Put("/events", c.handleSeed)
	c.app.Get("/clock", c.handleClock)
	c.app.Post("/clock", c.handleAdvance)
	c.app.Get("/tokens", c.handleTokens)
	c.app.Get("/journal", c.handleJournal)
	c.app.Get("/faults", c.handleFaults)
	c.app.Post("/faults", c.handleAddFault)
	c.app.Delete("/faults", c.handleClearFaults)
	c.app.Delete("/faults/:id", c.handleRemoveFault)
	c.app.Use(func(*fiber.Ctx) error { return fiber.ErrNotFound })
	return c
}

// App returns the Fiber application, for tests that call app.Test.
func (c *Control) App() *fiber.App { return c.app }

// Serve answers requests on ln until Shutdown, then returns nil.
func (c *Control) Serve(ln net.Listener) error {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return ln.Close()
	}
	c.listeners = append(c.listeners, ln)
	c.mu.Unlock()
	err := c.app.Listener(ln)
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// Shutdown stops accepting requests and waits, at most
// server.ShutdownTimeout, for those in flight.
func (c *Control) Shutdown() error {
	err := c.app.ShutdownWithTimeout(server.ShutdownTimeout)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	for _, ln := range c.listeners {
		_ = ln.Close()
	}
	return err
}

// ErrExposed refuses a control API on an address other than loopback
// without a token.
var ErrExposed = errors.New("the control API listens on a loopback address unless -control-token is given")

// CheckAddress refuses addr, a HOST:PORT to listen on, when its host is not
// a loopback address ("localhost", 127.0.0.0/8, ::1) and token is empty:
// the control API can reset the server and read its journal, and must not
// be open to the network. An empty host (every interface) is not loopback.
func CheckAddress(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("control address %q: %w", addr, err)
	}
	if token != "" || isLoopback(host) {
		return nil
	}
	return fmt.Errorf("control address %q: %w", addr, ErrExposed)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// authenticate requires the bearer token, when there is one (RFC 6750
// §2.1), compared in constant time.
func (c *Control) authenticate(ctx *fiber.Ctx) error {
	if c.opts.Token == "" {
		return ctx.Next()
	}
	scheme, value, _ := strings.Cut(ctx.Get(fiber.HeaderAuthorization), " ")
	if strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(value)), []byte(c.opts.Token)) == 1 {
		return ctx.Next()
	}
	ctx.Set(fiber.HeaderWWWAuthenticate, fmt.Sprintf("Bearer realm=%q", Realm))
	return &apiError{Status: http.StatusUnauthorized, Code: "unauthorized", Description: "the control API needs its token: send Authorization: Bearer TOKEN (the -control-token of eventsvc serve)"}
}

// changeKey is the Fiber local where a write handler says what it changed,
// for the log.
const changeKey = "eventsvc.control.change"

// said records what a write changed, for the log line.
func said(ctx *fiber.Ctx, format string, args ...any) {
	ctx.Locals(changeKey, fmt.Sprintf(format, args...))
}

// logWrites writes one line for every request that is not a read: method,
// path, status, what changed (or why it was refused), and the caller's
// address. It never writes a header or a body.
func (c *Control) logWrites(ctx *fiber.Ctx) error {
	err := ctx.Next()
	if ctx.Method() == fiber.MethodGet || ctx.Method() == fiber.MethodHead {
		return err
	}
	if err != nil {
		if herr := ctx.App().ErrorHandler(ctx, err); herr != nil {
			_ = ctx.SendStatus(fiber.StatusInternalServerError)
		}
		var ae *apiError
		if errors.As(err, &ae) {
			said(ctx, "refused: %s", ae.Description)
		}
		err = nil
	}
	change, _ := ctx.Locals(changeKey).(string)
	c.opts.Logger.LogAttrs(ctx.UserContext(), slog.LevelInfo, "control",
		slog.String("method", ctx.Method()),
		slog.String("path", strings.ToValidUTF8(ctx.Path(), "?")),
		slog.Int("status", ctx.Response().StatusCode()),
		slog.String("change", change),
		slog.String("remote", ctx.IP()),
	)
	return err
}
