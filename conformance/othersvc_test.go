package conformance

// A second implementation of the Event Service API, written from the
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
// Its choices are further correct alternatives, and its flaws single
// breakages of the specification; both are off unless a test sets them.

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"eventsvc/steps"
)

// otherCreds are the second implementation's client and accounts.
var otherCreds = steps.Credentials{
	ClientID: "other-app", ClientSecret: "other-secret-123",
	Username: "ann@example.org", Password: "ann-pw-123456",
	OtherUsername: "bob@example.org", OtherPass: "bob-pw-123456",
}

// otherEventBody is a body its POST /api/events takes; the suite sets "name".
const otherEventBody = `{"name": "Meetup", "startsAt": "2026-11-25T10:00:00+01:00", "venue": "Room 4"}`

// Token lifetimes (spec: at most 600 s and 3600 s).
const (
	otherAccessTTL  = 300 * time.Second
	otherRefreshTTL = 3600 * time.Second
)

type otherConfig struct {
	creds     steps.Credentials // zero: otherCreds
	choices   otherChoices
	flaws     otherFlaws
	accessTTL time.Duration // zero: otherAccessTTL
}

// otherChoices are further answers the specification leaves open.
type otherChoices struct {
	selfAsAsked bool   // a list page's "self" repeats the address asked for
	listAsArray bool   // list items in a top-level "events" array, no "_embedded"
	bareHTML    bool   // the docs page leaves out the optional <html>, <head>, <body> tags
	latin1Docs  bool   // the docs page is ISO-8859-1
	seed        int    // events already there, managed by nobody the suite knows
	seedManager string // the manager of the seeded events instead
	rotate      bool   // a refresh answers a new refresh token and revokes the one it replaces (RFC 6749 §6)
	utcTimes    bool   // startsAt is kept and shown in UTC, whatever offset it was sent with
}

