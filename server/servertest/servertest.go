// Package servertest starts a server on a loopback port, for tests and for
// programs that need one for a while, such as the documentation recorder
// and the conformance suite's in-process reference servers. It is to a
// *server.Server what net/http/httptest is to an http.Handler.
//
// A server always listens on 127.0.0.1, on a port the system picks: it is
// never reachable from another machine. Start takes the server itself, not
// its server.Options, so that package server's own tests can use it too.
package servertest

import (
	"fmt"
	"net"
	"sync"
	"testing"
)

// Server is what Start runs: anything that serves on a listener until it is
// shut down. *server.Server is one.
type Server interface {
	// Serve answers requests on ln until Shutdown, then returns nil.
	Serve(ln net.Listener) error
	// Shutdown stops the server; Serve then returns.
	Shutdown() error
}

// Running is a Server serving on a loopback port.
type Running struct {
	// URL is the base URL, "http://127.0.0.1:PORT", without a trailing
	// slash.
	URL string
	// Addr is the address, "127.0.0.1:PORT", for a client that speaks TCP.
	Addr string

	srv       Server
	ln        net.Listener
	served    chan error
	closeOnce sync.Once
	closeErr  error
}

// Start serves srv on 127.0.0.1, on a port the system picks, until Close.
// The port is listening when Start returns.
func Start(srv Server) (*Running, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("servertest: listen on loopback: %w", err)
	}
	r := &Running{
		URL:    "http://" + ln.Addr().String(),
		Addr:   ln.Addr().String(),
		srv:    srv,
		ln:     ln,
		served: make(chan error, 1),
	}
	go func() { r.served <- srv.Serve(ln) }()
	return r, nil
}

// New is Start for a test: it fails tb at once if the server cannot start,
// and closes the server when the test and its subtests end, failing tb if
// Close fails.
func New(tb testing.TB, srv Server) *Running {
	tb.Helper()
	r, err := Start(srv)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := r.Close(); err != nil {
			tb.Error(err)
		}
	})
	return r
}

// Close shuts the server down, waits for Serve to return, and returns the
// first error of the two. The port is free when it returns. Calling Close
// again does nothing and returns the same error.
func (r *Running) Close() error {
	r.closeOnce.Do(func() {
		shutdownErr := r.srv.Shutdown()
		serveErr := <-r.served
		_ = r.ln.Close() // in case Serve left it open
		switch {
		case shutdownErr != nil:
			r.closeErr = fmt.Errorf("servertest: shut down: %w", shutdownErr)
		case serveErr != nil:
			r.closeErr = fmt.Errorf("servertest: serve: %w", serveErr)
		}
	})
	return r.closeErr
}
