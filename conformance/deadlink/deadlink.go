// Package deadlink keeps the links of a run's target that lead where
// nothing of the API answers: an address a link or a Location offered,
// outside the run's base URL (a path prefix the server was not told of,
// http under an https base URL, a lost port, another host) that answers
// nothing, a gateway's error, a redirect, or a page that is not the API's
// (the proxy's own 404); and the events link of the API root that does
// not answer as a list, inside it too. Each is one finding of API-10,
// told once with its likely cause and the setting that fixes it; the
// rules a dead link kept from being checked are not checked, with that
// reason, rather than failed; and a dead link is never the target that
// stopped answering while the base URL answers.
package deadlink

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// Base is a run's base URL, against which the addresses the target's
// links offer are judged: within it, or outside.
type Base struct {
	scheme, host, port, path string // path without a trailing slash
	raw                      string // as given, without a trailing slash
}

// ParseBase reads a base URL such as https://staging.example/events-service.
func ParseBase(s string) (Base, error) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return Base{}, fmt.Errorf("%q is not an absolute URL", s)
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	return Base{scheme: strings.ToLower(u.Scheme), host: strings.ToLower(u.Hostname()), port: port(u), path: path,
		raw: strings.ToLower(u.Scheme) + "://" + u.Host + path}, nil
}

// port is u's port, or its scheme's default.
func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// String is the base URL.
func (b Base) String() string { return b.raw }

// Within reports whether u is under the base URL: the same scheme, host
// and port, and a path under its path.
func (b Base) Within(u *url.URL) bool {
	if !b.sameOrigin(u) {
		return false
	}
	p := u.EscapedPath()
	return b.path == "" || p == b.path || strings.HasPrefix(p, b.path+"/")
}

// sameOrigin reports whether u has the base URL's scheme, host and port.
func (b Base) sameOrigin(u *url.URL) bool {
	return strings.EqualFold(u.Scheme, b.scheme) && strings.EqualFold(u.Hostname(), b.host) && port(u) == b.port
}

// Link is an address a link or a Location of the target offered, where
// nothing of the API answers.
type Link struct {
	// Address is where it leads, without its fragment.
	Address string
	// Rel and From say which link offered it and where, when the run saw
	// it offered: "events" of "GET /events-service/api".
	Rel, From string
	// Method, Status and Answer are the request sent there and what
	// answered: status 0 and the network's error for no answer, or the
	// status and the kind of page ("an HTML page, Server: nginx/1.22.1").
	Method string
	Status int
	Answer string
	// Header and Body are the start of the answer, as it came (the
	// reports mask and escape them).
	Header http.Header
	Body   string
	// Cause is the likely cause, and Fix the setting that fixes it.
	Cause, Fix string
}

// Message is the link's finding, for people: where it leads, what
// answered, the likely cause and the fix.
func (l *Link) Message() string {
	what := "an address the target's links offer"
	if l.Rel != "" {
		what = fmt.Sprintf("the %q link of %s", l.Rel, l.From)
	}
	return fmt.Sprintf("%s leads to %s, where %s: %s; %s", what, l.Address, l.Answer, l.Cause, l.Fix)
}

// Transcript is the exchange at the link as the reports show it, before
// masking: the request line, the status and the start of the answer.
func (l *Link) Transcript() string {
	var b strings.Builder
	fmt.Fprintf(&b, "request:\n    %s %s\nresponse:\n", l.Method, l.Address)
	if l.Status == 0 {
		fmt.Fprintf(&b, "    (%s)\n", l.Answer)
		return b.String()
	}
	fmt.Fprintf(&b, "    HTTP/1.1 %d %s\n", l.Status, http.StatusText(l.Status))
	for _, name := range []string{"Content-Type", "Content-Length", "Location", "Server"} {
		if v := l.Header.Get(name); v != "" {
			fmt.Fprintf(&b, "    %s: %s\n", name, v)
		}
	}
	if l.Body != "" {
		b.WriteString("    \n")
		for _, line := range strings.Split(strings.TrimRight(l.Body, "\n"), "\n") {
			b.WriteString("    " + line + "\n")
		}
	}
	return b.String()
}

// Error is a failure that a dead link caused: what was checked could not
// be, since the address it needed leads nowhere. The rules it was to
// check are not checked, with that reason.
type Error struct {
	Link *Link
	Err  error // the failure as the check met it
}

func (e *Error) Error() string {
	what := "an address the target's links offer"
	if e.Link.Rel != "" {
		what = fmt.Sprintf("the %q link of %s", e.Link.Rel, e.Link.From)
	}
	return fmt.Sprintf("not checked: it needed %s, which leads to %s, where %s (API-10 tells it once, with its likely cause)", what, e.Link.Address, e.Link.Answer)
}

