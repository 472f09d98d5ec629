package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"os"
	"runtime/debug"
	"time"

	"eventsvc/internal/version"
	"eventsvc/server"
	"eventsvc/server/backend"
	"eventsvc/server/config"
	"eventsvc/server/event"
	"eventsvc/server/oauth"
	"eventsvc/server/throttle"
)

// Bounds of serve's flags.
const (
	// maxDemoEvents bounds -demo-events: a million, for the load tests of
	// client teams that page through many events (some 330 MB resident;
	// docs/configuration.md), far from the memory of a development
	// machine.
	maxDemoEvents = 1_000_000
	// maxLoginDuration bounds -login-window and -login-lockout.
	maxLoginDuration = 24 * time.Hour
	// maxTimeout bounds -read-timeout, -idle-timeout and -write-timeout.
	maxTimeout = time.Hour
	// maxBackendTimeout bounds -backend-timeout.
	maxBackendTimeout = 30 * time.Second
)

// serveFlags are serve's flags, as parsed.
type serveFlags struct {
	addr, file, corsOrigin, publicURL, metricsAddr, logFormat string
	redisURL, databaseURL, forwardedHeader                    string
	demoEvents, loginFailures, loginKeys, tokenBurst          int
	maxEvents                                                 int
	tokenRate                                                 float64
	loginWindow, loginLockout, backendTimeout                 time.Duration
	readTimeout, idleTimeout, writeTimeout                    time.Duration
	accessTTL, refreshTTL                                     time.Duration
	quiet, forwardedHost                                      bool
	trusted                                                   stringList
	mock                                                      mockFlags

	// trustedProxies are trusted as parsed by validate.
	trustedProxies []netip.Prefix
}

// serve starts the reference server and serves until stop, or until it
// cannot serve any longer.
func serve(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) int {
	f, ok := parseServeFlags(args, stderr)
	if !ok {
		return exitUsage
	}
	// Every flag is checked before anything is read or listened to.
	if bad := f.validate(); len(bad) > 0 {
		for _, why := range bad {
			fmt.Fprintf(stderr, "eventsvc serve: %s\n", why)
		}
		return exitUsage
	}
	f.unlimit()
	cfg, err := f.loadConfig()
	if err != nil {
		return cannotStart(stderr, err)
	}
	start, err := f.mock.startEvents(cfg, f.demoEvents, time.Now())
	if err != nil {
		return cannotStart(stderr, err)
	}
	b, err := openBackends(f.backendFlags())
	if err != nil {
		return cannotStart(stderr, err)
	}
	defer b.close()
	first := start()
	events, seeded, err := seed(b, first)
	if err != nil {
		return cannotStart(stderr, err)
	}
	m := newMock()
	opts, err := f.options(cfg, b, m, stderr)
	if err != nil {
		return cannotStart(stderr, err)
	}
	// The demo events were built once before the store copied them: give
	// the memory of that garbage back to the system now rather than bit by
	// bit (with a million events, 330 MB resident instead of 580).
	debug.FreeOSMemory()
	ls, err := f.listen()
	if err != nil {
		return cannotStart(stderr, err)
	}
	if ls.control != nil {
		m.Steer(&opts)
	}
	srv := server.New(opts)
	if ls.metrics != nil {
		defer serveMetrics(ls.metrics, srv.Metrics(), f.timeouts())()
		fmt.Fprintf(stdout, "  metrics: %s/metrics\n", displayURL(ls.metrics.Addr()))
	}
	f.banner(stdout, ls.public.Addr(), len(first), seeded)
	for _, line := range b.describe() {
		fmt.Fprintf(stdout, "  %s\n", line)
	}

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ls.public) }()
	if ls.control != nil {
		ctl := m.newControl(srv, cfg, events, start, ls.controlToken, f.timeouts(), stderr)
		go func() { _ = ctl.Serve(ls.control) }()
		defer ctl.Shutdown()
		auth := "no token: loopback only"
		if ls.controlToken != "" {
			auth = "requires its bearer token"
		}
		fmt.Fprintf(stdout, "  Control API on %s (%s): reset, seed, clock, tokens, journal, findings, faults, users, clients; see docs/control-api.md\n", displayURL(ls.control.Addr()), auth)
	}
	return awaitStop(srv, served, stop, stdout, stderr)
}

