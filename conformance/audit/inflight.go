package audit

import (
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// Writes under way: a read that shows an event otherwise than its last
// write the audit saw may have been answered after a write of another
// scenario or sequence, sent before it, that the audit has not seen yet,
// its answer still on its way. The runners' requests go through the
// audit's Transport, which counts the writes sent to each address and not
// yet observed; a finding about what a read shows of an event does not
// stand while a write to it is under way (the run looks again at its
// end, once Close has counted every write in).

// inFlight counts the writes sent and not yet observed, by address, and
// knows the addresses of writes that got no answer. An address is counted
// as every spelling of it a target may route alike (loose): a write to
// /API/EVENTS/7 under way may change what /api/events/7 shows.
type inFlight struct {
	mu   sync.Mutex
	n    map[string]int // by loose key
	lost sync.Map       // by loose key: a write got no answer
}

// loose is the address k (a key) as every spelling a router may take for
// it: its segments' parameters dropped, its dot segments removed, without
// a trailing slash, spaces after its last segment or an extension of it,
// or a query; the last segment, a whole number, in plain decimal (07, +7
// are 7); in lower case.
func loose(k string) string {
	u, err := url.Parse(k)
	if err != nil {
		return strings.ToLower(k)
	}
	segs := strings.Split(u.Path, "/") // decoded once, as a router decodes it
	for i, s := range segs {
		segs[i], _, _ = strings.Cut(s, ";")
	}
	p := strings.TrimRight(path.Clean("/"+strings.Join(segs, "/")), "/")
	dir, last := path.Split(p)
	last = strings.TrimRightFunc(last, unicode.IsSpace)
	if i := strings.LastIndex(last, "."); i > 0 {
		last = last[:i] // a suffix: /7.json
	}
	if n, err := strconv.ParseUint(strings.TrimPrefix(last, "+"), 10, 64); err == nil {
		last = strconv.FormatUint(n, 10)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host + dir + last)
}

// unanswered notes a write to k that got no answer.
func (f *inFlight) unanswered(k string) {
	f.lost.Store(loose(k), true)
}

// unsure reports whether a write to k got no answer: whether it was
// taken is not known.
func (f *inFlight) unsure(k string) bool {
	_, lost := f.lost.Load(loose(k))
	return lost
}

func (f *inFlight) sent(k string) {
	k = loose(k)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == nil {
		f.n = map[string]int{}
	}
	f.n[k]++
}

func (f *inFlight) done(k string) {
	k = loose(k)
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.n[k] > 1:
		f.n[k]--
	case f.n[k] == 1:
		delete(f.n, k)
	}
}

func (f *inFlight) under(k string) bool {
	k = loose(k)
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n[k] > 0
}

// any reports whether a write is under way anywhere.
func (f *inFlight) any() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.n) > 0
}

func (f *inFlight) clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n = nil
}

// Transport returns a RoundTripper that carries requests through base
// (http.DefaultTransport when nil) and tells the audit of each write it
// sends, until the runner observes its exchange (Scope.Observe) or it gets
// no answer. Every request of the runners whose exchanges the audit
// observes goes through it.
func (a *Audit) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return announcing{base: base, a: a}
}

// announcing is the RoundTripper of Transport.
type announcing struct {
	base http.RoundTripper
	a    *Audit
}

func (t announcing) RoundTrip(req *http.Request) (*http.Response, error) {
	if !isWriteMethod(req.Method) {
		return t.base.RoundTrip(req)
	}
	k := key(req.URL)
	t.a.writing.sent(k)
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		// No answer came, but the target may have taken the write (a
		// timeout of the runner's, a connection cut after the request):
		// what its address holds is no longer known.
		t.a.writing.unanswered(k)
		t.a.writing.done(k)
	}
	return resp, err
}

// CloseIdleConnections closes the idle connections of t's base, when it
// has a way to.
func (t announcing) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// observedWrite counts in a write the runner observed, sent to raw.
func (a *Audit) observedWrite(method, raw string) {
	if !isWriteMethod(method) {
		return
	}
	if u, err := url.Parse(raw); err == nil {
		a.writing.done(key(u))
	}
}

// isWriteMethod reports whether method changes something, if anything.
func isWriteMethod(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}