// otherFlaws break the specification, one at a time.
type otherFlaws struct {
	createLinkForAnonymous bool // "create-new-event" offered without a valid token (API-3)
	nonManager401          bool // a valid token that does not manage the event gets 401 on PUT (AUTH-6)
	sessionCookie          bool // token responses set a cookie that authenticates later requests (SVC-4)
	tokenTypeMAC           bool // token_type "mac" (TOK-5)
	expiresInString        bool // expires_in as a JSON string, "300" (TOK-5)
	docsNeedToken          bool // /docs/index.html refused without a valid token (SVC-6)
	updateLinkForAnyone    bool // "update-event" offered to any caller with a valid token (API-8)
	nextOnLastPage         bool // the last page links "next" to an empty page (API-5)
	basicOpensAPI          bool // client credentials in Basic authenticate /api/** (AUTH-1)
	queryToken             bool // the access token is also read from ?access_token= (SVC-4)
	accessAsRefresh        bool // an access token works as a refresh token (TOK-14)
	refreshAsAccess        bool // a refresh token works as a bearer token on /api/** (TOK-13)
	refreshWithoutClient   bool // the refresh grant issues tokens without client credentials (TOK-1)
	refreshAnyClient       bool // the refresh grant takes any Basic credentials, a wrong secret too (TOK-1, TOK-10)
	nextSamePage           bool // "next" links back to the page it is on (API-5)
	overlappingPages       bool // each page starts with the last event of the page before (API-5)
	tokensNotHonoured      bool // the resource server knows none of the tokens the token endpoint issues (SVC-1)
	linksAsArray           bool // GET /api has "_links" as an array of {rel, href} (SVC-2)
	noCreateLinkForUsers   bool // "create-new-event" offered to nobody (SVC-3, API-4)
	listNeedsToken         bool // GET /api/events needs a valid token (SVC-5)
	oneUserPerClient       bool // a client gets tokens for the first user it logs in, and no other (CLI-1)
	scopeReadOnly          bool // the password grant grants only "read" (CLI-4)
	jsonBodyAccepted       bool // the token endpoint takes a JSON body too (TOK-2)
	passwordNotChecked     bool // any password of a known user gets a token (TOK-3)
	refreshTokenParamOnly  bool // the refresh token is read from "refresh_token" only, not "token" (TOK-4)
	csrfRequired           bool // the token endpoint wants the XSRF cookie of an earlier visit (TOK-6)
	noRefreshToken         bool // the password grant issues no refresh token (TOK-7)
	refreshedTokensDead    bool // access tokens issued by the refresh grant do not work (TOK-8)
	userAsClient           bool // a user's email and password authenticate as a client (TOK-10)
	noEventsLink           bool // GET /api links the list as "event-list", not "events" (API-1)
	creatorNotManager      bool // an event's creator does not become its manager (API-6)
	readNeedsToken         bool // GET of one event needs a valid token (API-7)
	updateIgnored          bool // a manager's PUT is answered 204 and changes nothing (API-9)
	brokenEventsHref       bool // the "events" href of GET /api leads nowhere (API-10)
	openOutsideAPI         bool // requests outside /api, the docs and static files need no token (AUTH-4)
	accessNeverExpires     bool // access tokens work past the expires_in they were issued with (LIM-1)
	usernameNotEmail       bool // the password grant's username is the email's local part, not the email (ACC-1)
	clientCredentials      bool // the client_credentials grant issues tokens (TOK-9)
	unknownGETNeedToken    bool // GET on an unknown path under /api/ needs a token (AUTH-2)
	invalidTokenRefused    bool // an invalid bearer token on GET /api/** is refused (API-2)
	staticNeedToken        bool // the favicon and static locations need a valid token (AUTH-5)
	createsWithoutToken    bool // a POST without a token is refused, but creates the event (SVC-5, AUTH-3)
	anyBearerWrites        bool // on a write under /api/, any bearer token is taken for a user (AUTH-3)
	noClientAuth           bool // the token endpoint issues tokens without client credentials (TOK-1)
	tokensCacheable        bool // token answers carry no Cache-Control: no-store (TOK-15)
	badClient400           bool // failed Basic authentication is answered 400 without a challenge (TOK-16)
	bearerCaseSensitive    bool // only "Bearer" is read, "bearer" is taken for no token (SVC-7)
	basicCaseSensitive     bool // only "Basic" authenticates the client (SVC-7)
	refreshLosesUser       bool // a refreshed access token works, but for nobody the API knows as a manager (TOK-8)
	refreshAsFirstUser     bool // every refresh token yields a token of the first user who logged in (TOK-8)
	refreshSingleUse       bool // a refresh token works once, though the answer gives no new one (TOK-4)
	createLinkDefaultOnly  bool // "create-new-event" only on a page asked for without paging parameters (API-4)
	anonLinksFirstOnly     bool // "profile" and "get-an-event" only on the first page (API-3)
	nextWhenFull           bool // "next" on a last page that is full, to an empty page (API-5)
	prevOnExplicitFirst    bool // "prev" on the first page when it is asked for as p=1 (API-5)
	eventSelfOffByOne      bool // an event's "self" leads to the event after it (API-10)
	profileNowhere         bool // an event's "profile" leads to a page that is not served (API-10)
	postLinksAsArray       bool // the answer to a creation has "_links" as an array (SVC-2)
	putLinksAsArray        bool // an update is answered 200 with the event, "_links" as an array (SVC-2)
	itemsWithoutLinks      bool // the events of a list have no "_links" (SVC-2)
	itemUpdateForAnyone    bool // the events of a list offer "update-event" to every caller (API-8)
	asciiOnly              bool // texts lose what is not ASCII when stored (API-6)
	updateNameOnly         bool // an update changes the name and nothing else (API-9)
	updateDropsManager     bool // an update leaves the event without a manager (API-8)
}

