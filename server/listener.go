package server

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// listener hands out the server's connections (conn): their Close is a
// lingering close (linger.go), and their deadlines are kept coarse
// (deadline.go). Closing the listener cuts short the lingering of the
// connections it handed out; their deadlines are swept until the last of
// them closes.
type listener struct {
	net.Listener
	// tick is how often the deadlines of the connections are swept: a
	// timeout fires up to one tick late.
	tick time.Duration

	mu        sync.Mutex
	closed    bool
	live      map[*conn]struct{}
	lingering map[net.Conn]struct{}
	// swept is when the deadlines were last swept (UnixNano): a deadline
	// before it is past, and set on the connection at once.
	swept atomic.Int64
}

// newListener wraps ln, sweeping deadlines every tick.
func newListener(ln net.Listener, tick time.Duration) *listener {
	l := &listener{
		Listener: ln, tick: tick,
		live: map[*conn]struct{}{}, lingering: map[net.Conn]struct{}{},
	}
	l.swept.Store(time.Now().UnixNano())
	go l.sweep()
	return l
}

// Accept implements net.Listener.
func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	sc := &conn{Conn: c, l: l}
	l.mu.Lock()
	if !l.closed {
		l.live[sc] = struct{}{}
	}
	l.mu.Unlock()
	return sc, nil
}

// Close implements net.Listener: it closes ln and ends every lingering
// close now.
func (l *listener) Close() error {
	err := l.Listener.Close()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	for c := range l.lingering {
		_ = c.SetReadDeadline(time.Now())
	}
	return err
}

// forget stops tracking c, which is closing.
func (l *listener) forget(c *conn) {
	l.mu.Lock()
	delete(l.live, c)
	l.mu.Unlock()
}

// conn is a connection of the server: a lingering close and coarse
// deadlines.
type conn struct {
	net.Conn
	l    *listener
	once sync.Once
	d    deadlines
	// abort makes Close reset the connection rather than linger
	// (SetLinger).
	abort atomic.Bool
}
