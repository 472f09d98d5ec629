// Package server is the Event Service reference server: the authorization
// server (POST /oauth/token) and the resource server (/api/**) in one Fiber v2
// application, as ../shared/spec/event-service-api.md describes them, with
// the reference choices of docs/ where the specification is silent.
package server

import (
	"cmp"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"eventsvc/server/backend"
	"eventsvc/server/clientcheck"
	"eventsvc/server/clock"
	"eventsvc/server/config"
	"eventsvc/server/event"
	"eventsvc/server/fault"
	"eventsvc/server/journal"
	"eventsvc/server/oauth"
	"eventsvc/server/throttle"
)

// ResourceID is the resource id of this resource server (spec CLI-7): a
// token issued to a client not registered for it is refused on /api/**.
const ResourceID = "event"

// BodyLimit is the largest request body the server reads: 1 MiB.
const BodyLimit = 1 << 20

// MaxHeaderBytes bounds the request line and header fields of a request:
// 16 KiB, so that the header fields of 8 KiB browsers and proxies send pass
// with room for a long request line. Past it, 431 (RFC 6585 §5).
const MaxHeaderBytes = 16 << 10

// Options configure a Server.
type Options struct {
	// Config holds the client registrations and accounts. Required.
	Config *config.Config
	// Clock tells the time for token validity. Default: clock.System{}.
	Clock clock.Clock
	// Events stores the events. Default: an empty event.NewMemory().
	Events event.Store
	// LoginFailures is how many failed authentications of one user or one
	// client from one address, within LoginWindow, lock them out of the
	// token endpoint for LoginLockout (429 with Retry-After). Zero: the
	// throttle package's defaults; negative: no limit.
	LoginFailures             int
	LoginWindow, LoginLockout time.Duration
	// LoginKeys bounds how many users and clients (by address) the
	// lockout remembers, and how many addresses the token budget does;
	// past it the least recently seen is forgotten. Zero:
	// throttle.DefaultMaxKeys.
	LoginKeys int
	// TokenRate and TokenBurst are the budget of one address on the token
	// endpoint, whatever client or user its requests name: TokenBurst
	// requests at once, TokenRate a second after that; past it, 429 with
	// Retry-After before any bcrypt. Zero: throttle.DefaultRate and
	// throttle.DefaultBurst; a negative TokenRate: no limit.
	TokenRate  float64
	TokenBurst int
	// Logger receives one line per request (requestLog). Nil: no request
	// log.
	Logger *slog.Logger
	// ErrorLogger receives one line per answer 500, with its cause, the
	// request's secrets masked. Nil: Logger.
	ErrorLogger *slog.Logger
	// MaxEventsPerUser is how many events one account may manage: a create
	// past it gets 403 too_many_events. Zero: DefaultMaxEventsPerUser;
	// negative: no limit.
	MaxEventsPerUser int
	// ReadTimeout bounds the time a client has to send a request, its
	// header and body, from its first byte; IdleTimeout how long a
	// kept-alive connection may wait for its next request; WriteTimeout
	// how long the answer may take to send. Past any, the connection is
	// closed, so that slow or idle clients do not hold the server's
	// connections for ever. Zero: DefaultReadTimeout, DefaultIdleTimeout,
	// DefaultWriteTimeout.
	ReadTimeout, IdleTimeout, WriteTimeout time.Duration
	// Tokens keeps the tokens. Default: an oauth.Store in memory on
	// Clock; an oauth.RedisStore shares them between replicas.
	Tokens oauth.TokenStore
	// Lockout, when set, replaces the lockout of LoginFailures,
	// LoginWindow, LoginLockout and LoginKeys: a throttle.RedisGuard
	// shares it between replicas. Ignored when LoginFailures is negative.
	Lockout throttle.Guard
	// Backends are what the server keeps outside its process (the Redis
	// of Tokens and Lockout, the PostgreSQL of Events): GET /api answers
	// 503, naming them, while one of them does not answer.
	Backends []backend.Checker
	// TrustedProxies are the addresses of the proxies (a load balancer)
	// whose forwarding headers are honoured: those of ForwardedHeader
	// alone. From any other peer they are ignored. The client address
	// that results is the one of the lockout, the token budget and the
	// logs. Empty: none (ParseTrustedProxies reads the flag).
	TrustedProxies []netip.Prefix
	// ForwardedHeader is the one family of forwarding headers read from a
	// trusted proxy: HeaderXForwardedFor (the default, as most load
	// balancers set it) or HeaderForwarded (RFC 7239). The other is
	// ignored, so that a client cannot add its own.
	ForwardedHeader string
	// ForwardedHost makes the links use the scheme and host the trusted
	// proxy forwards (X-Forwarded-Proto and -Host, or Forwarded's proto=
	// and host=) rather than the Host header it passes on.
	ForwardedHost bool
	// PublicURL, when set, is the address under which clients reach the
	// server (ParsePublicURL): every link and Location starts with it,
	// whatever the request's headers. New panics on one ParsePublicURL
	// refuses (see Validate).
	PublicURL string
	// CORSOrigin, when set, is the origin (such as
	// "http://localhost:3000") whose pages may call the API. Empty: none.
	// New panics on one CheckCORSOrigin refuses (see Validate).
	CORSOrigin string
	// Lifetimes of the tokens issued. Zero: oauth.DefaultLifetimes, the
	// specification's; any other value does not conform (spec CLI-5,
	// CLI-6).
	Lifetimes oauth.Lifetimes
	// Journal, when set, records every request and its answer, masked,
	// for the control API. Nil: no journal.
	Journal *journal.Journal
	// Faults, when set, are applied to every request (after the journal
	// has seen it). Nil: no faults.
	Faults *fault.Set
	// ClientChecks, when set, judges every exchange against the client's
	// side of the specification (package clientcheck), for the control
	// API; the Logger, when set, writes each finding once. Nil: none.
	ClientChecks *clientcheck.Checker
}

