package server

import (
	"errors"
	"io"
	"net"
	"syscall"
	"time"
)

// Lingering close (RFC 9112 §9.6,
// https://www.rfc-editor.org/rfc/rfc9112#section-9.6): a server that closes
// a connection while the client is still sending (the rest of a body over
// BodyLimit, which the server answered 413 without reading) must not close
// it at once, or the client's system answers the unread bytes with a reset
// that can destroy the answer before the client has read it. It closes its
// sending side first, then reads and drops what still arrives until the
// client closes its side, and only then closes the connection.

// Bounds of a lingering close: past either, the connection is closed
// whatever the client still sends.
const (
	// LingerTimeout is how long a closing connection keeps reading what
	// the client still sends.
	LingerTimeout = 2 * time.Second
	// lingerBytes is how much it reads and drops at most.
	lingerBytes = 8 << 20
)

// linger starts the lingering close of c, which can close its sending side
// alone, and returns at once; c is closed when the client has closed its
// side, or after LingerTimeout or lingerBytes.
func (l *listener) linger(c net.Conn, closeWrite func() error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		_ = c.Close()
		return
	}
	l.lingering[c] = struct{}{}
	l.mu.Unlock()
	if closeWrite() != nil || c.SetReadDeadline(time.Now().Add(LingerTimeout)) != nil {
		l.done(c)
		return
	}
	go func() {
		_, _ = io.CopyN(io.Discard, c, lingerBytes)
		l.done(c)
	}()
}

// done closes c and forgets it.
func (l *listener) done(c net.Conn) {
	l.mu.Lock()
	delete(l.lingering, c)
	l.mu.Unlock()
	_ = c.Close()
}

// Close implements net.Conn: a lingering close when the connection can
// close its sending side alone (TCP), a plain close otherwise. It returns
// at once.
func (c *conn) Close() error {
	var err error
	c.once.Do(func() {
		c.l.forget(c)
		cw, ok := c.Conn.(interface{ CloseWrite() error })
		if !ok || c.abort.Load() {
			err = c.Conn.Close()
			return
		}
		c.l.linger(c.Conn, cw.CloseWrite)
	})
	return err
}

// SetLinger implements the method of *net.TCPConn: SetLinger(0) makes Close
// reset the connection at once, without a lingering close (the drop fault
// of the control API).
func (c *conn) SetLinger(sec int) error {
	tc, ok := c.Conn.(interface{ SetLinger(int) error })
	if !ok {
		return errors.New("the connection cannot set its linger")
	}
	if err := tc.SetLinger(sec); err != nil {
		return err
	}
	c.abort.Store(sec == 0)
	return nil
}

// SyscallConn implements syscall.Conn with the connection's own, so that a
// fault's latency can see whether the client has left (fault.Handler).
func (c *conn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.New("the connection has no system connection")
	}
	return sc.SyscallConn()
}
