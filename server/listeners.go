package server

import (
	"errors"
	"net"
	"sync"
)

// Listeners are the listeners a server serves on, for its Shutdown to
// close: Fiber closes only those its server has started on. Its zero
// value is ready; it is safe for concurrent use. The public server and
// the control API share it.
type Listeners struct {
	mu      sync.Mutex
	all     []net.Listener
	stopped bool
}

// Serve serves ln with serve until Close, then returns nil; after Close,
// it closes ln and returns at once.
func (l *Listeners) Serve(ln net.Listener, serve func(net.Listener) error) error {
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		return ln.Close()
	}
	l.all = append(l.all, ln)
	l.mu.Unlock()
	err := serve(ln)
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// Close closes every listener Serve was given, and those it is given
// later.
func (l *Listeners) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
	for _, ln := range l.all {
		_ = ln.Close()
	}
}