// DefaultMaxEventsPerUser is the default of Options.MaxEventsPerUser.
const DefaultMaxEventsPerUser = 10_000

// Defaults of Options.ReadTimeout, IdleTimeout and WriteTimeout.
const (
	DefaultReadTimeout  = 10 * time.Second
	DefaultIdleTimeout  = 60 * time.Second
	DefaultWriteTimeout = 30 * time.Second
)

// ShutdownTimeout bounds how long Shutdown waits for requests in flight.
const ShutdownTimeout = 10 * time.Second

// Server is the reference server. Its state (tokens, lockouts, events)
// lives in memory and is gone when it stops, unless Options put it in
// stores shared by several replicas (Redis, PostgreSQL).
type Server struct {
	app     *fiber.App
	store   oauth.TokenStore
	token   *oauth.TokenEndpoint
	health  *health
	metrics *metrics
	events  event.Store
	// tick is how often the deadlines of the connections are swept
	// (deadline.go).
	tick time.Duration
	// maxEvents is how many events an account may manage; 0: no limit.
	maxEvents int
	// rendered keeps encoded events, buffers the bodies being written
	// (render.go).
	rendered *eventJSON
	buffers  sync.Pool

	listeners Listeners
	mu        sync.Mutex
	draining  bool // Shutdown has begun: /readyz answers 503
}

// New returns a Server with its routes in place, ready to Serve.
func New(opts Options) *Server {
	if opts.Clock == nil {
		opts.Clock = clock.System{}
	}
	if opts.Events == nil {
		opts.Events = event.NewMemory()
	}
	if opts.MaxEventsPerUser == 0 {
		opts.MaxEventsPerUser = DefaultMaxEventsPerUser
	}
	errorLogger := opts.ErrorLogger
	if errorLogger == nil {
		errorLogger = opts.Logger
	}
	if opts.Lifetimes == (oauth.Lifetimes{}) {
		opts.Lifetimes = oauth.DefaultLifetimes()
	}
	var store oauth.TokenStore = oauth.NewStoreWithLifetimes(opts.Clock, opts.Lifetimes)
	if opts.Tokens != nil {
		store = opts.Tokens
	}
	s := &Server{
		health:    newHealth(opts.Backends),
		events:    opts.Events,
		maxEvents: max(opts.MaxEventsPerUser, 0),
		rendered:  newEventJSON(),
		store:     store,
		token: &oauth.TokenEndpoint{
			Clients: opts.Config.Clients, Accounts: opts.Config.Accounts, Store: store,
			Guard: loginGuard(opts), Budget: tokenBudget(opts),
		},
	}
	s.metrics = newMetrics(s, opts.Backends)
	readTimeout := orDefault(opts.ReadTimeout, DefaultReadTimeout)
	idleTimeout := orDefault(opts.IdleTimeout, DefaultIdleTimeout)
	writeTimeout := orDefault(opts.WriteTimeout, DefaultWriteTimeout)
	s.tick = tickFor(readTimeout, idleTimeout, writeTimeout)
	s.token.OnLockout = s.metrics.lockout
	s.app = fiber.New(fiber.Config{
		AppName:               "eventsvc",
		DisableStartupMessage: true,
		CaseSensitive:         true,
		// Fiber trusts no proxy: forwarding headers are read by
		// resolveOrigin alone, from Options.TrustedProxies.
		EnableTrustedProxyCheck: true,
		BodyLimit:               BodyLimit,
		ReadBufferSize:          MaxHeaderBytes,
		ReadTimeout:             readTimeout,
		IdleTimeout:             idleTimeout,
		WriteTimeout:            writeTimeout,
		ErrorHandler:            errorHandler(errorLogger),
	})
	s.routes(opts)
	return s
}