// cannotStart says why the server cannot start and returns the exit code.
func cannotStart(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "eventsvc: cannot start: %v\n", err)
	return exitError
}

// parseServeFlags reads serve's flags from args; false when they do not
// parse, the reason written to stderr.
func parseServeFlags(args []string, stderr io.Writer) (*serveFlags, bool) {
	f := &serveFlags{}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.addr, "addr", ":8080", "address to listen on, HOST:PORT")
	fs.StringVar(&f.file, "config", "", "configuration file of clients and accounts (default: the embedded demo credentials)")
	fs.IntVar(&f.demoEvents, "demo-events", 25, "number of sample events to start with, managed in turn by each account (0: none, at most 1000000)")
	fs.IntVar(&f.loginFailures, "login-failures", throttle.DefaultFailures, "failed authentications of one user or client from one address that lock them out of the token endpoint; a wrong secret among the last three tried counts once (0: no limit)")
	fs.DurationVar(&f.loginWindow, "login-window", throttle.DefaultWindow, "the time within which -login-failures count (at most 24h)")
	fs.DurationVar(&f.loginLockout, "login-lockout", throttle.DefaultLockout, "how long a lockout lasts, 429 with Retry-After (at most 24h)")
	fs.IntVar(&f.loginKeys, "login-keys", throttle.DefaultMaxKeys, "how many users and clients, by address, the lockout remembers at most (some 300 bytes each); past it the least recently seen is forgotten")
	fs.Float64Var(&f.tokenRate, "token-rate", throttle.DefaultRate, "token requests a second one address may make after its burst, whatever client or user they name; past it 429 (0: no limit)")
	fs.IntVar(&f.tokenBurst, "token-burst", throttle.DefaultBurst, "token requests one address may make at once")
	fs.IntVar(&f.maxEvents, "max-events-per-user", server.DefaultMaxEventsPerUser, "how many events one account may manage; a create past it gets 403 (0: no limit)")
	fs.DurationVar(&f.readTimeout, "read-timeout", server.DefaultReadTimeout, "how long a client may take to send a request, header and body, from its first byte; past it the connection is closed (at most 1h)")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", server.DefaultIdleTimeout, "how long a kept-alive connection may wait for its next request before it is closed (at most 1h)")
	fs.DurationVar(&f.writeTimeout, "write-timeout", server.DefaultWriteTimeout, "how long an answer may take to send before the connection is closed (at most 1h)")
	fs.StringVar(&f.corsOrigin, "cors-origin", "", "origin of a front end allowed to call the API from a browser, such as http://localhost:3000: one origin, http or https, no wildcard (default: none)")
	fs.BoolVar(&f.quiet, "quiet", false, "write no request log (failures are still logged)")
	fs.DurationVar(&f.accessTTL, "access-ttl", oauth.AccessTokenValidity, "lifetime of access tokens, whole seconds; other than 600s does not conform to the specification")
	fs.DurationVar(&f.refreshTTL, "refresh-ttl", oauth.RefreshTokenValidity, "lifetime of refresh tokens, whole seconds; other than 3600s does not conform to the specification")
	f.mock = addMockFlags(fs)
	fs.StringVar(&f.redisURL, "redis", "", "keep access and refresh tokens, revocations and lockouts in the Redis at this URL, redis://[:PASSWORD@]HOST:PORT/DB, shared by every replica (default: in memory)")
	fs.StringVar(&f.databaseURL, "database", "", "keep events in the PostgreSQL database at this URL, postgres://USER[:PASSWORD]@HOST:PORT/DB, shared by every replica and kept across restarts; its schema is migrated at start (default: in memory)")
	fs.Var(&f.trusted, "trusted-proxy", "a proxy (load balancer) whose forwarding header (-forwarded-header) tells the client's address, as a CIDR such as 10.0.0.0/8 or an address; repeat for several (default: none, the headers are ignored)")
	fs.StringVar(&f.forwardedHeader, "forwarded-header", server.HeaderXForwardedFor, "the one forwarding header read from a trusted proxy: X-Forwarded-For (nginx, HAProxy's option forwardfor, AWS, Google Cloud, Envoy, Traefik, Caddy) or Forwarded (RFC 7239: HAProxy's option forwarded); the other is ignored")
	fs.BoolVar(&f.forwardedHost, "forwarded-host", false, "build the links from the scheme and host a trusted proxy forwards (X-Forwarded-Proto and -Host, or Forwarded's proto= and host=) rather than the Host header it passes on")
	fs.StringVar(&f.publicURL, "public-url", "", "the address clients reach the server at, when a proxy serves it elsewhere: scheme, host, port and path, such as https://staging.example/events-service; every link and Location starts with it, whatever a request's headers (default: each request's own address)")
	fs.StringVar(&f.metricsAddr, "metrics", "", "serve Prometheus metrics at http://HOST:PORT/metrics, a listener apart from the public one (default: no metrics)")
	fs.StringVar(&f.logFormat, "log-format", "text", "format of the request and failure logs: text or json (one JSON object a line)")
	fs.DurationVar(&f.backendTimeout, "backend-timeout", backend.DefaultTimeout, "how long a request waits for Redis or PostgreSQL before it is answered 503 (at most 30s)")
	if err := fs.Parse(args); err != nil {
		return nil, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "eventsvc serve: unexpected argument %q\n", fs.Arg(0))
		return nil, false
	}
	return f, true
}

