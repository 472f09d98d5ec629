// Package backendtest starts real backends for tests: a redis-server and a
// PostgreSQL cluster from the machine's packages (Debian's redis-server and
// postgresql), each on a free port of 127.0.0.1, in a temporary directory,
// once per test binary, and stops them and removes their files when the
// tests end. No backend is imitated.
//
// A package that uses it runs its tests through Main:
//
//	func TestMain(m *testing.M) { os.Exit(backendtest.Main(m)) }
//
// When a server is not installed, a test that needs it is skipped with the
// reason, except in CI (the environment variable CI is set), where it fails:
// CI installs them (.ci/run).
package backendtest

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"testing"
)

// state is what Main and the starters share within one test binary.
type state struct {
	mu      sync.Mutex
	inMain  bool
	stops   []func()
	redis   *startOnce[*RedisServer]
	postgre *startOnce[*PostgresServer]
}

// the only package-level state: one test binary, one set of servers, as
// the package documentation says.
var current = &state{
	redis:   &startOnce[*RedisServer]{start: startRedis},
	postgre: &startOnce[*PostgresServer]{start: startPostgres},
}

// Main runs the tests of m and then stops every server they started. It
// returns m.Run's exit code.
func Main(m *testing.M) int {
	current.mu.Lock()
	current.inMain = true
	current.mu.Unlock()
	code := m.Run()
	current.mu.Lock()
	stops := current.stops
	current.stops = nil
	current.mu.Unlock()
	for i := len(stops) - 1; i >= 0; i-- {
		stops[i]()
	}
	return code
}

// atExit registers stop to run when Main ends.
func (s *state) atExit(stop func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stops = append(s.stops, stop)
}

// startOnce starts a server on first use and remembers the outcome.
type startOnce[T any] struct {
	once  sync.Once
	start func() (T, func(), error)
	value T
	err   error
}

func (o *startOnce[T]) get(tb testing.TB, what, install string) T {
	tb.Helper()
	current.mu.Lock()
	inMain := current.inMain
	current.mu.Unlock()
	if !inMain {
		tb.Fatalf("backendtest: the package must run its tests through backendtest.Main, so that %s is stopped after them", what)
	}
	o.once.Do(func() {
		var stop func()
		o.value, stop, o.err = o.start()
		if stop != nil {
			current.atExit(stop)
		}
	})
	if o.err != nil {
		skipOrFail(tb, what, install, o.err)
	}
	return o.value
}

// skipOrFail ends a test whose server could not start: skipped, saying
// why, when it is not installed on a developer's machine; failed in CI or
// when it is installed and fails.
func skipOrFail(tb testing.TB, what, install string, err error) {
	tb.Helper()
	if errors.Is(err, errNotInstalled) && os.Getenv("CI") == "" {
		tb.Skipf("%s is not installed on this machine (%v); install it to run this test: %s", what, err, install)
		return
	}
	tb.Fatalf("backendtest: start %s: %v", what, err)
}

// errNotInstalled reports a server whose programs are not on this machine.
var errNotInstalled = errors.New("not installed")

// freePort returns a port of 127.0.0.1 that nothing listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// uniqueName returns prefix followed by 12 random hex digits: the name of
// a database or a key prefix that no other test picks.
func uniqueName(prefix string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}
