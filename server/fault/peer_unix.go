//go:build unix

package fault

import (
	"errors"
	"net"
	"syscall"
)

// peerClosed reports whether the client has closed conn (or reset it),
// without reading anything from it: a peek that does not wait reads 0
// bytes at the end of the stream. A conn that gives no system connection
// is never seen closed.
func peerClosed(conn net.Conn) bool {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	var buf [1]byte
	err = raw.Read(func(fd uintptr) bool {
		n, _, rerr := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		closed = n == 0 && rerr == nil || errors.Is(rerr, syscall.ECONNRESET)
		return true
	})
	return err == nil && closed
}
