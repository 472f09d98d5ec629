package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"eventsvc/server"
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
                [-cors-origin URL] [-quiet]
                [-access-ttl D] [-refresh-ttl D] [-seed FILE]
                [-control HOST:PORT [-control-token TOKEN]]
      start the reference server (default address :8080, default
      configuration: the embedded demo credentials, 25 demo events);
      request logs go to standard error
  eventsvc hash-password [-cost N] < secret
      read a secret or password on standard input and print the {bcrypt}
      form to store in a configuration file
`

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
	demoEvents := fs.Int("demo-events", 25, "number of sample events to start with, managed in turn by each account (0: none)")
	loginFailures := fs.Int("login-failures", throttle.DefaultFailures, "failed authentications of one user or client from one address that lock them out of the token endpoint (0: no limit)")
	loginWindow := fs.Duration("login-window", throttle.DefaultWindow, "the time within which -login-failures count")
	loginLockout := fs.Duration("login-lockout", throttle.DefaultLockout, "how long a lockout lasts (429 with Retry-After)")
	corsOrigin := fs.String("cors-origin", "", "origin of a front end allowed to call the API from a browser, such as http://localhost:3000 (default: none)")
	quiet := fs.Bool("quiet", false, "write no request log")
	accessTTL := fs.Duration("access-ttl", oauth.AccessTokenValidity, "lifetime of access tokens, whole seconds; other than 600s does not conform to the specification")
	mockf := addMockFlags(fs)
	refreshTTL := fs.Duration("refresh-ttl", oauth.RefreshTokenValidity, "lifetime of refresh tokens, whole seconds; other than 3600s does not conform to the specification")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "eventsvc serve: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	var cfg *config.Config
	var err error
	if *file == "" {
		cfg, err = config.Demo()
	} else {
		cfg, err = config.Load(*file)
	}
	if err != nil {
		fmt.Fprintf(stderr, "eventsvc: cannot start: %v\n", err)
		return exitError
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "eventsvc: cannot start: %v\n", err)
		return exitError
	}
	if *loginFailures < 0 || *loginWindow <= 0 || *loginLockout <= 0 {
		fmt.Fprintln(stderr, "eventsvc serve: -login-failures must not be negative, -login-window and -login-lockout must be positive")
		return exitUsage
	}
	if *loginFailures == 0 {
		*loginFailures = -1 // server.Options: no limit
	}
	lifetimes := oauth.Lifetimes{Access: *accessTTL, Refresh: *refreshTTL}
	if err := lifetimes.Validate(); err != nil {
		fmt.Fprintf(stderr, "eventsvc serve: -access-ttl, -refresh-ttl: %v\n", err)
		return exitUsage
	}
	if *demoEvents < 0 {
		fmt.Fprintln(stderr, "eventsvc serve: -demo-events must not be negative")
		return exitUsage
	}
	start, err := mockf.startEvents(cfg, event.Demo(*demoEvents, accountIDs(cfg), time.Now()))
	if err != nil {
		fmt.Fprintf(stderr, "eventsvc: cannot start: %v\n", err)
		return exitError
	}
	events := event.NewMemory()
	events.Replace(start)
	controlLn, controlToken, err := mockf.listenControl()
	if err != nil {
		ln.Close()
		fmt.Fprintf(stderr, "eventsvc: cannot start: %v\n", err)
		return exitError
	}
	m := newMock()
	opts := server.Options{
		Config: cfg, Events: events, Clock: m.clock,
		LoginFailures: *loginFailures, LoginWindow: *loginWindow, LoginLockout: *loginLockout,
		CORSOrigin: *corsOrigin, Lifetimes: lifetimes,
	}
	if !*quiet {
		opts.Logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	if controlLn != nil {
		opts.Journal, opts.Faults = m.journal, m.faults
	}
	srv := server.New(opts)
	if *file == "" {
		fmt.Fprint(stdout, config.DemoNotice)
	} else {
		fmt.Fprintf(stdout, "Using the clients and accounts of %s.\n", *file)
	}
	fmt.Fprintf(stdout, "Event Service reference server listening on %s\n", displayURL(ln.Addr()))
	fmt.Fprintf(stdout, "  API root: %s/api   documentation: %s/docs/index.html\n", displayURL(ln.Addr()), displayURL(ln.Addr()))
	if !lifetimes.Conforms() {
		fmt.Fprintf(stdout, "  Token lifetimes: %s: this server does not conform to the specification (CLI-5, CLI-6: 600 s and 3600 s)\n", lifetimes)
	}
	switch {
	case *mockf.seed != "":
		fmt.Fprintf(stdout, "  %d events from %s\n", len(start), *mockf.seed)
	case *demoEvents > 0:
		fmt.Fprintf(stdout, "  %d demo events, managed in turn by each account (-demo-events 0 starts empty)\n", *demoEvents)
	}

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if controlLn != nil {
		ctl := m.newControl(srv, cfg, events, start, controlToken, stderr)
		go func() { _ = ctl.Serve(controlLn) }()
		defer ctl.Shutdown()
		auth := "no token: loopback only"
		if controlToken != "" {
			auth = "requires its bearer token"
		}
		fmt.Fprintf(stdout, "  Control API on %s (%s): reset, seed, clock, tokens, journal, faults; see docs/control-api.md\n", displayURL(controlLn.Addr()), auth)
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

// accountIDs lists the ids of the configured accounts, which a
// configuration file numbers from 1 in the order it lists them.
func accountIDs(cfg *config.Config) []int64 {
	var ids []int64
	for id := int64(1); id <= int64(cfg.Accounts.Len()); id++ {
		if _, ok := cfg.Accounts.ByID(id); ok {
			ids = append(ids, id)
		}
	}
	return ids
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
