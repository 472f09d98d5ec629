package server

import (
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// origin is who sent a request and what address it used, as the server
// takes them: from the connection, or from the forwarding headers of a
// trusted proxy.
type origin struct {
	// client is the client's address: the peer's, or the first address
	// of the forwarding chain, from the right, that is not a trusted
	// proxy.
	client string
	// scheme and host are those of the URL the client used: the
	// connection's and Host header's, a trusted proxy's forwarded ones,
	// or the public URL's. With prefix, the path under which a proxy
	// serves the server ("" or "/events-service": a trusted proxy's
	// X-Forwarded-Prefix, or the public URL's path), they make the links
	// of the API (baseURL).
	scheme, host, prefix string
	// public is true when they are the public URL's, the same for every
	// request.
	public bool
}

// originKey is the Fiber local that holds the request's *origin.
const originKey = "eventsvc.origin"

// ParseTrustedProxies reads the -trusted-proxy values: CIDRs such as
// 10.0.0.0/8, or single addresses.
func ParseTrustedProxies(values []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, v := range values {
		v = strings.TrimSpace(v)
		p, err := netip.ParsePrefix(v)
		if err != nil {
			a, aerr := netip.ParseAddr(v)
			if aerr != nil {
				return nil, fmt.Errorf("%q is not a CIDR (such as 10.0.0.0/8) or an address", v)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// proxies is the set of trusted proxies.
type proxies []netip.Prefix

func (ps proxies) trusts(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// The forwarding headers a trusted proxy may tell the client with: one
// family, chosen by the operator (Options.ForwardedHeader). nginx,
// HAProxy's option forwardfor, AWS's and Google's load balancers, Envoy,
// Traefik and Caddy append X-Forwarded-For and pass a client's Forwarded
// on untouched; HAProxy's option forwarded and some CDNs write Forwarded.
// Reading both would let a client's own header of the other family win.
const (
	HeaderXForwardedFor = "X-Forwarded-For"
	HeaderForwarded     = "Forwarded"
)

// headerXForwardedPrefix is the path under which a proxy serves the
// server, as Traefik's StripPrefix, Spring's ForwardedHeaderFilter and
// ASP.NET's forwarded headers read it; RFC 7239 has no parameter for it,
// so it is read beside either family.
const headerXForwardedPrefix = "X-Forwarded-Prefix"

// CheckForwardedHeader refuses a forwarding header the server cannot read.
func CheckForwardedHeader(h string) error {
	if h == "" || strings.EqualFold(h, HeaderXForwardedFor) || strings.EqualFold(h, HeaderForwarded) {
		return nil
	}
	return fmt.Errorf("%q is not a forwarding header the server reads: %s (the default) or %s", h, HeaderXForwardedFor, HeaderForwarded)
}

// forwarding is how the server reads the headers of its trusted proxies.
type forwarding struct {
	trusted proxies
	// rfc7239 reads Forwarded; otherwise X-Forwarded-For (and -Proto,
	// -Host).
	rfc7239 bool
	// hostAndProto takes the links' scheme and host from the nearest
	// proxy's entry, and their path prefix from its X-Forwarded-Prefix.
	hostAndProto bool
	// public, when set, is where the links lead, whatever a request's
	// headers say (Options.PublicURL).
	public *PublicURL
}

// resolveOrigin is the middleware that sets the request's origin, when
// the server trusts proxies (without any, originOf reads the connection
// alone, at no cost to a request that does not ask). Only a request whose
// peer is a trusted proxy has its forwarding headers read, and only the
// family f names: X-Forwarded-For, or Forwarded (RFC 7239,
// https://www.rfc-editor.org/rfc/rfc7239). The client is the first address
// of the chain, read from the right (the nearest hop first), that is not
// itself a trusted proxy, so that an address a client wrote in the header
// itself is never taken. The scheme and host are those of the nearest
// proxy's entry (X-Forwarded-Proto and -Host, or proto= and host=), and
// the path prefix that of its X-Forwarded-Prefix, when f asks for them and
// they are valid: a proxy that sets them without X-Forwarded-For is
// taken at its word too. From any other peer, the headers are ignored. A
// public URL, when f has one, names the scheme, host and prefix whatever
// the headers say.
func resolveOrigin(f forwarding) fiber.Handler {
	return func(c *fiber.Ctx) error {
		o := connOrigin(c)
		if peer := peerAddr(c); f.trusted.trusts(peer) {
			forward(c, f, peer, &o)
		}
		if f.public != nil {
			o.scheme, o.host, o.prefix, o.public = f.public.Scheme, f.public.Host, f.public.Prefix, true
		}
		c.Locals(originKey, &o)
		return c.Next()
	}
}

// hop is one entry of a forwarding chain.
type hop struct {
	addr        netip.Addr // invalid: unknown or obfuscated (RFC 7239 §6)
	proto, host string
}

// forward reads the forwarding headers of a trusted proxy into o.
func forward(c *fiber.Ctx, f forwarding, peer netip.Addr, o *origin) {
	var chain []hop
	if f.rfc7239 {
		for _, v := range c.Request().Header.PeekAll(fiber.HeaderForwarded) {
			chain = append(chain, parseForwarded(string(v))...)
		}
	} else {
		for _, v := range c.Request().Header.PeekAll(fiber.HeaderXForwardedFor) {
			for _, f := range strings.Split(string(v), ",") {
				chain = append(chain, hop{addr: parseNode(strings.TrimSpace(f))})
			}
		}
	}
	if f.hostAndProto {
		var nearest hop
		if len(chain) > 0 {
			nearest = chain[len(chain)-1]
		}
		if !f.rfc7239 {
			nearest.proto = lastValue(c, fiber.HeaderXForwardedProto)
			nearest.host = lastValue(c, fiber.HeaderXForwardedHost)
		}
		if p := strings.ToLower(nearest.proto); p == "http" || p == "https" {
			o.scheme = p
		}
		if validHost(nearest.host) {
			o.host = nearest.host
		}
		if prefix, ok := cleanPrefix(lastValue(c, headerXForwardedPrefix)); ok {
			o.prefix = prefix
		}
	}
	if len(chain) == 0 {
		return
	}
	client := peer
	for i := len(chain) - 1; i >= 0; i-- {
		if !chain[i].addr.IsValid() {
			break // unknown: the last proxy known is as far as the chain can be followed
		}
		client = chain[i].addr
		if !f.trusted.trusts(client) {
			break
		}
	}
	o.client = client.String()
}

// lastValue is the last of the comma-separated values of a header: the
// one the nearest proxy wrote.
func lastValue(c *fiber.Ctx, name string) string {
	all := c.Request().Header.PeekAll(name)
	if len(all) == 0 {
		return ""
	}
	values := strings.Split(string(all[len(all)-1]), ",")
	return strings.TrimSpace(values[len(values)-1])
}

// parseForwarded reads the elements of one Forwarded header value (RFC
// 7239 §4): comma-separated, each a ;-separated list of name=value pairs,
// values plain or quoted.
func parseForwarded(v string) []hop {
	var hops []hop
	for _, element := range splitQuoted(v, ',') {
		var h hop
		for _, pair := range splitQuoted(element, ';') {
			name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
			if !ok {
				continue
			}
			value = unquote(strings.TrimSpace(value))
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "for":
				h.addr = parseNode(value)
			case "proto":
				h.proto = value
			case "host":
				h.host = value
			}
		}
		hops = append(hops, h)
	}
	return hops
}

// splitQuoted splits s at sep outside double quotes.
func splitQuoted(s string, sep byte) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && quoted:
			i++
		case s[i] == '"':
			quoted = !quoted
		case s[i] == sep && !quoted:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `\`, "")
	}
	return s
}

// parseNode reads a node (RFC 7239 §6): an IPv4 address, a bracketed IPv6
// address, either with a port, or "unknown" or an obfuscated name, which
// give the invalid Addr. X-Forwarded-For's bare IPv6 addresses are read
// too.
func parseNode(s string) netip.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap()
	}
	if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")); err == nil {
		return a.Unmap()
	}
	return netip.Addr{}
}

// validHost accepts a forwarded host that can stand in a URL: a name or
// an address, with an optional port, and nothing else.
func validHost(h string) bool {
	if h == "" || len(h) > 255 || strings.ContainsAny(h, "/\\?#@ \t\"'<>") {
		return false
	}
	host, port, err := net.SplitHostPort(h)
	if err != nil {
		host, port = h, ""
	}
	for _, r := range strings.Trim(host, "[]") {
		if !(r == '.' || r == '-' || r == ':' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	for _, r := range port {
		if r < '0' || r > '9' {
			return false
		}
	}
	return host != ""
}

// originOf returns the request's origin: the one resolveOrigin set, or
// the connection's.
func originOf(c *fiber.Ctx) origin {
	if o, ok := c.Locals(originKey).(*origin); ok {
		return *o
	}
	return connOrigin(c)
}

// connOrigin is the origin the connection tells: its peer, its scheme and
// the Host header.
func connOrigin(c *fiber.Ctx) origin {
	return origin{client: peerAddr(c).String(), scheme: connScheme(c), host: string(c.Request().URI().Host())}
}

// peerAddr is the address of the connection's peer.
func peerAddr(c *fiber.Ctx) netip.Addr {
	peer, _ := netip.AddrFromSlice(c.Context().RemoteIP())
	return peer.Unmap()
}

// connScheme is the connection's scheme. Not c.Protocol(), which formats
// the peer's address to look it up among Fiber's trusted proxies.
func connScheme(c *fiber.Ctx) string {
	if c.Context().IsTLS() {
		return "https"
	}
	return "http"
}

// clientIP is the client's address: the one the lockout, the token budget,
// the request log and the metrics use.
func clientIP(c *fiber.Ctx) string { return originOf(c).client }

// baseURL is the scheme, host and path prefix of the API's links
// (reference rule API-10): the client's, through a trusted proxy, or the
// public URL.
func baseURL(c *fiber.Ctx) string {
	if o, ok := c.Locals(originKey).(*origin); ok {
		return o.scheme + "://" + o.host + o.prefix
	}
	return connScheme(c) + "://" + string(c.Request().URI().Host())
}

// appendBaseURL appends baseURL, escaped as in a JSON string, to b,
// without making a string of it.
func appendBaseURL(b []byte, c *fiber.Ctx) []byte {
	if o, ok := c.Locals(originKey).(*origin); ok {
		b = appendJSONText(b, o.scheme)
		b = append(b, "://"...)
		b = appendJSONText(b, o.host)
		return append(b, o.prefix...) // cleanPrefix: nothing to escape
	}
	b = append(b, connScheme(c)...)
	b = append(b, "://"...)
	return appendJSONText(b, string(c.Request().URI().Host()))
}