type otherSvc struct {
	otherConfig
	mu       sync.Mutex
	client   string                // the one user of the client (flaw oneUserPerClient)
	access   map[string]otherGrant // by access token
	refresh  map[string]otherGrant // by refresh token
	sessions map[string]string     // session id -> user (flaw sessionCookie)
	events   []*otherEvent         // oldest first
}

type otherGrant struct {
	user    string
	expires time.Time
}

type otherEvent struct {
	id, manager string
	fields      map[string]any // name, startsAt, venue
}

// startOtherSvc serves a fresh second implementation on a loopback port.
func startOtherSvc(t testing.TB, c otherConfig) *httptest.Server {
	if c.creds == (steps.Credentials{}) {
		c.creds = otherCreds
	}
	o := &otherSvc{otherConfig: c, access: map[string]otherGrant{}, refresh: map[string]otherGrant{}, sessions: map[string]string{}}
	for i := range c.choices.seed {
		manager := "carl@example.org"
		if c.choices.seedManager != "" {
			manager = c.choices.seedManager
		}
		o.events = append(o.events, &otherEvent{id: fmt.Sprintf("ev-%04d", i+1), manager: manager,
			fields: map[string]any{"name": fmt.Sprintf("Seeded %d", i+1), "startsAt": "2026-01-01T10:00:00Z"}})
	}
	srv := httptest.NewServer(o)
	t.Cleanup(srv.Close)
	return srv
}

func (o *otherSvc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	docs, static := p == "/docs/index.html", p == "/favicon.ico"
	for _, dir := range []string{"/docs/", "/css/", "/js/", "/images/", "/webjars/"} {
		static = static || strings.HasPrefix(p, dir)
	}
	switch {
	case p == "/oauth/token" && r.Method == http.MethodPost:
		o.token(w, r)
	case p == "/api" || strings.HasPrefix(p, "/api/"):
		o.api(w, r)
	case (docs && o.flaws.docsNeedToken || static && !docs && o.flaws.staticNeedToken) && o.user(r) == "":
		otherError(w, http.StatusForbidden, "a valid bearer token is needed")
	case docs:
		o.docs(w)
	case static || strings.HasPrefix(p, "/oauth/"):
		otherError(w, http.StatusNotFound, "no such file")
	case o.user(r) == "" && !o.flaws.openOutsideAPI:
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
		if g, ok := o.access[token]; ok && (time.Now().Before(g.expires) || o.flaws.accessNeverExpires) && !o.flaws.tokensNotHonoured {
			return g.user
		}
		return ""
	}
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	switch {
	case scheme == "Bearer" || strings.EqualFold(scheme, "Bearer") && !o.flaws.bearerCaseSensitive:
		if g, ok := o.refresh[strings.TrimSpace(token)]; ok && o.flaws.refreshAsAccess && time.Now().Before(g.expires) {
			return g.user
		}
		return valid(strings.TrimSpace(token))
	case o.flaws.basicOpensAPI && o.clientOK(r):
		return o.creds.Username
	case o.flaws.queryToken && r.URL.Query().Has("access_token"):
		return valid(r.URL.Query().Get("access_token"))
	}
	if c, err := r.Cookie("OTHERSESSION"); err == nil && o.flaws.sessionCookie {
		return o.sessions[c.Value]
	}
	return ""
}

func (o *otherSvc) clientOK(r *http.Request) bool {
	id, secret, ok := r.BasicAuth()
	if o.flaws.basicCaseSensitive && !strings.HasPrefix(r.Header.Get("Authorization"), "Basic ") {
		return false
	}
	if ok && o.flaws.userAsClient {
		uid, _ := url.QueryUnescape(id)
		usecret, _ := url.QueryUnescape(secret)
		if uid == o.creds.Username && usecret == o.creds.Password {
			return true
		}
	}
	return ok && id == o.creds.ClientID && subtle.ConstantTimeCompare([]byte(secret), []byte(o.creds.ClientSecret)) == 1
}

// ---- token endpoint