func (e *Error) Unwrap() error { return e.Err }

// Log keeps the dead links of one run, told by the watch of its answers
// (Note) and by the preflight (NoteDead), with the links the audit saw
// offered (Offered). It is safe for concurrent use. A nil *Log keeps
// nothing and finds every address within.
type Log struct {
	base Base

	mu     sync.Mutex
	dead   map[string]*Link // by address, without query and fragment
	order  []*Link
	offers map[string]offer // by address, without query and fragment
}

// offer is where a link to an address was seen.
type offer struct{ rel, from string }

// NewLog returns the Log of a run against base, a base URL; nil when base
// is empty (an in-process run, whose every scenario has a server of its
// own).
func NewLog(base string) *Log {
	if base == "" {
		return nil
	}
	b, err := ParseBase(base)
	if err != nil {
		return nil
	}
	return &Log{base: b, dead: map[string]*Link{}, offers: map[string]offer{}}
}

// Base is the run's base URL.
func (l *Log) Base() Base { return l.base }

// Within reports whether u is under the run's base URL (Base.Within).
func (l *Log) Within(u *url.URL) bool { return l == nil || l.base.Within(u) }

// maxOffers bounds the offers a Log keeps: the first ones tell.
const maxOffers = 10_000

// Offered notes that the answer to from (such as "GET /api") offered the
// link rel to u. Only links outside the base URL are kept.
func (l *Log) Offered(u *url.URL, rel, from string) {
	if l == nil || l.base.Within(u) {
		return
	}
	k := addressKey(u)
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.offers[k]; !ok && len(l.offers) < maxOffers {
		l.offers[k] = offer{rel, from}
	}
}

// addressKey is u without its query and fragment.
func addressKey(u *url.URL) string {
	c := *u
	c.RawQuery, c.Fragment, c.RawFragment, c.ForceQuery = "", "", "", false
	c.User = nil
	return c.String()
}

// Dead returns the dead link at u's address (its query and fragment
// aside), or nil.
func (l *Log) Dead(u *url.URL) *Link {
	if l == nil || u == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dead[addressKey(u)]
}

// DeadAt is Dead of an address as text.
func (l *Log) DeadAt(address string) *Link {
	u, err := url.Parse(address)
	if err != nil {
		return nil
	}
	return l.Dead(u)
}

// Links returns the dead links, in the order they were found.
func (l *Log) Links() []*Link {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*Link(nil), l.order...)
}

// maxBody bounds the start of an answer a dead link keeps.
const maxBody = 512

// Note tells the log of an exchange of the run: req, and its answer resp
// or the error err. An exchange outside the base URL whose answer is not
// the API's (no answer, a gateway's error, a redirect, an error page that
// is not JSON), or that leaves https for http, makes its address a dead
// link: at another origin, which only a link leads to, or at the base
// URL's origin when a link offered it (Offered), for the suite sends
// addresses of its own there (the base URL's path spelt otherwise). It
// reads at most maxBody bytes of resp's body, and leaves the body whole
// for the caller. It reports whether the address is dead.
func (l *Log) Note(req *http.Request, resp *http.Response, err error) bool {
	if l == nil || req == nil || req.URL == nil || l.base.Within(req.URL) {
		return false
	}
	key := addressKey(req.URL)
	if l.base.sameOrigin(req.URL) {
		l.mu.Lock()
		_, offered := l.offers[key]
		l.mu.Unlock()
		if !offered {
			return false
		}
	}
	link := &Link{Address: key, Method: req.Method}
	switch {
	case err != nil:
		link.Answer = "nothing answered (" + networkError(err) + ")"
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		link.Status, link.Header = resp.StatusCode, resp.Header.Clone()
		link.Answer = fmt.Sprintf("a redirect answered (%d, to %s)", resp.StatusCode, resp.Header.Get("Location"))
	case resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusGatewayTimeout:
		link.Status, link.Header, link.Body = resp.StatusCode, resp.Header.Clone(), peek(resp)
		link.Answer = fmt.Sprintf("a gateway answered %d", resp.StatusCode)
	case resp.StatusCode >= 400 && !isJSON(resp.Header.Get("Content-Type")):
		link.Status, link.Header, link.Body = resp.StatusCode, resp.Header.Clone(), peek(resp)
		link.Answer = fmt.Sprintf("%d answered, %s", resp.StatusCode, pageKind(resp.Header))
	case downgrade(l.base, req.URL):
		link.Status, link.Header = resp.StatusCode, resp.Header.Clone()
		link.Answer = fmt.Sprintf("%d answered over plain http, where no credential may go", resp.StatusCode)
	default:
		return false
	}
	link.Cause, link.Fix = likelyCause(l.base, req.URL)
	l.add(link)
	return true
}

