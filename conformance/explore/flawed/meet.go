package flawed

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Flaws of requests that meet: the flawed proxy (flawed.go) holds
// each write for meetHold, as a store a round trip away would take it,
// and remembers which were held at the same time, so that a flaw can
// break what only requests in flight together do.

// meetHold is how long the proxy holds a write that may meet another:
// long enough for two requests released together to reach the proxy on
// a machine busy with every test package at once (25ms was not, on two
// cores), longer still under the race detector, which slows them more.
var meetHold = map[bool]time.Duration{false: 60 * time.Millisecond, true: 100 * time.Millisecond}[raceBuild]

// meetings is what the flaws of requests that meet remember.
type meetings struct {
	mu       sync.Mutex
	held     []heldRequest
	lost     sync.Map // the paths of the events lost
	dead     sync.Map // access tokens the API no longer honours
	creating *stored  // the creation in flight (flaw: one event for two)
	// byBody are the answers to creations, by the body they took (flaw:
	// the same body, the same event).
	byBody map[string]*stored
	create sync.Mutex
	// rotated are the refresh tokens a rotating proxy gave, by the
	// reference server's they stand for; used, those replaced.
	rotated map[string]string
	used    map[string]bool
	rotate  sync.Mutex
}

// heldRequest is a request the proxy held, and when.
type heldRequest struct {
	n          int    // its order of arrival
	kind, key  string // what it is ("PUT", "POST", "refresh") and about (a path, a token)
	start, end time.Time
	body       []byte
}

// stored is an answer kept to be given again.
type stored struct {
	done   chan struct{}
	status int
	header http.Header
	body   []byte
}

// hold holds a request of kind about key for meetHold and returns it, and
// the requests of any kind held at the same time as it.
func (m *meetings) hold(kind, key string, body []byte) (heldRequest, []heldRequest) {
	now := time.Now()
	m.mu.Lock()
	me := heldRequest{n: len(m.held), kind: kind, key: key, start: now, end: now.Add(meetHold), body: body}
	m.held = append(m.held, me)
	m.mu.Unlock()
	time.Sleep(meetHold)
	m.mu.Lock()
	defer m.mu.Unlock()
	var met []heldRequest
	for _, h := range m.held {
		if h.n != me.n && h.start.Before(me.end) && h.end.After(me.start) {
			met = append(met, h)
		}
	}
	return me, met
}

// forward sends r, with body, to the proxy's reference server, and
// returns its answer, read.
func (p *Proxy) forward(r *http.Request, body []byte) *stored {
	req, _ := http.NewRequest(r.Method, p.backend+r.URL.RequestURI(), bytes.NewReader(body))
	req.Header = r.Header.Clone()
	req.Host = r.Host
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return &stored{status: http.StatusBadGateway, header: http.Header{}}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return &stored{status: resp.StatusCode, header: resp.Header, body: b}
}

// write answers w with a.
func (a *stored) write(w http.ResponseWriter) {
	for k, v := range a.header {
		w.Header()[k] = v
	}
	w.WriteHeader(a.status)
	w.Write(a.body)
}

// eventNotFound answers as the reference server does for an event it
// does not hold.
func eventNotFound(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	w.Write([]byte(`{"error":"not_found","error_description":"no such event"}`))
}

// LoseCreationsThatMeetUpdates is a store that keeps the events in one
// document: an update writes back the whole of it as it read it, and a
// creation stored meanwhile is lost. The creation is answered as taken;
// its event then reads as not found (the list, served from an index of
// its own, still shows it).
func LoseCreationsThatMeetUpdates(p *Proxy, w http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
	switch {
	case r.Method == http.MethodGet && p.meet.isLost(r.URL.Path):
		eventNotFound(w)
		return nil, true
	case r.Method == http.MethodPut && EventPath.MatchString(r.URL.Path):
		p.meet.hold(http.MethodPut, r.URL.Path, body)
	case r.Method == http.MethodPost && r.URL.Path == "/api/events":
		_, met := p.meet.hold(http.MethodPost, "", body)
		updated := false
		for _, h := range met {
			updated = updated || h.kind == http.MethodPut
		}
		if !updated {
			return body, false
		}
		a := p.forward(r, body)
		if u, err := url.Parse(a.header.Get("Location")); err == nil && a.status/100 == 2 {
			p.meet.lost.Store(u.Path, true)
		}
		a.write(w)
		return nil, true
	}
	return body, false
}

// isLost reports whether the event at path was lost.
func (m *meetings) isLost(path string) bool {
	_, lost := m.lost.Load(path)
	return lost
}

// OneEventForTwo answers a creation that meets another with the other's
// event: the id is read, outside the insert's transaction, by both.
func OneEventForTwo(p *Proxy, w http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
	if r.Method != http.MethodPost || r.URL.Path != "/api/events" {
		return body, false
	}
	m := &p.meet
	m.mu.Lock()
	if c := m.creating; c != nil {
		m.mu.Unlock()
		<-c.done
		c.write(w)
		return nil, true
	}
	c := &stored{done: make(chan struct{})}
	m.creating = c
	m.mu.Unlock()
	time.Sleep(meetHold)
	a := p.forward(r, body)
	c.status, c.header, c.body = a.status, a.header, a.body
	m.mu.Lock()
	m.creating = nil
	m.mu.Unlock()
	close(c.done)
	c.write(w)
	return nil, true
}

