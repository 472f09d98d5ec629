package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"

	"eventsvc/internal/version"
	"eventsvc/server/secret"
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
