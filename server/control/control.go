// Package control is the reference server's control API: a JSON API on its
// own listener, off by default, that lets a client developer steer the
// server while building a client. It resets the server to its start state,
// seeds its events, reads and moves its clock, lists its live tokens and
// its request journal (masked), injects faults, and adds, changes and
// removes accounts and clients.
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
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"eventsvc/server"
	"eventsvc/server/account"
	"eventsvc/server/clientcheck"
	"eventsvc/server/clock"
	"eventsvc/server/event"
	"eventsvc/server/fault"
	"eventsvc/server/journal"
	"eventsvc/server/local"
	"eventsvc/server/oauth"
	"eventsvc/server/secret"
	"eventsvc/server/throttle"
)

// Realm is the realm of the control API's WWW-Authenticate challenge.
const Realm = "control"

// BodyLimit is the largest body the control API reads (a seed): 8 MiB.
const BodyLimit = 8 << 20

// Options are what the control API steers. Every field but Start, Token,
// Logger, Cost and the timeouts is required.
type Options struct {
	// Server is the public server: its tokens and lockouts.
	Server *server.Server
	// Events is the server's event store.
	Events *event.Memory
	// Start makes the events the server started with, afresh for each
	// reset, which puts them back (the store keeps what it is given).
	// Nil: none.
	Start func() []event.Event
	// Accounts are the server's accounts: the control API lists, adds,
	// changes and removes them (GET, POST /users, PATCH, DELETE
	// /users/{email}), and finds the manager of a seeded event among them.
	Accounts *account.Registry
	// Clients are the server's client registrations, listed, added,
	// changed and removed through /clients.
	Clients *oauth.Clients
	// Cost is the bcrypt cost of the passwords and secrets the control API
	// is given plain. Zero: secret.DefaultCost.
	Cost int
	// Clock is the server's clock.
	Clock *clock.Offset
	// Faults are the fault rules applied to the public server.
	Faults *fault.Set
	// Journal is the public server's request journal.
	Journal *journal.Journal
	// Findings are the client checks of the public server: GET and
	// DELETE /findings. Nil: the control API answers them with none.
	Findings *clientcheck.Checker
	// Token, when set, must be sent as "Authorization: Bearer TOKEN" with
	// every request. Required on an address other than loopback.
	Token string
	// Logger receives one line per write (reset, seed, clock, faults).
	// Nil: slog.Default().
	Logger *slog.Logger
	// ReadTimeout, IdleTimeout and WriteTimeout bound a request, an idle
	// kept-alive connection and an answer, as on the public server. Zero:
	// server.DefaultReadTimeout, DefaultIdleTimeout, DefaultWriteTimeout.
	ReadTimeout, IdleTimeout, WriteTimeout time.Duration
}

// Control is the control API's server.
type Control struct {
	opts Options
	app  *fiber.App
	// failures counts the failed authentications of each address, on
	// the machine's clock (not the server's, which the API moves).
	failures *throttle.Throttle

	// start holds the accounts and clients the server started with, for
	// POST /reset.
	start credentials

	listeners server.Listeners
	mu        sync.Mutex
	snapshot  *snapshot // POST /snapshot's; nil before one

	// credMu makes each change of the accounts or the clients (read, change,
	// replace) one step; the server reads them without it.
	credMu sync.Mutex
}

// credentials are the accounts and the clients as they were at a moment.
type credentials struct {
	accounts []account.Account
	clients  []oauth.Client
}

// snapshot is what POST /snapshot keeps.
type snapshot struct {
	events []event.Event
	credentials
}

