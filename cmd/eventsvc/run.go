package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"runtime/debug"
	"time"

	"eventsvc/internal/version"
	"eventsvc/server"
	"eventsvc/server/backend"
	"eventsvc/server/config"
	"eventsvc/server/event"
	"eventsvc/server/oauth"
	"eventsvc/server/secret"
	"eventsvc/server/throttle"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

const usage = `usage:
  eventsvc serve [-addr HOST:PORT] [-config FILE] [-demo-events N]
                [-login-failures N] [-login-window D] [-login-lockout D]
                [-login-keys N] [-token-rate R] [-token-burst N]
                [-max-events-per-user N]
                [-read-timeout D] [-idle-timeout D] [-write-timeout D]
                [-cors-origin URL] [-quiet]
                [-access-ttl D] [-refresh-ttl D] [-seed FILE]
                [-control HOST:PORT [-control-token TOKEN]]
                [-redis URL] [-database URL] [-backend-timeout D]
                [-trusted-proxy CIDR]... [-forwarded-header NAME]
                [-forwarded-host] [-metrics HOST:PORT]
                [-log-format text|json]
      start the reference server (default address :8080, default
      configuration: the embedded demo credentials, 25 demo events);
      request logs, and the cause of every failure (500), go to standard
      error. Tokens, lockouts and events live in memory unless -redis
      (tokens and lockouts) and -database (events, PostgreSQL) put them
      where several replicas share them (docs/deploying.md)
  eventsvc hash-password [-cost N] < secret
      read a secret or password on standard input and print the {bcrypt}
      form to store in a configuration file
  eventsvc version
      print the version, the revision it was built from and the build date
`

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

// run is the whole program, with its surroundings passed in so that tests
// can drive it. stop ends serve.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, stop <-chan os.Signal) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stdout, stderr, stop)
	case "hash-password":
		return hashPassword(args[1:], stdin, stdout, stderr)
	case "version", "-version", "--version":
		if len(args) > 1 {
			fmt.Fprintf(stderr, "eventsvc version: unexpected argument %q\n", args[1])
			return exitUsage
		}
		fmt.Fprint(stdout, version.Get().Text("eventsvc"))
		return exitOK
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "eventsvc: unknown command %q\n%s", args[0], usage)
	return exitUsage
}