// NoteDead notes a dead link the preflight found within the base URL:
// the events link of the API root, which does not answer as a list.
func (l *Log) NoteDead(link *Link) {
	if l == nil {
		return
	}
	if link.Cause == "" {
		if u, err := url.Parse(link.Address); err == nil && !l.base.Within(u) {
			link.Cause, link.Fix = likelyCause(l.base, u)
		} else {
			link.Cause, link.Fix = "the link leads to an address of the API that does not answer as its relation says", "the API's links lead where the API serves what they name (API-10)"
		}
	}
	l.add(link)
}

func (l *Log) add(link *Link) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.dead[link.Address]; ok {
		return
	}
	if o, ok := l.offers[link.Address]; ok && link.Rel == "" {
		link.Rel, link.From = o.rel, o.from
	}
	l.dead[link.Address] = link
	l.order = append(l.order, link)
}

// peek reads the start of resp's body and leaves the body whole.
func peek(resp *http.Response) string {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b), resp.Body), resp.Body}
	return string(b)
}

func isJSON(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// pageKind says what an answer that is not JSON is.
func pageKind(h http.Header) string {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	kind := "a body that is not JSON"
	switch {
	case mt == "text/html":
		kind = "an HTML page, not the API's JSON"
	case mt == "":
		kind = "no JSON"
	}
	if server := h.Get("Server"); server != "" {
		kind += " (Server: " + server + ")"
	}
	return kind
}

// downgrade reports whether u is http where base is https, on the same
// host.
func downgrade(base Base, u *url.URL) bool {
	return base.scheme == "https" && strings.EqualFold(u.Scheme, "http") && strings.EqualFold(u.Hostname(), base.host)
}

// networkError is err without the request it wraps.
func networkError(err error) string {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Op + ": " + op.Err.Error()
	}
	return err.Error()
}

// publicAddress is the fix of a link that leaves the base URL: what any
// deployment does, and the settings of the reference server that do it.
const publicAddress = "tell the deployment the address its clients use (the reference server: eventsvc serve -public-url %s, or -trusted-proxy with -forwarded-host and the proxy's %s)"

// likelyCause says why a link of the target leads to u, outside base,
// and what fixes it. It never advises BASE_URL to leave https.
func likelyCause(base Base, u *url.URL) (cause, fix string) {
	sameHost := strings.EqualFold(u.Hostname(), base.host)
	switch {
	case downgrade(base, u):
		return "TLS ends in front of the server, which builds its links with http, the scheme of the connection it receives",
			fmt.Sprintf(publicAddress, base, "X-Forwarded-Proto")
	case sameHost && strings.EqualFold(u.Scheme, base.scheme) && port(u) != base.port:
		return fmt.Sprintf("the links lose the port %s that BASE_URL names: the server builds them from a Host without it", base.port),
			fmt.Sprintf(publicAddress, base, "X-Forwarded-Host with the port, such as nginx's $http_host")
	case sameHost && base.path != "" && !strings.HasPrefix(u.EscapedPath(), base.path+"/") && u.EscapedPath() != base.path:
		return fmt.Sprintf("the server builds its links without the path prefix %s under which it is served", base.path),
			fmt.Sprintf(publicAddress, base, "X-Forwarded-Prefix "+base.path)
	case !sameHost:
		return fmt.Sprintf("the links name the host %s, not BASE_URL's %s: the server builds them from the Host the proxy passes on", u.Host, base.host),
			fmt.Sprintf(publicAddress, base, "X-Forwarded-Host")
	}
	return "the link leaves BASE_URL", fmt.Sprintf(publicAddress, base, "X-Forwarded-Prefix")
}

// ProxyPage says, of an answer that is not the API's, that a proxy in
// front of it likely answered, and what it tells: "" for an answer that
// may be the API's. status is the answer's, h its headers.
func ProxyPage(status int, h http.Header) string {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	if status < 400 || mt != "text/html" && status != http.StatusRequestEntityTooLarge {
		return ""
	}
	who := "a proxy in front of the API"
	if server := h.Get("Server"); server != "" {
		who += " (Server: " + server + ")"
	}
	if status == http.StatusRequestEntityTooLarge {
		return "this answer is likely " + who + "'s own, not the API's: it refused the request as too large before the API saw it (nginx: client_max_body_size)"
	}
	return "this answer is likely " + who + "'s own page, not the API's"
}