// validate says what is wrong with the flags, each in a line, and keeps
// the trusted proxies it parsed.
func (f *serveFlags) validate() []string {
	var bad []string
	check := func(ok bool, why string) {
		if !ok {
			bad = append(bad, why)
		}
	}
	check(f.demoEvents >= 0 && f.demoEvents <= maxDemoEvents, fmt.Sprintf("-demo-events must be from 0 to %d", maxDemoEvents))
	check(f.loginFailures >= 0, "-login-failures must not be negative")
	check(f.loginWindow > 0 && f.loginWindow <= maxLoginDuration, fmt.Sprintf("-login-window must be above 0 and at most %v", maxLoginDuration))
	check(f.loginLockout > 0 && f.loginLockout <= maxLoginDuration, fmt.Sprintf("-login-lockout must be above 0 and at most %v", maxLoginDuration))
	check(f.loginKeys >= 1, "-login-keys must be at least 1")
	check(f.tokenRate >= 0 && !math.IsInf(f.tokenRate, 0), "-token-rate must be a number, 0 or more")
	check(f.tokenBurst >= 1, "-token-burst must be at least 1")
	check(f.maxEvents >= 0, "-max-events-per-user must not be negative")
	if err := f.lifetimes().Validate(); err != nil {
		check(false, fmt.Sprintf("-access-ttl, -refresh-ttl: %v", err))
	}
	check(*f.mock.control == "" || f.redisURL == "" && f.databaseURL == "", "-control works with the stores in memory: leave out -redis and -database")
	check(f.backendTimeout > 0 && f.backendTimeout <= maxBackendTimeout, fmt.Sprintf("-backend-timeout must be above 0 and at most %v", maxBackendTimeout))
	check(f.logFormat == "text" || f.logFormat == "json", fmt.Sprintf("-log-format must be text or json, not %q", f.logFormat))
	var err error
	if f.trustedProxies, err = server.ParseTrustedProxies(f.trusted); err != nil {
		check(false, fmt.Sprintf("-trusted-proxy %v", err))
	}
	if err := server.CheckForwardedHeader(f.forwardedHeader); err != nil || f.forwardedHeader == "" {
		check(false, fmt.Sprintf("-forwarded-header must be %s or %s, not %q", server.HeaderXForwardedFor, server.HeaderForwarded, f.forwardedHeader))
	}
	if f.corsOrigin != "" {
		if err := server.CheckCORSOrigin(f.corsOrigin); err != nil {
			check(false, fmt.Sprintf("-cors-origin %v", err))
		}
	}
	if f.publicURL != "" {
		if _, err := server.ParsePublicURL(f.publicURL); err != nil {
			check(false, fmt.Sprintf("-public-url %v", err))
		}
	}
	for _, t := range []struct {
		name string
		d    time.Duration
	}{{"-read-timeout", f.readTimeout}, {"-idle-timeout", f.idleTimeout}, {"-write-timeout", f.writeTimeout}} {
		check(t.d > 0 && t.d <= maxTimeout, fmt.Sprintf("%s must be above 0 and at most %v", t.name, maxTimeout))
	}
	return bad
}

