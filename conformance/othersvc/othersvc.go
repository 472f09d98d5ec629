// Package othersvc is the self-test fixture of the conformance suite: a
// second implementation of the Event Service API, written from the
// specification alone (shared/spec/event-service-api.md) in plain net/http,
// sharing no code with the reference server. Where the specification is
// silent it chooses differently from the reference server
// (docs/reference-choices.md):
//
//   - Credentials: client "other-app", users "ann@example.org" and
//     "bob@example.org", not the demo ones. Basic credentials are compared
//     as sent, not form-decoded (reference: RFC 6749 §2.3.1 decoding).
//   - Token endpoint: every refusal is 400 {"message": ...}, but for failed
//     Basic authentication, 401 {"message": ...} with a Basic challenge, as
//     RFC 6749 §5.2 requires (reference: RFC 6749 §5.2 errors, 401
//     invalid_client); other methods 404 (reference: 405); Cache-Control:
//     no-store on tokens (RFC 6749 §5.1), no Pragma; the refresh token only in "token"
//     ("refresh_token" is refused); "scope" is ignored (reference: a subset,
//     or invalid_scope); refreshing leaves the previous access token valid
//     (reference: revokes it); tokens are UUIDs; access tokens live 300 s
//     (reference: 600). No /oauth/authorize: 404 (reference: 400).
//   - Every href is a relative reference: "api/events", "events?p=2&per_page=2",
//     "ev-0001", "/docs/index.html#list" (reference: absolute URLs).
//   - GET /api links "self" and "events" (reference: "events", "profile").
//   - GET /api/events pages by "p" (from 1) and "per_page" (default 2); bad
//     values fall back to the defaults (reference: "page" from 0, "size"
//     default 20, 400 on bad values); newest first; items in
//     "_embedded.events", present when empty; no first/last, no page
//     metadata, no sorting (reference: all three).
//   - Events are {"id": "ev-0001", "name", "startsAt" (RFC 3339), "venue"},
//     application/json; the manager is not shown; unknown fields are
//     ignored; a bad body is 422 whatever its Content-Type (reference:
//     integer ids, another shape, application/hal+json, 415 and 400).
//   - POST /api/events: 200, the event with "self" only, no Location
//     (reference: 201, Location, four links). GET of one event: "self",
//     "profile", and "update-event" for its manager (reference: also
//     "query-events"). Unknown event: 410 (reference: 404). PUT: 204 without
//     a body (reference: 200 with the event).
//   - A missing or invalid token where one is needed: 403, no challenge
//     (reference: 401 with WWW-Authenticate: Bearer).
//   - The favicon, /css/**, /js/**, /images/**, /webjars/** and /docs/**
//     but its index are 404 (reference: it serves files there).
//
// Its choices are further correct alternatives (Variants), and its flaws
// single breakages of the specification (the suite's tests, and those
// written as bug reports: BugReports); both are off unless a test sets
// them (Choices, Flaws). Its token endpoint, resources, list, store,
// caches and paths are in files of their own. The suite's tests run it
// (package suite: what catches each breakage, make measure); nothing
// of the suite itself imports it.

package othersvc

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"eventsvc/conformance/target"
)

// Creds are the second implementation's client and accounts.
var Creds = target.Credentials{
	ClientID: "other-app", ClientSecret: "other-secret-123",
	Username: "ann@example.org", Password: "ann-pw-123456",
	OtherUsername: "bob@example.org", OtherPass: "bob-pw-123456",
}

// EventBody is a body its POST /api/events takes; the suite sets "name".
const EventBody = `{"name": "Meetup", "startsAt": "2026-11-25T10:00:00+01:00", "venue": "Room 4"}`

// Token lifetimes (spec: at most 600 s and 3600 s).
const (
	otherAccessTTL  = 300 * time.Second
	otherRefreshTTL = 3600 * time.Second
)

type Config struct {
	Creds     target.Credentials // zero: Creds
	Choices   Choices
	Flaws     Flaws
	AccessTTL time.Duration // zero: otherAccessTTL
	Clock     *Clock        // nil: the real time
	// EventBody is the body the suite's runs against it create events
	// with; "" is EventBody. One with "seats", a whole number, is taken.
	EventBody string
}

// SeatsBody is an event body with "seats", a whole number.
const SeatsBody = `{"name": "Meetup", "startsAt": "2026-11-25T10:00:00+01:00", "venue": "Room 4", "seats": 40}`

// Body is c's EventBody.
func (c Config) Body() string {
	if c.EventBody != "" {
		return c.EventBody
	}
	return EventBody
}