func (o *otherSvc) token(w http.ResponseWriter, r *http.Request) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	_, _, basic := r.BasicAuth()
	refreshing := r.FormValue("grant_type") == "refresh_token"
	client := o.clientOK(r) ||
		o.flaws.noClientAuth && r.Header.Get("Authorization") == "" ||
		o.flaws.refreshWithoutClient && refreshing && r.Header.Get("Authorization") == "" ||
		o.flaws.refreshAnyClient && refreshing && basic
	f := r.PostForm
	if _, err := r.Cookie("XSRF-TOKEN"); err != nil && o.flaws.csrfRequired {
		otherError(w, http.StatusForbidden, "no CSRF token")
		return
	}
	switch {
	case !client && basic && !o.flaws.badClient400:
		w.Header().Set("WWW-Authenticate", `Basic realm="other"`)
		otherError(w, http.StatusUnauthorized, "unknown client")
		return
	case !client:
		otherError(w, http.StatusBadRequest, "unknown client")
		return
	case mt == "application/json" && o.flaws.jsonBodyAccepted:
		var body map[string]string
		if json.NewDecoder(r.Body).Decode(&body) != nil {
			otherError(w, http.StatusBadRequest, "bad JSON")
			return
		}
		f = url.Values{}
		for k, v := range body {
			f.Set(k, v)
		}
	case mt != "application/x-www-form-urlencoded" || r.ParseForm() != nil:
		otherError(w, http.StatusBadRequest, "send a form")
		return
	default:
		f = r.PostForm
	}
	var user, refresh string
	switch grant := f.Get("grant_type"); {
	case grant == "password":
		username := f.Get("username")
		if o.flaws.usernameNotEmail {
			username += "@" + strings.SplitN(o.creds.Username, "@", 2)[1]
		}
		want, known := map[string]string{o.creds.Username: o.creds.Password, o.creds.OtherUsername: o.creds.OtherPass}[username]
		if !known || subtle.ConstantTimeCompare([]byte(f.Get("password")), []byte(want)) != 1 && !o.flaws.passwordNotChecked {
			otherError(w, http.StatusBadRequest, "wrong username or password")
			return
		}
		user = username
		o.mu.Lock()
		if o.client == "" {
			o.client = user
		}
		taken := o.client != user && o.flaws.oneUserPerClient
		o.mu.Unlock()
		if taken {
			otherError(w, http.StatusBadRequest, "this client belongs to another user")
			return
		}
	case grant == "refresh_token" && (!f.Has("refresh_token") || o.flaws.refreshTokenParamOnly):
		param := "token"
		if o.flaws.refreshTokenParamOnly {
			param = "refresh_token"
		}
		o.mu.Lock()
		g, ok := o.refresh[f.Get(param)]
		if !ok && o.flaws.accessAsRefresh {
			g, ok = o.access[f.Get("token")]
		}
		o.mu.Unlock()
		if !ok || !time.Now().Before(g.expires) {
			otherError(w, http.StatusBadRequest, "unknown or expired refresh token")
			return
		}
		user, refresh = g.user, f.Get(param)
		switch {
		case o.flaws.refreshLosesUser:
			user = "refreshed:" + user
		case o.flaws.refreshAsFirstUser:
			user = o.creds.Username
		}
		if o.flaws.refreshSingleUse {
			o.mu.Lock()
			delete(o.refresh, refresh)
			o.mu.Unlock()
		}
	case grant == "client_credentials" && o.flaws.clientCredentials:
		user = o.creds.Username
	default:
		otherError(w, http.StatusBadRequest, `grant types: "password", or "refresh_token" with "token"`)
		return
	}
	o.issue(w, user, refresh)
}

