// Package origintest is a target that sends its clients to another origin,
// for the tests of the runners: a proxy in front of a server, whose
// answers (their Location headers and bodies) name another listener, on
// another loopback port, for every address under a prefix. The other
// listener serves those addresses too, through the same proxy, and writes
// down the credentials it was sent.
package origintest

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Cookie is the cookie every answer of the target sets: a client must not
// send it to the other origin either.
const Cookie = "session=target-session"

// Target is the proxy and the other listener.
type Target struct {
	// URL is the target's address, the proxy's.
	URL string
	// Other is the other listener's address: another origin.
	Other string

	backend, prefix string

	mu          sync.Mutex
	requests    int
	credentials []string
}

// Start starts the proxy in front of backend and the other listener, both
// closed when the test ends. Every address of the proxy under prefix is
// moved to the other listener: "/api/events/" moves the events, "/api/events"
// the list as well.
func Start(t testing.TB, backend, prefix string) *Target {
	t.Helper()
	x := &Target{backend: strings.TrimRight(backend, "/"), prefix: prefix}
	proxy, other := listen(t), listen(t)
	x.URL, x.Other = "http://"+proxy.Addr().String(), "http://"+other.Addr().String()
	serve(t, proxy, http.HandlerFunc(x.forward))
	serve(t, other, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x.mu.Lock()
		x.requests++
		for _, name := range []string{"Authorization", "Cookie"} {
			for range r.Header.Values(name) {
				x.credentials = append(x.credentials, name)
			}
		}
		x.mu.Unlock()
		x.forward(w, r)
	}))
	return x
}

// Seen returns how many requests the other listener got, and the names
// of the credentials they carried ("Authorization", "Cookie"), one for
// each header: their values are secrets.
func (x *Target) Seen() (requests int, credentials []string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.requests, slices.Clone(x.credentials)
}

func listen(t testing.TB) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func serve(t testing.TB, l net.Listener, h http.Handler) {
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: h}}
	srv.Start()
	t.Cleanup(srv.Close)
}

// forward sends r to the backend as if to the proxy, whose address the
// backend's links then name, and answers with the backend's answer, its
// addresses under the prefix moved to the other listener.
func (x *Target) forward(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req, err := http.NewRequest(r.Method, x.backend+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req.Header = r.Header.Clone()
	req.Header.Del("Accept-Encoding") // the body is rewritten: not compressed
	req.Host = strings.TrimPrefix(x.URL, "http://")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	from, to := x.URL+x.prefix, x.Other+x.prefix
	answer = bytes.ReplaceAll(answer, []byte(from), []byte(to))
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	if loc := resp.Header.Get("Location"); strings.HasPrefix(loc, from) {
		w.Header().Set("Location", to+strings.TrimPrefix(loc, from))
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
	w.Header().Add("Set-Cookie", Cookie+"; Path=/")
	w.WriteHeader(resp.StatusCode)
	w.Write(answer)
}