// SameBodySameEvent answers a creation of a body it took before with
// the event it made then, sent at once or not: no race.
func SameBodySameEvent(p *Proxy, w http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
	if r.Method != http.MethodPost || r.URL.Path != "/api/events" {
		return body, false
	}
	m := &p.meet
	m.create.Lock()
	defer m.create.Unlock()
	a := m.byBody[string(body)]
	if a == nil {
		a = p.forward(r, body)
		if m.byBody == nil {
			m.byBody = map[string]*stored{}
		}
		m.byBody[string(body)] = a
	}
	a.write(w)
	return nil, true
}

// MixUpdatesThatMeet stores, for updates of one event that meet, each
// body with the name of the other: two writers each set the columns the
// other did not.
func MixUpdatesThatMeet(p *Proxy, _ http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
	if r.Method != http.MethodPut || !EventPath.MatchString(r.URL.Path) {
		return body, false
	}
	_, met := p.meet.hold(http.MethodPut, r.URL.Path, body)
	for _, h := range met {
		var mine, theirs map[string]any
		if h.kind != http.MethodPut || h.key != r.URL.Path || json.Unmarshal(body, &mine) != nil || json.Unmarshal(h.body, &theirs) != nil {
			continue
		}
		mine["name"] = theirs["name"]
		body, _ = json.Marshal(mine)
		break
	}
	return body, false
}

// refreshToken is the refresh token of a refresh grant, or "".
func refreshToken(r *http.Request, body []byte) string {
	form, _ := url.ParseQuery(string(body))
	if r.URL.Path != "/oauth/token" || form.Get("grant_type") != "refresh_token" {
		return ""
	}
	return form.Get("token")
}

// RefuseTheSecondOfRefreshesThatMeet refuses a refresh that meets an
// earlier one with the same refresh token, which it does not replace.
func RefuseTheSecondOfRefreshesThatMeet(p *Proxy, w http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
	token := refreshToken(r, body)
	if token == "" {
		return body, false
	}
	me, met := p.meet.hold("refresh", token, body)
	for _, h := range met {
		if h.kind == "refresh" && h.key == token && h.n < me.n {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":"invalid_grant","error_description":"the refresh token is in use"}`))
			return nil, true
		}
	}
	return body, false
}

// KillTokensOfRefreshesThatMeet lets the API honour none of the access
// tokens that refreshes of one refresh token which meet gave.
func KillTokensOfRefreshesThatMeet(p *Proxy, w http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
	if _, token, _ := strings.Cut(r.Header.Get("Authorization"), " "); p.meet.isDead(token) {
		r.Header.Del("Authorization")
	}
	token := refreshToken(r, body)
	if token == "" {
		return body, false
	}
	_, met := p.meet.hold("refresh", token, body)
	a := p.forward(r, body)
	var issued struct {
		Access string `json:"access_token"`
	}
	if len(met) > 0 && json.Unmarshal(a.body, &issued) == nil && issued.Access != "" {
		p.meet.dead.Store(issued.Access, true)
	}
	a.write(w)
	return nil, true
}

// isDead reports whether the API no longer honours token.
func (m *meetings) isDead(token string) bool {
	_, dead := m.dead.Load(token)
	return dead
}

// RotateRefreshTokens is a correct target that rotates refresh tokens
// (RFC 6749 §6): each refresh answers a new refresh token and the one it
// used is refused from then on; of two that meet, the second is refused.
func RotateRefreshTokens(p *Proxy, w http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
	token := refreshToken(r, body)
	if token == "" {
		return body, false
	}
	m := &p.meet
	m.rotate.Lock()
	defer m.rotate.Unlock()
	if m.used[token] {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":"invalid_grant","error_description":"the refresh token was replaced"}`))
		return nil, true
	}
	real := token
	if was, ok := m.rotated[token]; ok {
		real = was
	}
	form, _ := url.ParseQuery(string(body))
	form.Set("token", real)
	a := p.forward(r, []byte(form.Encode()))
	var doc map[string]any
	if a.status == http.StatusOK && json.Unmarshal(a.body, &doc) == nil {
		b := make([]byte, 16)
		rand.Read(b)
		next := "rotated-" + hex.EncodeToString(b)
		if m.rotated == nil {
			m.rotated, m.used = map[string]string{}, map[string]bool{}
		}
		m.rotated[next], m.used[token] = real, true
		doc["refresh_token"] = next
		a.body, _ = json.Marshal(doc)
		a.header.Set("Content-Length", strconv.Itoa(len(a.body)))
	}
	a.write(w)
	return nil, true
}

// StoreRefusedUpdatesThatMeet answers another user's update 403, as it
// should, but when it meets the manager's, stores it after it all the
// same: the write was queued before the permission was checked.
func StoreRefusedUpdatesThatMeet(p *Proxy, w http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
	if r.Method != http.MethodPut || !EventPath.MatchString(r.URL.Path) {
		return body, false
	}
	p.mu.Lock()
	creator := p.creator[r.URL.Path]
	p.mu.Unlock()
	_, met := p.meet.hold(http.MethodPut, r.URL.Path, body)
	if creator == "" || r.Header.Get("Authorization") == creator || len(met) == 0 {
		return body, false
	}
	refused := p.forward(r, body)
	time.Sleep(2 * meetHold) // after the manager's
	queued := r.Clone(r.Context())
	queued.Header.Set("Authorization", creator)
	p.forward(queued, body)
	refused.write(w)
	return nil, true
}