// issue answers with a new access token, and a new refresh token unless
// refresh is the one the caller used.
func (o *otherSvc) issue(w http.ResponseWriter, user, refresh string) {
	now, access := time.Now(), otherUUID()
	ttl := o.accessTTL
	if ttl == 0 {
		ttl = otherAccessTTL
	}
	o.mu.Lock()
	if refresh == "" || !o.flaws.refreshedTokensDead {
		o.access[access] = otherGrant{user, now.Add(ttl)}
	}
	refreshed := refresh != ""
	if refreshed && o.choices.rotate {
		delete(o.refresh, refresh)
		refresh = ""
	}
	if refresh == "" {
		refresh = otherUUID()
		o.refresh[refresh] = otherGrant{user, now.Add(otherRefreshTTL)}
	}
	if o.flaws.sessionCookie {
		id := otherUUID()
		o.sessions[id] = user
		http.SetCookie(w, &http.Cookie{Name: "OTHERSESSION", Value: id, Path: "/", HttpOnly: true})
	}
	o.mu.Unlock()
	tokenType := "bearer"
	if o.flaws.tokenTypeMAC {
		tokenType = "mac"
	}
	body := map[string]any{
		"access_token": access, "token_type": tokenType, "refresh_token": refresh,
		"expires_in": int(ttl / time.Second), "scope": "read write",
	}
	if o.flaws.scopeReadOnly {
		body["scope"] = "read"
	}
	if o.flaws.expiresInString {
		body["expires_in"] = strconv.Itoa(int(ttl / time.Second))
	}
	if o.flaws.noRefreshToken && !refreshed {
		delete(body, "refresh_token")
	}
	if !o.flaws.tokensCacheable {
		w.Header().Set("Cache-Control", "no-store")
	}
	otherJSON(w, http.StatusOK, body)
}

func otherUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// ---- documentation

func (o *otherSvc) docs(w http.ResponseWriter) {
	page := `<!DOCTYPE html><html><head><title>Events API</title></head><body>
<h1>Events API</h1><h2 id="list">Listing</h2><p>GET /api/events?p=1&amp;per_page=2</p>
<h2 id="event">An event</h2><p>{"name", "startsAt", "venue"}</p></body></html>`
	if o.choices.bareHTML { // HTML5: html, head and body tags may be left out
		page = `<!DOCTYPE html><title>Events API</title><h1>Events API</h1><p id="list">GET /api/events?p=1&amp;per_page=2`
	}
	if o.choices.latin1Docs {
		w.Header().Set("Content-Type", "text/html; charset=ISO-8859-1")
	} else {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	_, _ = io.WriteString(w, page)
}

// ---- resources

func (o *otherSvc) api(w http.ResponseWriter, r *http.Request) {
	user, rest := o.user(r), strings.TrimPrefix(r.URL.Path, "/api")
	if o.flaws.anyBearerWrites && user == "" && r.Method != http.MethodGet && strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
		user = "whoever@example.org"
	}
	if o.flaws.createsWithoutToken && user == "" && r.Method == http.MethodPost && rest == "/events" {
		o.create(httptest.NewRecorder(), r, "nobody") // and then refuse below
	}
	id, isEvent := strings.CutPrefix(rest, "/events/")
	isEvent = isEvent && id != "" && !strings.Contains(id, "/")
	switch get := r.Method == http.MethodGet; {
	case !get && user == "",
		o.flaws.invalidTokenRefused && user == "" && strings.HasPrefix(r.Header.Get("Authorization"), "Bearer "):
		otherError(w, http.StatusForbidden, "a valid bearer token is needed")
	case get && rest == "":
		o.root(w)
	case get && user == "" && (rest == "/events" && o.flaws.listNeedsToken || isEvent && o.flaws.readNeedsToken):
		otherError(w, http.StatusForbidden, "a valid bearer token is needed")
	case get && rest == "/events":
		o.list(w, r, user)
	case r.Method == http.MethodPost && rest == "/events":
		o.create(w, r, user)
	case get && isEvent:
		o.read(w, id, user)
	case r.Method == http.MethodPut && isEvent:
		o.update(w, r, id, user)
	case get && o.flaws.unknownGETNeedToken && user == "":
		otherError(w, http.StatusForbidden, "a valid bearer token is needed")
	case get:
		otherError(w, http.StatusNotFound, "no such resource")
	default:
		otherError(w, http.StatusMethodNotAllowed, "not allowed here")
	}
}