// New returns the control API, ready to Serve.
func New(o Options) *Control {
	if o.Accounts == nil || o.Clients == nil {
		panic("control: New needs Options.Accounts and Options.Clients")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Cost == 0 {
		o.Cost = secret.DefaultCost
	}
	c := &Control{opts: o, start: credentials{accounts: o.Accounts.All(), clients: o.Clients.All()}, failures: throttle.New(throttle.Limits{
		Failures: AuthFailures, Window: AuthWindow, Lockout: AuthLockout, MaxKeys: throttle.DefaultMaxKeys,
	}, clock.System{})}
	c.app = fiber.New(fiber.Config{
		AppName:               "eventsvc-control",
		DisableStartupMessage: true,
		CaseSensitive:         true,
		BodyLimit:             BodyLimit,
		ReadTimeout:           orDefault(o.ReadTimeout, server.DefaultReadTimeout),
		IdleTimeout:           orDefault(o.IdleTimeout, server.DefaultIdleTimeout),
		WriteTimeout:          orDefault(o.WriteTimeout, server.DefaultWriteTimeout),
		ErrorHandler:          errorHandler,
		// A multipart body is refused for its media type (refuseBrowsers),
		// not parsed before.
		DisablePreParseMultipartForm: true,
	})
	c.app.Use(c.logWrites)
	c.app.Use(c.refuseBrowsers(local.Policy{AnyHost: o.Token != ""}))
	c.app.Use(c.authenticate)
	routes := []struct {
		method, path string
		handler      fiber.Handler
	}{
		{fiber.MethodGet, "/", c.handleState},
		{fiber.MethodGet, "/openapi.json", c.handleOpenAPI},
		{fiber.MethodPost, "/reset", c.handleReset},
		{fiber.MethodPost, "/snapshot", c.handleSnapshot},
		{fiber.MethodPut, "/events", c.handleSeed},
		{fiber.MethodGet, "/clock", c.handleClock},
		{fiber.MethodPost, "/clock", c.handleAdvance},
		{fiber.MethodGet, "/tokens", c.handleTokens},
		{fiber.MethodPost, "/tokens/revoke", c.handleRevokeTokens},
		{fiber.MethodPost, "/tokens/expire", c.handleExpireTokens},
		{fiber.MethodGet, "/journal", c.handleJournal},
		{fiber.MethodDelete, "/journal", c.handleClearJournal},
		{fiber.MethodGet, "/journal/count", c.handleJournalCount},
		{fiber.MethodGet, "/findings", c.handleFindings},
		{fiber.MethodDelete, "/findings", c.handleClearFindings},
		{fiber.MethodGet, "/faults", c.handleFaults},
		{fiber.MethodPost, "/faults", c.handleAddFault},
		{fiber.MethodDelete, "/faults", c.handleClearFaults},
		{fiber.MethodDelete, "/faults/:id", c.handleRemoveFault},
		{fiber.MethodGet, "/users", c.handleUsers},
		{fiber.MethodPost, "/users", c.handleAddUser},
		{fiber.MethodPatch, "/users/:email", c.handleChangeUser},
		{fiber.MethodDelete, "/users/:email", c.handleRemoveUser},
		{fiber.MethodGet, "/clients", c.handleClients},
		{fiber.MethodPost, "/clients", c.handleAddClient},
		{fiber.MethodPatch, "/clients/:id", c.handleChangeClient},
		{fiber.MethodDelete, "/clients/:id", c.handleRemoveClient},
	}
	allowed := map[string][]string{} // by path pattern
	for _, r := range routes {
		c.app.Add(r.method, r.path, r.handler)
		allowed[r.path] = append(allowed[r.path], r.method)
		if r.method == fiber.MethodGet {
			allowed[r.path] = append(allowed[r.path], fiber.MethodHead)
		}
	}
	c.app.Use(func(ctx *fiber.Ctx) error { return methodNotAllowed(ctx, allowed) })
	return c
}

// methodNotAllowed answers a request no route took: 405 with Allow when
// its path has routes for other methods, 404 otherwise.
func methodNotAllowed(ctx *fiber.Ctx, allowed map[string][]string) error {
	p := ctx.Path()
	for pattern, methods := range allowed {
		if matches(pattern, p) {
			ctx.Set(fiber.HeaderAllow, strings.Join(methods, ", "))
			return &apiError{Status: http.StatusMethodNotAllowed, Code: "method_not_allowed",
				Description: fmt.Sprintf("%s is not served at %s: it takes %s", ctx.Method(), p, strings.Join(methods, ", "))}
		}
	}
	return fiber.ErrNotFound
}

// matches reports whether path is one of pattern's: the same segments,
// where a parameter (":id", ":email") stands for any non-empty one.
func matches(pattern, path string) bool {
	ps, qs := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(ps) != len(qs) {
		return false
	}
	for i, seg := range ps {
		if seg != qs[i] && (!strings.HasPrefix(seg, ":") || qs[i] == "") {
			return false
		}
	}
	return true
}

// orDefault is d, or def when d is zero.
func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// App returns the Fiber application, for tests that call app.Test.
func (c *Control) App() *fiber.App { return c.app }

// Serve answers requests on ln until Shutdown, then returns nil.
func (c *Control) Serve(ln net.Listener) error {
	return c.listeners.Serve(ln, c.app.Listener)
}

// Shutdown stops accepting requests and waits, at most
// server.ShutdownTimeout, for those in flight.
func (c *Control) Shutdown() error {
	err := c.app.ShutdownWithTimeout(server.ShutdownTimeout)
	c.listeners.Close()
	return err
}

// ErrExposed refuses a control API on an address other than loopback
// without a token.
var ErrExposed = errors.New("the control API listens on a loopback address unless -control-token is given")

// MinTokenLen is the shortest token the control API takes: 16 characters,
// so that a token is never a word one could guess (`openssl rand -hex 16`
// makes one of 32).
const MinTokenLen = 16

// ErrWeakToken refuses a token shorter than MinTokenLen.
var ErrWeakToken = fmt.Errorf("the control token must be at least %d characters (make one with: openssl rand -hex 16)", MinTokenLen)

// CheckAddress refuses addr, a HOST:PORT to listen on, when its host is not
// a loopback address ("localhost", 127.0.0.0/8, ::1) and token is empty:
// the control API can reset the server and read its journal, and must not
// be open to the network. An empty host (every interface) is not loopback.
// A token shorter than MinTokenLen is refused wherever it is given.
func CheckAddress(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("control address %q: %w", addr, err)
	}
	switch {
	case token != "" && len(token) < MinTokenLen:
		return ErrWeakToken
	case token != "" || local.IsLoopback(host):
		return nil
	}
	return fmt.Errorf("control address %q: %w", addr, ErrExposed)
}

