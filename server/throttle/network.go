package throttle

import "net/netip"

// Network is what the lockout and the budget count a client by: an IPv4
// address whole, and for IPv6 the /64 the address is in. A subscriber
// gets at least a /64 (RFC 6177, https://www.rfc-editor.org/rfc/rfc6177)
// and its hosts may take any address of it (RFC 4941), so counting by
// address would give one client 2^64 fresh starts. An address that does
// not parse is counted as written.
func Network(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	p, err := a.Prefix(64)
	if err != nil {
		return addr
	}
	return p.String()
}