func (o *otherSvc) root(w http.ResponseWriter) {
	events, rel := "api/events", "events"
	if o.flaws.brokenEventsHref {
		events = "api/v1/events"
	}
	if o.flaws.noEventsLink {
		rel = "event-list"
	}
	links := map[string]any{"self": otherLink("api"), rel: otherLink(events)}
	if o.flaws.linksAsArray {
		otherJSON(w, http.StatusOK, map[string]any{"_links": []any{
			map[string]any{"rel": "self", "href": "api"}, map[string]any{"rel": rel, "href": events},
		}})
		return
	}
	otherJSON(w, http.StatusOK, map[string]any{"_links": links})
}

func (o *otherSvc) list(w http.ResponseWriter, r *http.Request, user string) {
	size := otherIntParam(r.URL.Query().Get("per_page"), 2, 50)
	p := otherIntParam(r.URL.Query().Get("p"), 1, 1<<20)
	o.mu.Lock()
	defer o.mu.Unlock()
	total := len(o.events)
	items := []any{}
	start := (p - 1) * size
	if o.flaws.overlappingPages {
		start = max(0, start-(p-1))
	}
	for i := start; i < min(start+size, total); i++ {
		e := o.events[total-1-i] // newest first
		links := map[string]any{"self": otherLink("events/" + e.id)}
		if o.flaws.itemUpdateForAnyone {
			links["update-event"] = otherLink("events/" + e.id)
		}
		doc := e.doc(links)
		if o.flaws.itemsWithoutLinks {
			delete(doc, "_links")
		}
		items = append(items, doc)
	}
	at := func(n int) map[string]any { return otherLink(fmt.Sprintf("events?p=%d&per_page=%d", n, size)) }
	links := map[string]any{
		"self":         at(p),
		"profile":      otherLink("/docs/index.html#list"),
		"get-an-event": map[string]any{"href": "events/{id}", "templated": true},
	}
	if o.flaws.anonLinksFirstOnly && p > 1 {
		delete(links, "profile")
		delete(links, "get-an-event")
	}
	if o.choices.selfAsAsked {
		links["self"] = otherLink(strings.TrimSuffix("events?"+r.URL.RawQuery, "?"))
	}
	switch {
	case start+size < total && o.flaws.nextSamePage:
		links["next"] = at(p)
	case start+size < total || (o.flaws.nextOnLastPage && start < total) || (o.flaws.nextWhenFull && start+size == total):
		links["next"] = at(p + 1)
	}
	switch {
	case p > 1:
		links["prev"] = at(min(p-1, max(1, (total+size-1)/size)))
	case o.flaws.prevOnExplicitFirst && r.URL.Query().Has("p"):
		links["prev"] = at(1)
	}
	if (user != "" || o.flaws.createLinkForAnonymous) && !o.flaws.noCreateLinkForUsers && (r.URL.RawQuery == "" || !o.flaws.createLinkDefaultOnly) {
		links["create-new-event"] = otherLink("events")
	}
	body := map[string]any{"_embedded": map[string]any{"events": items}, "_links": links}
	if o.choices.listAsArray {
		body = map[string]any{"events": items, "_links": links}
	}
	otherJSON(w, http.StatusOK, body)
}

// otherIntParam reads a whole number from 1 to most; anything else is def.
func otherIntParam(s string, def, most int) int {
	if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= most {
		return n
	}
	return def
}

