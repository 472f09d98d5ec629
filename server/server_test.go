package server

import (
	"net"
	"testing"
	"time"

	"eventsvc/server/config"
	"eventsvc/server/servertest"
)

// testConfig is the demo configuration (client myApp/pass, accounts
// admin@email.com/admin and user@email.com/user) with its secrets hashed at
// bcrypt's lowest cost, so that tests that fail many logins stay quick
// under the race detector. The embedded demo file itself is tested in
// package config.
func testConfig(t testing.TB) *config.Config { return servertest.DemoConfig(t) }

func demoServer(t *testing.T) *Server {
	t.Helper()
	return New(Options{Config: testConfig(t)})
}

// A server shut down before its Serve goroutine ran must not leave Serve
// blocked on the listener.
func TestShutdownBeforeServeReturns(t *testing.T) {
	s := demoServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Shutdown(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	awaitServe(t, done, "Serve after Shutdown")
}

func TestShutdownStopsServe(t *testing.T) {
	s := demoServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	if err := s.Shutdown(); err != nil {
		t.Fatal(err)
	}
	awaitServe(t, done, "Serve stopped by Shutdown")
}

// awaitServe fails the test unless Serve, whose error done delivers,
// returns nil within 5 seconds; call names it in the failure.
func awaitServe(t *testing.T, done <-chan error, call string) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s = %v, want nil", call, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s did not return", call)
	}
}
