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

// deadlines are the deadlines a conn was given, and whether the sweep has
// set them on the connection.
type deadlines struct {
	mu           sync.Mutex
	read, write  time.Time // zero: none
	readExpired  bool      // the connection's read deadline is longAgo
	writeExpired bool
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
	c.d.read = t
	switch {
	case !t.IsZero() && t.UnixNano() <= c.l.swept.Load():
		c.d.readExpired = true
		return c.Conn.SetReadDeadline(longAgo)
	case c.d.readExpired:
		c.d.readExpired = false
		return c.Conn.SetReadDeadline(time.Time{})
	}
	return nil
}

// SetWriteDeadline implements net.Conn, as SetReadDeadline.
func (c *conn) SetWriteDeadline(t time.Time) error {
	c.d.mu.Lock()
	defer c.d.mu.Unlock()
	c.d.write = t
	switch {
	case !t.IsZero() && t.UnixNano() <= c.l.swept.Load():
		c.d.writeExpired = true
		return c.Conn.SetWriteDeadline(longAgo)
	case c.d.writeExpired:
		c.d.writeExpired = false
		return c.Conn.SetWriteDeadline(time.Time{})
	}
	return nil
}

// expire sets on the connection the deadlines that are past at now.
func (c *conn) expire(now time.Time) {
	c.d.mu.Lock()
	defer c.d.mu.Unlock()
	if !c.d.read.IsZero() && !now.Before(c.d.read) && !c.d.readExpired {
		c.d.readExpired = true
		_ = c.Conn.SetReadDeadline(longAgo)
	}
	if !c.d.write.IsZero() && !now.Before(c.d.write) && !c.d.writeExpired {
		c.d.writeExpired = true
		_ = c.Conn.SetWriteDeadline(longAgo)
	}
}

// sweep expires the deadlines past due every tick, until the listener
// closes.
func (l *listener) sweep() {
	t := time.NewTicker(l.tick)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case now := <-t.C:
			l.swept.Store(now.UnixNano())
			l.mu.Lock()
			for c := range l.live {
				c.expire(now)
			}
			l.mu.Unlock()
		}
	}
}