func (o *otherSvc) create(w http.ResponseWriter, r *http.Request, user string) {
	fields, err := o.readEvent(r)
	if err != nil {
		otherError(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.flaws.creatorNotManager {
		user = "nobody@example.org"
	}
	e := &otherEvent{id: fmt.Sprintf("ev-%04d", len(o.events)+1), manager: user, fields: fields}
	o.events = append(o.events, e)
	doc := e.doc(map[string]any{"self": otherLink("events/" + e.id)})
	if o.flaws.postLinksAsArray {
		doc["_links"] = []any{map[string]any{"rel": "self", "href": "events/" + e.id}}
	}
	otherJSON(w, http.StatusOK, doc)
}

// find returns the event with id; the caller holds o.mu.
func (o *otherSvc) find(id string) *otherEvent {
	for _, e := range o.events {
		if e.id == id {
			return e
		}
	}
	return nil
}

func (o *otherSvc) read(w http.ResponseWriter, id, user string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	e := o.find(id)
	if e == nil {
		otherError(w, http.StatusGone, "no such event")
		return
	}
	links := map[string]any{"self": otherLink(e.id), "profile": otherLink("/docs/index.html#event")}
	if o.flaws.eventSelfOffByOne {
		n, _ := strconv.Atoi(strings.TrimPrefix(e.id, "ev-"))
		links["self"] = otherLink(fmt.Sprintf("ev-%04d", n+1))
	}
	if o.flaws.profileNowhere {
		links["profile"] = otherLink("/docs/event.html")
	}
	if user != "" && (user == e.manager || o.flaws.updateLinkForAnyone) {
		links["update-event"] = otherLink(e.id)
	}
	otherJSON(w, http.StatusOK, e.doc(links))
}

func (o *otherSvc) update(w http.ResponseWriter, r *http.Request, id, user string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	e := o.find(id)
	switch {
	case e == nil:
		otherError(w, http.StatusGone, "no such event")
	case user != e.manager && o.flaws.nonManager401:
		w.Header().Set("WWW-Authenticate", "Bearer")
		otherError(w, http.StatusUnauthorized, "not your event")
	case user != e.manager:
		otherError(w, http.StatusForbidden, "only the event's manager may change it")
	default:
		fields, err := o.readEvent(r)
		if err != nil {
			otherError(w, http.StatusUnprocessableEntity, err.Error())
			return
		}
		switch {
		case o.flaws.updateIgnored:
		case o.flaws.updateNameOnly:
			e.fields["name"] = fields["name"]
		default:
			e.fields = fields
		}
		if o.flaws.updateDropsManager {
			e.manager = ""
		}
		if o.flaws.putLinksAsArray {
			doc := e.doc(nil)
			doc["_links"] = []any{map[string]any{"rel": "self", "href": e.id}}
			otherJSON(w, http.StatusOK, doc)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

// readEvent reads {"name", "startsAt", "venue"}, ignoring other fields.
func (o *otherSvc) readEvent(r *http.Request) (map[string]any, error) {
	var in struct {
		Name, StartsAt, Venue string
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&in); err != nil {
		return nil, fmt.Errorf("the body is not an event: %v", err)
	}
	if strings.TrimSpace(in.Name) == "" {
		return nil, fmt.Errorf("name is required")
	}
	if _, err := time.Parse(time.RFC3339, in.StartsAt); err != nil {
		return nil, fmt.Errorf("startsAt must be an RFC 3339 time with an offset")
	}
	if o.flaws.asciiOnly {
		in.Name, in.Venue = asciiOnly(in.Name), asciiOnly(in.Venue)
	}
	if o.choices.utcTimes {
		t, _ := time.Parse(time.RFC3339, in.StartsAt)
		in.StartsAt = t.UTC().Format(time.RFC3339)
	}
	out := map[string]any{"name": in.Name, "startsAt": in.StartsAt}
	if in.Venue != "" {
		out["venue"] = in.Venue
	}
	return out, nil
}

// asciiOnly is s with what is not ASCII replaced by "?", as a store in
// the wrong character set keeps it.
func asciiOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if r > 127 {
			return '?'
		}
		return r
	}, s)
}

// doc renders the event with links; the caller holds o.mu.
func (e *otherEvent) doc(links map[string]any) map[string]any {
	out := map[string]any{"id": e.id, "_links": links}
	for k, v := range e.fields {
		out[k] = v
	}
	return out
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
