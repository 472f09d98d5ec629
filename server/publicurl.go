package server

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// PublicURL is the address under which clients reach the server, when a
// proxy in front of it serves it elsewhere than the server can tell from
// a request: another scheme (TLS ends at the proxy), another host or port,
// or a path prefix (https://staging.example/events-service, proxied to the
// server's root). Every link, every Location and every absolute address
// of the documentation page starts with it, whatever the request's
// headers (reference rule API-10).
type PublicURL struct {
	Scheme string // http or https
	Host   string // host, with its port when it has one
	Prefix string // the path, without a trailing slash: "" or "/events-service"
}

// String is the public URL as the links start with it.
func (p PublicURL) String() string { return p.Scheme + "://" + p.Host + p.Prefix }

// ParsePublicURL reads the -public-url value: an absolute http or https URL
// with a host, and a path, but no user, query or fragment. A trailing
// slash is dropped: https://staging.example/events-service/ and
// https://staging.example/events-service are the same.
func ParsePublicURL(s string) (PublicURL, error) {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return PublicURL{}, fmt.Errorf("%q is not a URL: %w", s, errors.Unwrap(err))
	case u.Scheme != "http" && u.Scheme != "https":
		return PublicURL{}, fmt.Errorf("%q is not an http or https URL, such as https://staging.example/events-service", s)
	case u.Opaque != "" || u.Host == "" || !validHost(u.Host):
		return PublicURL{}, fmt.Errorf("%q names no host that can stand in a link, such as https://staging.example", s)
	case u.User != nil:
		return PublicURL{}, fmt.Errorf("%q holds a user name or password: the links would repeat it", u.Redacted())
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(s, "#"):
		return PublicURL{}, fmt.Errorf("%q has a query or fragment: give the scheme, host, port and path only", s)
	}
	prefix, ok := cleanPrefix(u.EscapedPath())
	if !ok {
		return PublicURL{}, fmt.Errorf("%q has a path that cannot prefix the API's: no dot segments, empty segments or characters that need quoting", s)
	}
	return PublicURL{Scheme: u.Scheme, Host: u.Host, Prefix: prefix}, nil
}

// cleanPrefix checks a path prefix, from -public-url or a trusted proxy's
// X-Forwarded-Prefix: "" or "/", or segments of letters, digits and
// -._~ each after a slash, with no dot segment; a trailing slash is
// dropped. It is written into links as it is, so nothing in it needs
// escaping in a URL, a JSON string or an HTML attribute.
func cleanPrefix(p string) (string, bool) {
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return "", true
	}
	if len(p) > 200 || p[0] != '/' {
		return "", false
	}
	for _, seg := range strings.Split(p[1:], "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", false
		}
		for _, r := range seg {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~", r)) {
				return "", false
			}
		}
	}
	return p, true
}