// refuseBrowsers refuses what a web page can send and a tool or a test
// would not (package local): a Host other than loopback's unless the API
// requires its token, an Origin or a cross-site Sec-Fetch-Site, and a
// write whose Content-Type is not JSON. The Host is the header as sent:
// Fiber's Hostname would take X-Forwarded-Host from anyone.
func (c *Control) refuseBrowsers(p local.Policy) fiber.Handler {
	return func(ctx *fiber.Ctx) error {
		h := &ctx.Request().Header
		ref := p.Check(local.Request{
			Method:      ctx.Method(),
			Host:        string(h.Host()),
			Origin:      string(h.Peek(fiber.HeaderOrigin)),
			FetchSite:   string(h.Peek("Sec-Fetch-Site")),
			ContentType: string(h.ContentType()),
			HasBody:     len(ctx.Body()) > 0,
		})
		if ref != nil {
			return &apiError{Status: ref.Status, Code: ref.Code, Description: ref.Description}
		}
		return ctx.Next()
	}
}

// Failed authentications: AuthFailures wrong or missing tokens from one
// address within AuthWindow lock that address out of the control API for
// AuthLockout (429 with Retry-After), whatever token it sends.
const (
	AuthFailures = 10
	AuthWindow   = time.Minute
	AuthLockout  = 5 * time.Minute
)

// authenticate requires the bearer token, when there is one (RFC 6750
// §2.1), compared in constant time; an address that failed AuthFailures
// times is refused for a while (throttle), before its token is compared.
func (c *Control) authenticate(ctx *fiber.Ctx) error {
	if c.opts.Token == "" {
		return ctx.Next()
	}
	key := throttle.KeyOf("control", ctx.Context().RemoteIP().String())
	if left, ok := c.failures.Reserve(key); !ok {
		secs := int((left + time.Second - 1) / time.Second)
		ctx.Set(fiber.HeaderRetryAfter, strconv.Itoa(secs))
		return &apiError{Status: http.StatusTooManyRequests, Code: "too_many_attempts", Description: fmt.Sprintf("too many requests without the right token from this address; try again in %d seconds", secs)}
	}
	scheme, value, _ := strings.Cut(ctx.Get(fiber.HeaderAuthorization), " ")
	if strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(value)), []byte(c.opts.Token)) == 1 {
		c.failures.Succeeded(key)
		return ctx.Next()
	}
	c.failures.Failed(key, ctx.Get(fiber.HeaderAuthorization))
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