type otherSvc struct {
	Config
	mu       sync.Mutex
	client   string                // the one user of the client (flaw oneUserPerClient)
	access   map[string]otherGrant // by access token
	refresh  map[string]otherGrant // by refresh token
	sessions map[string]string     // session id -> user (flaw sessionCookie)
	events   []*otherEvent         // oldest first
	cache    otherCache
	// The user being logged in, and the creator of the event being
	// stored (flaws tokenSwapRace, managerSwapRace).
	loggingIn, creating string
}

type otherGrant struct {
	user    string
	expires time.Time
}

type otherEvent struct {
	id, manager string
	fields      map[string]any // name, startsAt, venue
}

// Start serves a fresh second implementation on a loopback port.
func Start(t testing.TB, c Config) *httptest.Server {
	if c.Creds == (target.Credentials{}) {
		c.Creds = Creds
	}
	o := &otherSvc{Config: c, access: map[string]otherGrant{}, refresh: map[string]otherGrant{}, sessions: map[string]string{},
		cache: otherCache{entries: map[string]otherCached{}}}
	for i := range c.Choices.Seed {
		manager := "carl@example.org"
		if c.Choices.SeedManager != "" {
			manager = c.Choices.SeedManager
		}
		o.events = append(o.events, &otherEvent{id: fmt.Sprintf("ev-%04d", i+1), manager: manager,
			fields: map[string]any{"name": fmt.Sprintf("Seeded %d", i+1), "startsAt": "2026-01-01T10:00:00Z"}})
	}
	srv := httptest.NewServer(o)
	t.Cleanup(srv.Close)
	return srv
}

func (o *otherSvc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if o.Choices.RefuseOddPaths && oddPath(r.URL.EscapedPath()) {
		otherError(w, http.StatusBadRequest, "the path is not written the one way this server reads it")
		return
	}
	p := o.route(r)
	docs, static := p == "/docs/index.html", p == "/favicon.ico"
	for _, dir := range []string{"/docs/", "/css/", "/js/", "/images/", "/webjars/"} {
		static = static || strings.HasPrefix(p, dir)
	}
	switch {
	case p == "/oauth/token" && r.Method == http.MethodPost:
		o.token(w, r)
	case p == "/api" || strings.HasPrefix(p, "/api/"):
		o.api(w, r, p)
	case (docs && o.Flaws.DocsNeedToken || static && !docs && o.Flaws.StaticNeedToken) && o.user(r) == "":
		otherError(w, http.StatusForbidden, "a valid bearer token is needed")
	case docs:
		o.docs(w)
	case static || strings.HasPrefix(p, "/oauth/"):
		otherError(w, http.StatusNotFound, "no such file")
	case o.user(r) == "" && !o.Flaws.OpenOutsideAPI:
		otherError(w, http.StatusForbidden, "a valid bearer token is needed")
	default:
		otherError(w, http.StatusNotFound, "not here")
	}
}

// user returns the account of the request's valid access token, or "".
func (o *otherSvc) user(r *http.Request) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	valid := func(token string) string {
		if o.Flaws.TokenFolded {
			for k := range o.access {
				if strings.EqualFold(k, token) {
					token = k
				}
			}
		}
		if g, ok := o.access[token]; ok && (o.Clock.Now().Before(g.expires) || o.Flaws.AccessNeverExpires) && !o.Flaws.TokensNotHonoured {
			return g.user
		}
		return ""
	}
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	switch {
	case scheme == "Bearer" || strings.EqualFold(scheme, "Bearer") && !o.Flaws.BearerCaseSensitive:
		if g, ok := o.refresh[strings.TrimSpace(token)]; ok && o.Flaws.RefreshAsAccess && o.Clock.Now().Before(g.expires) {
			return g.user
		}
		return valid(strings.TrimSpace(token))
	case o.Flaws.BasicOpensAPI && o.clientOK(r):
		return o.Creds.Username
	case o.Flaws.QueryToken && r.URL.Query().Has("access_token"),
		o.Flaws.QueryTokenOnUpdate && r.Method == http.MethodPut && r.URL.Query().Has("access_token"):
		return valid(r.URL.Query().Get("access_token"))
	case o.Flaws.FormToken && r.PostFormValue("access_token") != "":
		return valid(r.PostFormValue("access_token"))
	}
	if c, err := r.Cookie("access_token"); err == nil && o.Flaws.CookieToken {
		return valid(c.Value)
	}
	if c, err := r.Cookie("OTHERSESSION"); err == nil && o.Flaws.SessionCookie {
		return o.sessions[c.Value]
	}
	return ""
}

func otherLink(href string) map[string]any { return map[string]any{"href": href} }

func otherError(w http.ResponseWriter, status int, msg string) {
	otherJSON(w, status, map[string]any{"message": msg})
}

func otherJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
