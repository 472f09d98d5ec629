package server

import (
	"sync"
	"time"
)

// Coarse deadlines. fasthttp gives every request a read deadline (the idle
// timeout, then the read timeout once the request begins) and a write
// deadline (the write timeout). On a Go connection each is a change to a
// runtime timer, which cost some 6 % of the rate of small answers in
// make bench. A conn keeps the deadlines it is given instead, and its
// listener sweeps them every tick: a deadline past due is then set on the
// connection, in the past, which ends a read or write in progress as the
// deadline would have. A timeout fires up to one tick late, never early.

// minTick and maxTick bound the tick: a tenth of the shortest timeout.
const (
	minTick = 10 * time.Millisecond
	maxTick = 250 * time.Millisecond
)

// tickFor is the tick of the sweep for the given timeouts.
func tickFor(timeouts ...time.Duration) time.Duration {
	tick := maxTick
	for _, t := range timeouts {
		if t > 0 {
			tick = min(tick, t/10)
		}
	}
	return max(tick, minTick)
}

// longAgo is the deadline a sweep sets to end a read or write now.
var longAgo = time.Unix(1, 0)

// deadlines are the deadlines a conn was given, guarded by mu.
type deadlines struct {
	mu          sync.Mutex
	read, write deadline
}

// deadline is one deadline of a conn: the one it was given, and whether
// the sweep has set it on the connection.
type deadline struct {
	at      time.Time // zero: none
	expired bool      // the connection's deadline is longAgo
}

// set keeps t; apply sets a deadline on the connection, when t is already
// past (swept: when the deadlines were last swept, in UnixNano) or the
// sweep had set one that t replaces.
func (d *deadline) set(t time.Time, swept int64, apply func(time.Time) error) error {
	d.at = t
	switch {
	case !t.IsZero() && t.UnixNano() <= swept:
		d.expired = true
		return apply(longAgo)
	case d.expired:
		d.expired = false
		return apply(time.Time{})
	}
	return nil
}

// expire sets the deadline on the connection with apply when it is past
// at now.
func (d *deadline) expire(now time.Time, apply func(time.Time) error) {
	if !d.at.IsZero() && !now.Before(d.at) && !d.expired {
		d.expired = true
		_ = apply(longAgo)
	}
}

// SetDeadline implements net.Conn.
func (c *conn) SetDeadline(t time.Time) error {
	rerr := c.SetReadDeadline(t)
	werr := c.SetWriteDeadline(t)
	if rerr != nil {
		return rerr
	}
	return werr
}

// SetReadDeadline implements net.Conn: t is kept for the sweep, or set at
// once when it is already past.
func (c *conn) SetReadDeadline(t time.Time) error {
	c.d.mu.Lock()
	defer c.d.mu.Unlock()
	return c.d.read.set(t, c.l.swept.Load(), c.Conn.SetReadDeadline)
}

// SetWriteDeadline implements net.Conn, as SetReadDeadline.
func (c *conn) SetWriteDeadline(t time.Time) error {
	c.d.mu.Lock()
	defer c.d.mu.Unlock()
	return c.d.write.set(t, c.l.swept.Load(), c.Conn.SetWriteDeadline)
}

// expire sets on the connection the deadlines that are past at now.
func (c *conn) expire(now time.Time) {
	c.d.mu.Lock()
	defer c.d.mu.Unlock()
	c.d.read.expire(now, c.Conn.SetReadDeadline)
	c.d.write.expire(now, c.Conn.SetWriteDeadline)
}

// sweep expires the deadlines past due every tick, until the listener
// is closed and the last of its connections too (a request in flight
// when the server shuts down keeps its timeouts).
func (l *listener) sweep() {
	t := time.NewTicker(l.tick)
	defer t.Stop()
	for now := range t.C {
		l.swept.Store(now.UnixNano())
		l.mu.Lock()
		for c := range l.live {
			c.expire(now)
		}
		done := l.closed && len(l.live) == 0
		l.mu.Unlock()
		if done {
			return
		}
	}
}
