package server

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ErrBadCORSOrigin reports an Options.CORSOrigin that is not one origin.
var ErrBadCORSOrigin = errors.New("not an origin")

// CheckCORSOrigin checks an origin for Options.CORSOrigin: exactly one
// origin as a browser sends it (RFC 6454 §6.1,
// https://www.rfc-editor.org/rfc/rfc6454#section-6.1), http or https, a
// host and an optional port, nothing else (a trailing "/" aside). It
// refuses "*": any web page could then call the API, and the front end
// that needs it is always known.
func CheckCORSOrigin(origin string) error {
	fail := func(why string) error {
		return fmt.Errorf("%q: %w: %s; want one origin such as http://localhost:3000", origin, ErrBadCORSOrigin, why)
	}
	if strings.Contains(origin, "*") {
		return fail("wildcards are refused, name the front end's origin")
	}
	if strings.Contains(origin, ",") {
		return fail("one origin only")
	}
	u, err := url.Parse(origin)
	switch {
	case err != nil:
		return fail("it does not parse as a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return fail("the scheme must be http or https")
	case u.Opaque != "" || u.Host == "" || u.Hostname() == "":
		return fail("it has no host")
	case u.User != nil:
		return fail("an origin has no user information")
	case u.Path != "" && u.Path != "/", u.RawQuery != "", u.ForceQuery, u.Fragment != "":
		return fail("an origin has no path, query or fragment")
	}
	return nil
}

// Validate reports the first option New cannot take: a CORSOrigin that
// CheckCORSOrigin refuses (New panics on it), or a ForwardedHeader that
// CheckForwardedHeader refuses (New would read X-Forwarded-For). A program
// that takes them from its user checks them first.
func (o Options) Validate() error {
	if o.CORSOrigin != "" {
		if err := CheckCORSOrigin(o.CORSOrigin); err != nil {
			return fmt.Errorf("cors origin: %w", err)
		}
	}
	if err := CheckForwardedHeader(o.ForwardedHeader); err != nil {
		return fmt.Errorf("forwarded header: %w", err)
	}
	if o.PublicURL != "" {
		if _, err := ParsePublicURL(o.PublicURL); err != nil {
			return fmt.Errorf("public URL: %w", err)
		}
	}
	return nil
}
