// Package origin keeps a run's credentials to its target's origin (RFC
// 6454: scheme, host and port). A request to another origin, where a link,
// a Location or a redirect of the target leads, goes without its
// Authorization header and without cookies, and the run's Log notes it, so
// that the reports say where the run went and what led it there.
package origin

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Of returns the origin of u, "scheme://host:port": the scheme and host in
// lower case, the port always written (80 for http, 443 for https when u
// names none). It is "" when u is not an http or https address with a
// host: such an address is of no origin a target has (RFC 6454 §4 gives it
// a unique one).
func Of(u *url.URL) string {
	if u == nil {
		return ""
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname())
	port := map[string]string{"http": "80", "https": "443"}[scheme]
	if host == "" || port == "" {
		return ""
	}
	if p := u.Port(); p != "" {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil {
			return ""
		}
		port = strconv.FormatUint(n, 10)
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// ofAddress is the origin of an address; "" when it is none.
func ofAddress(address string) string {
	u, err := url.Parse(address)
	if err != nil {
		return ""
	}
	return Of(u)
}

// credentials are the headers a request to another origin goes without.
// Proxy-Authorization is the proxy's, on the way to any origin: it stays.
var credentials = []string{"Authorization", "Cookie"}

// Strip returns a copy of h without the credentials: Authorization and
// Cookie.
func Strip(h http.Header) http.Header {
	out := h.Clone()
	for _, name := range credentials {
		out.Del(name)
	}
	return out
}

// Guard is an http.RoundTripper that sends credentials only to its
// target's origin: a request to any other origin goes on through Base
// without its Authorization and Cookie headers (a cookie jar adds them
// before the transport, and Go's redirect policy keeps them for another
// port of the same host), and Log is told of it. Every client a run builds
// for its target has one as its transport, so that no step, check or
// redirect decides otherwise.
type Guard struct {
	// Target is the address of the run's target; its origin is the one
	// credentials go to. Empty: none.
	Target string
	// Base carries the requests. Nil: http.DefaultTransport.
	Base http.RoundTripper
	// Log, when set, is told of every request to another origin.
	Log *Log
}

// Withholds reports whether g sends req without its credentials: req goes
// to another origin than the target's.
func (g *Guard) Withholds(req *http.Request) bool {
	target := ofAddress(g.Target)
	return target == "" || Of(req.URL) != target
}

// RoundTrip sends req, without its credentials when it goes to another
// origin. req itself is left as it is.
func (g *Guard) RoundTrip(req *http.Request) (*http.Response, error) {
	base := g.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if g.Withholds(req) {
		g.Log.sent(req)
		out := req.Clone(req.Context())
		out.Header = Strip(req.Header)
		req = out
	}
	resp, err := base.RoundTrip(req)
	if err == nil {
		g.Log.answered(g.Target, resp)
	}
	return resp, err
}

// viaKey is the context key of Via.
type viaKey struct{}

// Via returns ctx saying why a request made with it goes where it goes,
// such as `the "self" link of GET /api/events`: the Log tells it of a
// request to another origin.
func Via(ctx context.Context, why string) context.Context {
	return context.WithValue(ctx, viaKey{}, why)
}

// maxVia bounds what a Log keeps of what led to one origin.
const maxVia = 5

// Foreign is an origin other than the target's that a run sent requests
// to, without credentials.
type Foreign struct {
	Origin string
	// Requests is how many requests went there.
	Requests int
	// Via says what led there, when the run knows, at most five things:
	// the link followed, the Location that named it, the redirect.
	Via []string
}

// Log keeps the origins other than its target's that a run sent requests
// to. The zero Log is ready to use, a nil one notes nothing, and it is safe
// for concurrent use.
type Log struct {
	mu    sync.Mutex
	seen  map[string]*Foreign
	order []string
	named map[string]string // an origin → the first Location that named it
}

// Foreign returns the origins, in the order the run first went there.
func (l *Log) Foreign() []Foreign {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Foreign, 0, len(l.order))
	for _, o := range l.order {
		f := *l.seen[o]
		f.Via = slices.Clone(f.Via)
		out = append(out, f)
	}
	return out
}

// sent notes a request to another origin, and what led there.
func (l *Log) sent(req *http.Request) {
	if l == nil {
		return
	}
	o := Of(req.URL)
	if o == "" {
		o = req.URL.Scheme + ":"
	}
	var via []string
	if why, ok := req.Context().Value(viaKey{}).(string); ok && why != "" {
		via = append(via, why)
	}
	if from := req.Response; from != nil && from.Request != nil {
		via = append(via, fmt.Sprintf("a redirect (%d) of %s %s", from.StatusCode, from.Request.Method, from.Request.URL.Path))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if named, ok := l.named[o]; ok {
		via = append(via, named)
	}
	f, ok := l.seen[o]
	if !ok {
		if l.seen == nil {
			l.seen = map[string]*Foreign{}
		}
		f = &Foreign{Origin: o}
		l.seen[o] = f
		l.order = append(l.order, o)
	}
	f.Requests++
	for _, v := range via {
		if len(f.Via) < maxVia && !slices.Contains(f.Via, v) {
			f.Via = append(f.Via, v)
		}
	}
}

// answered notes the origin an answer's Location names, when it is not
// the target's.
func (l *Log) answered(target string, resp *http.Response) {
	loc := resp.Header.Get("Location")
	if l == nil || loc == "" || resp.Request == nil {
		return
	}
	ref, err := url.Parse(loc)
	if err != nil {
		return
	}
	o := Of(resp.Request.URL.ResolveReference(ref))
	if o == "" || o == ofAddress(target) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.named[o]; !ok {
		if l.named == nil {
			l.named = map[string]string{}
		}
		l.named[o] = fmt.Sprintf("named by the Location of %s %s", resp.Request.Method, resp.Request.URL.Path)
	}
}

// Mask returns fs with mask applied to every text, such as a redactor's
// String.
func Mask(fs []Foreign, mask func(string) string) []Foreign {
	out := make([]Foreign, len(fs))
	for i, f := range fs {
		out[i] = Foreign{Origin: mask(f.Origin), Requests: f.Requests}
		for _, v := range f.Via {
			out[i].Via = append(out[i].Via, mask(v))
		}
	}
	return out
}

// CloseIdleConnections closes the idle connections of g's Base, when it
// has a way to (an http.Client's CloseIdleConnections reaches it so).
func (g *Guard) CloseIdleConnections() {
	base := g.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if c, ok := base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