func serve(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", ":8080", "address to listen on, HOST:PORT")
	file := fs.String("config", "", "configuration file of clients and accounts (default: the embedded demo credentials)")
	demoEvents := fs.Int("demo-events", 25, "number of sample events to start with, managed in turn by each account (0: none, at most 1000000)")
	loginFailures := fs.Int("login-failures", throttle.DefaultFailures, "failed authentications of one user or client from one address that lock them out of the token endpoint; a wrong secret among the last three tried counts once (0: no limit)")
	loginWindow := fs.Duration("login-window", throttle.DefaultWindow, "the time within which -login-failures count (at most 24h)")
	loginLockout := fs.Duration("login-lockout", throttle.DefaultLockout, "how long a lockout lasts, 429 with Retry-After (at most 24h)")
	loginKeys := fs.Int("login-keys", throttle.DefaultMaxKeys, "how many users and clients, by address, the lockout remembers at most (some 300 bytes each); past it the least recently seen is forgotten")
	tokenRate := fs.Float64("token-rate", throttle.DefaultRate, "token requests a second one address may make after its burst, whatever client or user they name; past it 429 (0: no limit)")
	tokenBurst := fs.Int("token-burst", throttle.DefaultBurst, "token requests one address may make at once")
	maxEvents := fs.Int("max-events-per-user", server.DefaultMaxEventsPerUser, "how many events one account may manage; a create past it gets 403 (0: no limit)")
	readTimeout := fs.Duration("read-timeout", server.DefaultReadTimeout, "how long a client may take to send a request, header and body, from its first byte; past it the connection is closed (at most 1h)")
	idleTimeout := fs.Duration("idle-timeout", server.DefaultIdleTimeout, "how long a kept-alive connection may wait for its next request before it is closed (at most 1h)")
	writeTimeout := fs.Duration("write-timeout", server.DefaultWriteTimeout, "how long an answer may take to send before the connection is closed (at most 1h)")
	corsOrigin := fs.String("cors-origin", "", "origin of a front end allowed to call the API from a browser, such as http://localhost:3000: one origin, http or https, no wildcard (default: none)")
	quiet := fs.Bool("quiet", false, "write no request log (failures are still logged)")
	accessTTL := fs.Duration("access-ttl", oauth.AccessTokenValidity, "lifetime of access tokens, whole seconds; other than 600s does not conform to the specification")
	refreshTTL := fs.Duration("refresh-ttl", oauth.RefreshTokenValidity, "lifetime of refresh tokens, whole seconds; other than 3600s does not conform to the specification")
	mockf := addMockFlags(fs)
	redisURL := fs.String("redis", "", "keep access and refresh tokens, revocations and lockouts in the Redis at this URL, redis://[:PASSWORD@]HOST:PORT/DB, shared by every replica (default: in memory)")
	databaseURL := fs.String("database", "", "keep events in the PostgreSQL database at this URL, postgres://USER[:PASSWORD]@HOST:PORT/DB, shared by every replica and kept across restarts; its schema is migrated at start (default: in memory)")
	var trusted stringList
	fs.Var(&trusted, "trusted-proxy", "a proxy (load balancer) whose forwarding header (-forwarded-header) tells the client's address, as a CIDR such as 10.0.0.0/8 or an address; repeat for several (default: none, the headers are ignored)")
	forwardedHeader := fs.String("forwarded-header", server.HeaderXForwardedFor, "the one forwarding header read from a trusted proxy: X-Forwarded-For (nginx, HAProxy's option forwardfor, AWS, Google Cloud, Envoy, Traefik, Caddy) or Forwarded (RFC 7239: HAProxy's option forwarded); the other is ignored")
	forwardedHost := fs.Bool("forwarded-host", false, "build the links from the scheme and host a trusted proxy forwards (X-Forwarded-Proto and -Host, or Forwarded's proto= and host=) rather than the Host header it passes on")
	publicURL := fs.String("public-url", "", "the address clients reach the server at, when a proxy serves it elsewhere: scheme, host, port and path, such as https://staging.example/events-service; every link and Location starts with it, whatever a request's headers (default: each request's own address)")
	metricsAddr := fs.String("metrics", "", "serve Prometheus metrics at http://HOST:PORT/metrics, a listener apart from the public one (default: no metrics)")
	logFormat := fs.String("log-format", "text", "format of the request and failure logs: text or json (one JSON object a line)")
	backendTimeout := fs.Duration("backend-timeout", backend.DefaultTimeout, "how long a request waits for Redis or PostgreSQL before it is answered 503 (at most 30s)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "eventsvc serve: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	// Every flag is checked before anything is read or listened to.
	var bad []string
	check := func(ok bool, why string) {
		if !ok {
			bad = append(bad, why)
		}
	}
	check(*demoEvents >= 0 && *demoEvents <= maxDemoEvents, fmt.Sprintf("-demo-events must be from 0 to %d", maxDemoEvents))
	check(*loginFailures >= 0, "-login-failures must not be negative")
	check(*loginWindow > 0 && *loginWindow <= maxLoginDuration, fmt.Sprintf("-login-window must be above 0 and at most %v", maxLoginDuration))
	check(*loginLockout > 0 && *loginLockout <= maxLoginDuration, fmt.Sprintf("-login-lockout must be above 0 and at most %v", maxLoginDuration))
	check(*loginKeys >= 1, "-login-keys must be at least 1")
	check(*tokenRate >= 0 && !math.IsInf(*tokenRate, 0), "-token-rate must be a number, 0 or more")
	check(*tokenBurst >= 1, "-token-burst must be at least 1")
	check(*maxEvents >= 0, "-max-events-per-user must not be negative")
	lifetimes := oauth.Lifetimes{Access: *accessTTL, Refresh: *refreshTTL}
	if err := lifetimes.Validate(); err != nil {
		check(false, fmt.Sprintf("-access-ttl, -refresh-ttl: %v", err))
	}
	check(*mockf.control == "" || *redisURL == "" && *databaseURL == "", "-control works with the stores in memory: leave out -redis and -database")
	check(*backendTimeout > 0 && *backendTimeout <= maxBackendTimeout, fmt.Sprintf("-backend-timeout must be above 0 and at most %v", maxBackendTimeout))
	check(*logFormat == "text" || *logFormat == "json", fmt.Sprintf("-log-format must be text or json, not %q", *logFormat))
	trustedProxies, err := server.ParseTrustedProxies(trusted)
	if err != nil {
		check(false, fmt.Sprintf("-trusted-proxy %v", err))
	}
	if err := server.CheckForwardedHeader(*forwardedHeader); err != nil || *forwardedHeader == "" {
		check(false, fmt.Sprintf("-forwarded-header must be %s or %s, not %q", server.HeaderXForwardedFor, server.HeaderForwarded, *forwardedHeader))
	}
	if *corsOrigin != "" {
		if err := server.CheckCORSOrigin(*corsOrigin); err != nil {
			check(false, fmt.Sprintf("-cors-origin %v", err))
		}
	}
	if *publicURL != "" {
		if _, err := server.ParsePublicURL(*publicURL); err != nil {
			check(false, fmt.Sprintf("-public-url %v", err))
		}
	}
	for _, t := range []struct {
		name string
		d    time.Duration
	}{{"-read-timeout", *readTimeout}, {"-idle-timeout", *idleTimeout}, {"-write-timeout", *writeTimeout}} {
		check(t.d > 0 && t.d <= maxTimeout, fmt.Sprintf("%s must be above 0 and at most %v", t.name, maxTimeout))
	}
	if len(bad) > 0 {
		for _, why := range bad {
			fmt.Fprintf(stderr, "eventsvc serve: %s\n", why)
		}
		return exitUsage
	}
	if *loginFailures == 0 {
		*loginFailures = -1 // server.Options: no limit
	}
	if *maxEvents == 0 {
		*maxEvents = -1 // server.Options: no limit
	}
	if *tokenRate == 0 {
		*tokenRate = -1 // server.Options: no limit
	}
	var cfg *config.Config
	if *file == "" {
		cfg, err = config.Demo()
	} else {
		cfg, err = config.Load(*file)
	}
	if err != nil {
		fmt.Fprintf(stderr, "eventsvc: cannot start: %v\n", err)
		return exitError
	}
	startedAt := time.Now()
	start, err := mockf.startEvents(cfg, *demoEvents, startedAt)
	if err != nil {
		fmt.Fprintf(stderr, "eventsvc: cannot start: %v\n", err)
		return exitError
	}
	b, err := openBackends(backendFlags{
		redisURL: *redisURL, databaseURL: *databaseURL, timeout: *backendTimeout, lifetimes: lifetimes,
		lockout: throttle.Limits{Failures: *loginFailures, Window: *loginWindow, Lockout: *loginLockout},
	})
	if err != nil {
		fmt.Fprintf(stderr, "eventsvc: cannot start: %v\n", err)
		return exitError
	}
	defer b.close()
	first := start()
	startCount := len(first)
	seeded := startCount > 0
	events, inMemory := b.events.(*event.Memory)
	if inMemory {
		events.Replace(first)
	} else if seeded, err = b.postgres.SeedIfEmpty(first); err != nil {
		fmt.Fprintf(stderr, "eventsvc: cannot start: starting events: %v\n", err)
		return exitError
	}
	m := newMock()
	opts := server.Options{
		Config: cfg, Events: b.events, Clock: m.Clock, Lifetimes: lifetimes,
		Tokens: b.tokens, Lockout: b.lockout, Backends: b.checkers,
		LoginFailures: *loginFailures, LoginWindow: *loginWindow, LoginLockout: *loginLockout, LoginKeys: *loginKeys,
		TokenRate: *tokenRate, TokenBurst: *tokenBurst,
		MaxEventsPerUser: *maxEvents,
		ReadTimeout:      *readTimeout,
		IdleTimeout:      *idleTimeout,
		WriteTimeout:     *writeTimeout,
		CORSOrigin:       *corsOrigin,
		TrustedProxies:   trustedProxies,
		ForwardedHeader:  *forwardedHeader,
		ForwardedHost:    *forwardedHost,
		PublicURL:        *publicURL,
	}
	// Failures (500) are logged even with -quiet.
	if *logFormat == "json" {
		opts.ErrorLogger = slog.New(slog.NewJSONHandler(stderr, nil))
	} else {
		opts.ErrorLogger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	if !*quiet {
		opts.Logger = opts.ErrorLogger
	}
	if err := opts.Validate(); err != nil {
		fmt.Fprintf(stderr, "eventsvc: cannot start: %v\n", err)
		return exitError
	}
	// The demo events were built once before the store copied them: give
	// the memory of that garbage back to the system now rather than bit by
	// bit (with a million events, 330 MB resident instead of 580).
	debug.FreeOSMemory()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "eventsvc: cannot start: %v\n", err)
		return exitError
	}
	controlLn, controlToken, err := mockf.listenControl()
	if err != nil {
		ln.Close()
		fmt.Fprintf(stderr, "eventsvc: cannot start: %v\n", err)
		return exitError
	}
	if controlLn != nil {
		m.Steer(&opts)
	}
	var metricsLn net.Listener
	if *metricsAddr != "" {
		if metricsLn, err = net.Listen("tcp", *metricsAddr); err != nil {
			ln.Close()
			if controlLn != nil {
				controlLn.Close()
			}
			fmt.Fprintf(stderr, "eventsvc: cannot start: -metrics: %v\n", err)
			return exitError
		}
	}
	srv := server.New(opts)
	if metricsLn != nil {
		stopMetrics := serveMetrics(metricsLn, srv.Metrics(), timeouts{*readTimeout, *idleTimeout, *writeTimeout})
		defer stopMetrics()
		fmt.Fprintf(stdout, "  metrics: %s/metrics\n", displayURL(metricsLn.Addr()))
	}
	if *file == "" {
		fmt.Fprint(stdout, config.DemoNotice)
	} else {
		fmt.Fprintf(stdout, "Using the clients and accounts of %s.\n", *file)
	}
	fmt.Fprintf(stdout, "Event Service reference server, version %s, listening on %s\n", version.Get(), displayURL(ln.Addr()))
	fmt.Fprintf(stdout, "  API root: %s/api   documentation: %s/docs/index.html\n", displayURL(ln.Addr()), displayURL(ln.Addr()))
	if *publicURL != "" {
		public, _ := server.ParsePublicURL(*publicURL)
		fmt.Fprintf(stdout, "  Public URL: %s: every link and Location starts with it\n", public)
	}
	if !lifetimes.Conforms() {
		fmt.Fprintf(stdout, "  Token lifetimes: %s: this server does not conform to the specification (CLI-5, CLI-6: 600 s and 3600 s)\n", lifetimes)
	}
	switch {
	case *mockf.seed != "" && seeded:
		fmt.Fprintf(stdout, "  %s from %s\n", plural(startCount, "event"), *mockf.seed)
	case *demoEvents > 0 && seeded:
		fmt.Fprintf(stdout, "  %d demo events, managed in turn by each account (-demo-events 0 starts empty)\n", *demoEvents)
	}
	for _, line := range b.describe() {
		fmt.Fprintf(stdout, "  %s\n", line)
	}

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if controlLn != nil {
		ctl := m.newControl(srv, cfg, events, start, controlToken, timeouts{*readTimeout, *idleTimeout, *writeTimeout}, stderr)
		go func() { _ = ctl.Serve(controlLn) }()
		defer ctl.Shutdown()
		auth := "no token: loopback only"
		if controlToken != "" {
			auth = "requires its bearer token"
		}
		fmt.Fprintf(stdout, "  Control API on %s (%s): reset, seed, clock, tokens, journal, faults, users, clients; see docs/control-api.md\n", displayURL(controlLn.Addr()), auth)
	}
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

// displayURL is the address a person on this machine can open.
func displayURL(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return "http://" + a.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

func hashPassword(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hash-password", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cost := fs.Int("cost", secret.DefaultCost, "bcrypt cost (4 to 31)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "eventsvc hash-password: the secret is read from standard input, not from arguments\n")
		return exitUsage
	}
	in, err := io.ReadAll(io.LimitReader(stdin, secret.MaxLen+3))
	if err != nil {
		fmt.Fprintf(stderr, "eventsvc hash-password: read standard input: %v\n", err)
		return exitError
	}
	in = bytes.TrimSuffix(in, []byte("\n"))
	in = bytes.TrimSuffix(in, []byte("\r"))
	stored, err := secret.Hash(in, *cost)
	if errors.Is(err, secret.ErrEmpty) {
		fmt.Fprintln(stderr, "eventsvc hash-password: standard input is empty; pipe the secret in, for example: eventsvc hash-password < secret.txt")
		return exitError
	}
	if err != nil {
		fmt.Fprintf(stderr, "eventsvc hash-password: %v\n", err)
		return exitError
	}
	fmt.Fprintln(stdout, stored)
	return exitOK
}

// plural is n with noun, in the plural unless n is 1: "1 event", "2 events".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