// unlimit turns the flags' 0, no limit, into server.Options' -1.
func (f *serveFlags) unlimit() {
	if f.loginFailures == 0 {
		f.loginFailures = -1
	}
	if f.maxEvents == 0 {
		f.maxEvents = -1
	}
	if f.tokenRate == 0 {
		f.tokenRate = -1
	}
}

// lifetimes are those of the tokens the flags ask for.
func (f *serveFlags) lifetimes() oauth.Lifetimes {
	return oauth.Lifetimes{Access: f.accessTTL, Refresh: f.refreshTTL}
}

// timeouts are the flags' timeouts, for every listener.
func (f *serveFlags) timeouts() timeouts {
	return timeouts{f.readTimeout, f.idleTimeout, f.writeTimeout}
}

// loadConfig reads the configuration of -config, or the demo one.
func (f *serveFlags) loadConfig() (*config.Config, error) {
	if f.file == "" {
		return config.Demo()
	}
	return config.Load(f.file)
}

// backendFlags are the flags about where state lives.
func (f *serveFlags) backendFlags() backendFlags {
	return backendFlags{
		redisURL: f.redisURL, databaseURL: f.databaseURL, timeout: f.backendTimeout, lifetimes: f.lifetimes(),
		lockout: throttle.Limits{Failures: f.loginFailures, Window: f.loginWindow, Lockout: f.loginLockout},
	}
}

// seed gives the store its first events: the memory store always, a
// PostgreSQL database only when it is empty. It returns the memory store
// (nil for PostgreSQL) and whether the events were taken.
func seed(b *backends, first []event.Event) (*event.Memory, bool, error) {
	events, inMemory := b.events.(*event.Memory)
	if inMemory {
		events.Replace(first)
		return events, len(first) > 0, nil
	}
	seeded, err := b.postgres.SeedIfEmpty(first)
	if err != nil {
		return nil, false, fmt.Errorf("starting events: %w", err)
	}
	return nil, seeded, nil
}

