// Package flawed serves flawed reference servers, a fixture of the
// suite's own tests: the in-process reference server behind a proxy that
// breaks it in one way, a way that shows only with some data or after
// some sequence of requests (Flaws), or only when requests meet at it
// (meet.go): faults no scenario was written for, which exploration finds.
// Package explore's tests explore them, and the runner's tests run the
// scenarios and an exploration against each of Flaws. Nothing of the
// suite imports it.
package flawed

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"eventsvc/conformance/inprocess"
	"eventsvc/conformance/target"
)

// Flaw is one way to break the reference server.
type Flaw struct {
	// Name says what the flaw breaks.
	Name string
	// Rules are what exploration may blame, the first among them: a rule
	// id, or "server error".
	Rules []string
	// Request may answer the request itself (true), or change it.
	Request func(p *Proxy, w http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool)
	// Answer may change a JSON answer to the request.
	Answer func(p *Proxy, r *http.Request, reqBody []byte, status int, doc map[string]any)
	// Audited is set for a flaw the scenarios of a remote run catch too,
	// though none was written for it: the audit of every answer they get
	// sees it in an answer some step asked for another reason.
	Audited bool
}

// Proxy serves a reference server at backend with one flaw, and
// remembers what its flaws need: who created each event, the body each
// was last updated with, and whose refreshed tokens are whose.
type Proxy struct {
	flaw    Flaw
	backend string

	mu           sync.Mutex
	creator      map[string]string         // event path → the creator's Authorization
	lastBody     map[string]map[string]any // event path → its last body taken
	updates      map[string]int            // event path → the updates taken
	refreshOf    map[string]string         // refresh token → username
	refreshedFor map[string]string         // access token from a refresh → username
	// seen, when set, is told of every request, its body, and the status
	// answered.
	seen func(r *http.Request, body []byte, status int)
	// meet is what the flaws of requests that meet remember
	// (meet.go).
	meet meetings
}

// Start starts a reference server and the proxy of f in front of it, and
// returns the proxy's address.
func Start(t testing.TB, f Flaw) string {
	t.Helper()
	return StartProxy(t, f, nil)
}

// StartProxy is Start, telling seen of every request, its body, and the
// status answered.
func StartProxy(t testing.TB, f Flaw, seen func(*http.Request, []byte, int)) string {
	t.Helper()
	inst, err := inprocess.Launcher{Credentials: target.DemoCredentials, RealTime: true}.Launch(target.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Close() })
	p := &Proxy{flaw: f, backend: inst.BaseURL(), creator: map[string]string{}, lastBody: map[string]map[string]any{}, updates: map[string]int{},
		refreshOf: map[string]string{}, refreshedFor: map[string]string{}, seen: seen}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv.URL
}

// ServeHTTP serves r from the reference server, with the proxy's flaw.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if p.flaw.Request != nil {
		var done bool
		if body, done = p.flaw.Request(p, w, r, body); done {
			if p.seen != nil {
				p.seen(r, body, http.StatusInternalServerError)
			}
			return
		}
	}
	req, _ := http.NewRequest(r.Method, p.backend+r.URL.RequestURI(), bytes.NewReader(body))
	req.Header = r.Header.Clone()
	req.Host = r.Host // the links name the proxy
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	p.remember(r, body, resp, answer)
	if p.seen != nil {
		p.seen(r, body, resp.StatusCode)
	}
	var doc map[string]any
	if p.flaw.Answer != nil && strings.Contains(resp.Header.Get("Content-Type"), "json") && json.Unmarshal(answer, &doc) == nil && doc != nil {
		p.flaw.Answer(p, r, body, resp.StatusCode, doc)
		answer, _ = json.Marshal(doc)
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
	w.WriteHeader(resp.StatusCode)
	w.Write(answer)
}

// remember notes what the flaws need of an exchange.
func (p *Proxy) remember(r *http.Request, body []byte, resp *http.Response, answer []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/api/events" && ok:
		if u, err := url.Parse(resp.Header.Get("Location")); err == nil {
			p.creator[u.Path] = r.Header.Get("Authorization")
			var sent map[string]any
			if json.Unmarshal(body, &sent) == nil {
				p.lastBody[u.Path] = sent
			}
		}
	case r.Method == http.MethodPut && EventPath.MatchString(r.URL.Path) && ok:
		var sent map[string]any
		if json.Unmarshal(body, &sent) == nil {
			p.lastBody[r.URL.Path] = sent
			p.updates[r.URL.Path]++
		}
	case r.Method == http.MethodPost && r.URL.Path == "/oauth/token" && ok:
		form, _ := url.ParseQuery(string(body))
		var tokens struct {
			Access  string `json:"access_token"`
			Refresh string `json:"refresh_token"`
		}
		json.Unmarshal(answer, &tokens)
		switch form.Get("grant_type") {
		case "password":
			p.refreshOf[tokens.Refresh] = form.Get("username")
		case "refresh_token":
			who := p.refreshOf[form.Get("token")]
			p.refreshedFor[tokens.Access] = who
			if tokens.Refresh != "" {
				p.refreshOf[tokens.Refresh] = who
			}
		}
	}
}