// orDefault is d, or def when d is zero.
func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// loginGuard is the token endpoint's lockout of Options.
func loginGuard(opts Options) throttle.Guard {
	if opts.LoginFailures < 0 {
		return nil
	}
	if opts.Lockout != nil {
		return opts.Lockout
	}
	l := throttle.Limits{Failures: opts.LoginFailures, Window: opts.LoginWindow, Lockout: opts.LoginLockout, MaxKeys: opts.LoginKeys}
	l.Failures = cmp.Or(l.Failures, throttle.DefaultFailures)
	l.Window = cmp.Or(l.Window, throttle.DefaultWindow)
	l.Lockout = cmp.Or(l.Lockout, throttle.DefaultLockout)
	l.MaxKeys = cmp.Or(l.MaxKeys, throttle.DefaultMaxKeys)
	return throttle.New(l, opts.Clock)
}

// tokenBudget is the token endpoint's budget per address of Options.
func tokenBudget(opts Options) *throttle.Budget {
	if opts.TokenRate < 0 {
		return nil
	}
	l := throttle.BudgetLimits{Rate: opts.TokenRate, Burst: opts.TokenBurst, MaxKeys: opts.LoginKeys}
	l.Rate = cmp.Or(l.Rate, throttle.DefaultRate)
	l.Burst = cmp.Or(l.Burst, throttle.DefaultBurst)
	l.MaxKeys = cmp.Or(l.MaxKeys, throttle.DefaultMaxKeys)
	return throttle.NewBudget(l, opts.Clock)
}

// routePatterns are the routes' patterns, the route label of the metrics.
var routePatterns = map[string]bool{
	"/oauth/token": true, "/oauth/authorize": true, "/api": true, "/api/events": true,
	"/api/events/:id": true, "/healthz": true, "/readyz": true,
}

func (s *Server) routes(opts Options) {
	if len(opts.TrustedProxies) > 0 || opts.PublicURL != "" {
		f := forwarding{
			trusted:      opts.TrustedProxies,
			rfc7239:      strings.EqualFold(opts.ForwardedHeader, HeaderForwarded),
			hostAndProto: opts.ForwardedHost,
		}
		if opts.PublicURL != "" {
			public, err := ParsePublicURL(opts.PublicURL)
			if err != nil {
				panic("server: public URL: " + err.Error()) // Validate tells it first
			}
			f.public = &public
		}
		s.app.Use(resolveOrigin(f))
	}
	s.app.Use(s.metrics.observe(routePatterns))
	if opts.Logger != nil {
		s.app.Use(requestLog(opts.Logger))
	}
	s.app.Use(recoverPanic)
	s.app.Use(refuseAmbiguousFraming)
	if opts.ClientChecks != nil { // before the journal, to name its entries
		s.app.Use(s.checkClients(opts.ClientChecks, opts.Logger))
	}
	if opts.Journal != nil {
		s.app.Use(journal.Handler(opts.Journal))
	}
	s.app.Use(securityHeaders)
	if opts.CORSOrigin != "" {
		s.app.Use(corsFor(opts.CORSOrigin))
	}
	// The probes of a load balancer, before the injected faults.
	s.app.Get("/healthz", s.handleHealthz)
	s.app.Get("/readyz", s.handleReadyz)
	// After the CORS headers, so that a front end in a browser sees an
	// injected status rather than a CORS error.
	if opts.Faults != nil {
		s.app.Use(fault.Handler(opts.Faults))
	}
	s.app.Use(publicFiles())
	s.app.Use(s.resourceServer)

	s.app.All("/oauth/token", s.handleToken)
	s.app.All("/oauth/authorize", s.handleAuthorize)

	s.app.Get("/api", s.handleIndex)
	s.app.Get("/api/events", s.handleListEvents)
	s.app.Post("/api/events", s.handleCreateEvent)
	s.app.Get("/api/events/:id", s.handleGetEvent)
	s.app.Put("/api/events/:id", s.handleUpdateEvent)
}

// Lifetimes returns the lifetimes of the tokens the server issues.
func (s *Server) Lifetimes() oauth.Lifetimes { return s.store.Lifetimes() }

// App returns the Fiber application, for tests that call app.Test.
func (s *Server) App() *fiber.App { return s.app }

// Metrics serves the server's Prometheus metrics (metrics), for a
// listener other than the public one: -metrics ADDR.
func (s *Server) Metrics() http.Handler { return s.metrics.handler() }

// Serve answers requests on ln until Shutdown, then returns nil. After
// Shutdown it closes ln and returns at once.
func (s *Server) Serve(ln net.Listener) error {
	// Connections close gracefully (RFC 9112 §9.6), and their timeouts
	// cost no timer a request: see listener.
	return s.listeners.Serve(ln, func(ln net.Listener) error { return s.app.Listener(newListener(ln, s.tick)) })
}

// Shutdown stops accepting requests and waits, at most ShutdownTimeout, for
// those in flight to finish.
func (s *Server) Shutdown() error {
	s.mu.Lock()
	s.draining = true
	s.mu.Unlock()
	err := s.app.ShutdownWithTimeout(ShutdownTimeout)
	// Fiber closes only the listeners its server has started on; close
	// ours too, in case Serve had not got that far.
	s.listeners.Close()
	return err
}