// options are the server's options from the flags, the configuration,
// the backends and the mock's clock. Failures (500) are logged even with
// -quiet.
func (f *serveFlags) options(cfg *config.Config, b *backends, m mock, stderr io.Writer) (server.Options, error) {
	opts := server.Options{
		Config: cfg, Events: b.events, Clock: m.Clock, Lifetimes: f.lifetimes(),
		Tokens: b.tokens, Lockout: b.lockout, Backends: b.checkers,
		LoginFailures: f.loginFailures, LoginWindow: f.loginWindow, LoginLockout: f.loginLockout, LoginKeys: f.loginKeys,
		TokenRate: f.tokenRate, TokenBurst: f.tokenBurst,
		MaxEventsPerUser: f.maxEvents,
		ReadTimeout:      f.readTimeout,
		IdleTimeout:      f.idleTimeout,
		WriteTimeout:     f.writeTimeout,
		CORSOrigin:       f.corsOrigin,
		TrustedProxies:   f.trustedProxies,
		ForwardedHeader:  f.forwardedHeader,
		ForwardedHost:    f.forwardedHost,
		PublicURL:        f.publicURL,
	}
	if f.logFormat == "json" {
		opts.ErrorLogger = slog.New(slog.NewJSONHandler(stderr, nil))
	} else {
		opts.ErrorLogger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	if !f.quiet {
		opts.Logger = opts.ErrorLogger
	}
	return opts, opts.Validate()
}

// listeners are the server's: the public one, and the control API's and
// the metrics' when the flags ask for them.
type listeners struct {
	public, control, metrics net.Listener
	controlToken             string
}

// listen opens the listeners; on failure it closes those it opened.
func (f *serveFlags) listen() (listeners, error) {
	var ls listeners
	var err error
	if ls.public, err = net.Listen("tcp", f.addr); err != nil {
		return ls, err
	}
	if ls.control, ls.controlToken, err = f.mock.listenControl(); err != nil {
		ls.public.Close()
		return ls, err
	}
	if f.metricsAddr != "" {
		if ls.metrics, err = net.Listen("tcp", f.metricsAddr); err != nil {
			ls.public.Close()
			if ls.control != nil {
				ls.control.Close()
			}
			return ls, fmt.Errorf("-metrics: %w", err)
		}
	}
	return ls, nil
}

// banner tells the person who started the server what it serves, where,
// and with which credentials and events; count events were made at start,
// and seeded says whether the store took them.
func (f *serveFlags) banner(stdout io.Writer, addr net.Addr, count int, seeded bool) {
	if f.file == "" {
		fmt.Fprint(stdout, config.DemoNotice)
	} else {
		fmt.Fprintf(stdout, "Using the clients and accounts of %s.\n", f.file)
	}
	fmt.Fprintf(stdout, "Event Service reference server, version %s, listening on %s\n", version.Get(), displayURL(addr))
	fmt.Fprintf(stdout, "  API root: %s/api   documentation: %s/docs/index.html\n", displayURL(addr), displayURL(addr))
	if f.publicURL != "" {
		public, _ := server.ParsePublicURL(f.publicURL)
		fmt.Fprintf(stdout, "  Public URL: %s: every link and Location starts with it\n", public)
	}
	if lifetimes := f.lifetimes(); !lifetimes.Conforms() {
		fmt.Fprintf(stdout, "  Token lifetimes: %s: this server does not conform to the specification (CLI-5, CLI-6: 600 s and 3600 s)\n", lifetimes)
	}
	switch {
	case *f.mock.seed != "" && seeded:
		fmt.Fprintf(stdout, "  %s from %s\n", plural(count, "event"), *f.mock.seed)
	case f.demoEvents > 0 && seeded:
		fmt.Fprintf(stdout, "  %d demo events, managed in turn by each account (-demo-events 0 starts empty)\n", f.demoEvents)
	}
}

// awaitStop waits until the server stops serving, or until stop asks it
// to finish the requests in flight and stop; it returns the exit code.
func awaitStop(srv *server.Server, served <-chan error, stop <-chan os.Signal, stdout, stderr io.Writer) int {
	select {
	case err := <-served:
		if err != nil {
			fmt.Fprintf(stderr, "eventsvc: %v\n", err)
			return exitError
		}
		return exitOK
	case sig := <-stop:
		fmt.Fprintf(stdout, "Received %v, finishing requests in flight and stopping.\n", sig)
		if err := srv.Shutdown(); err != nil {
			fmt.Fprintf(stderr, "eventsvc: shutdown: %v\n", err)
			return exitError
		}
		if err := <-served; err != nil {
			fmt.Fprintf(stderr, "eventsvc: %v\n", err)
			return exitError
		}
		return exitOK
	}
}
