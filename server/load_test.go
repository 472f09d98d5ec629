package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"eventsvc/server/clock"
	"eventsvc/server/config"
	"eventsvc/server/event"
	"eventsvc/server/oauth"
	"eventsvc/server/secret"
	"eventsvc/server/servertest"
)

// The size of the load of TestConcurrentLoadLosesNothing: a few hundred
// requests in all, quick under the race detector on two cores.
const (
	loadWorkers      = 8
	loadOpsPerWorker = 45
	// loadBudget bounds the load phase in time: a worker starts no new
	// operation after it (the counts then come out lower, and the log says so).
	loadBudget = 15 * time.Second
	// loadCost is the bcrypt cost of the load test's credentials.
	loadCost = 4
	// loadMaxErrors caps the failures reported one by one.
	loadMaxErrors = 25
)

const (
	loadClientID     = "loadApp"
	loadClientSecret = "load-secret"
)

// loadUsers are the accounts of the load test; worker w acts as
// loadUsers[w%len(loadUsers)], so that several workers share an account
// and update the same events at once.
var loadUsers = []struct{ email, password string }{
	{"alice@load.example", "alice-pw"},
	{"bob@load.example", "bob-pw"},
	{"carol@load.example", "carol-pw"},
}

// Operation kinds, as counted in the status summary.
const (
	loadOpGrant       = "grant (password)"
	loadOpRefresh     = "refresh"
	loadOpTokenCheck  = "token check (list)"
	loadOpCreate      = "create"
	loadOpUpdateOwn   = "update by manager"
	loadOpUpdateOther = "update by non-manager"
	loadOpGet         = "get"
	loadOpList        = "list page"
	loadOpFinalList   = "final list walk"
	loadOpFinalGet    = "final get"
)

// What a value k was sent as.
const (
	loadIntentCreate = iota + 1
	loadIntentManagerUpdate
	loadIntentOtherUpdate
)

var loadIntentNames = map[int]string{
	loadIntentCreate:        "creation body",
	loadIntentManagerUpdate: "manager's update",
	loadIntentOtherUpdate:   "non-manager's refused update",
}

// loadBody is a create or update body. Every field is derived from one
// value k (loadBodyFor), so that an event showing fields of two bodies is
// detected.
type loadBody struct {
	Name                    string  `json:"name"`
	Description             string  `json:"description"`
	BeginEnrollmentDateTime string  `json:"beginEnrollmentDateTime"`
	CloseEnrollmentDateTime string  `json:"closeEnrollmentDateTime"`
	BeginEventDateTime      string  `json:"beginEventDateTime"`
	EndEventDateTime        string  `json:"endEventDateTime"`
	Location                *string `json:"location,omitempty"`
	BasePrice               int     `json:"basePrice"`
	MaxPrice                int     `json:"maxPrice"`
	LimitOfEnrollment       int     `json:"limitOfEnrollment"`
}

const loadNamePrefix = "load event k="

func loadBodyFor(k int) loadBody {
	at := time.Date(2030, 1, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(k) * time.Minute)
	b := loadBody{
		Name:                    loadNamePrefix + strconv.Itoa(k),
		Description:             fmt.Sprintf("written with value %d", k),
		BeginEnrollmentDateTime: at.Format(event.DateTimeLayout),
		CloseEnrollmentDateTime: at.Add(time.Hour).Format(event.DateTimeLayout),
		BeginEventDateTime:      at.Add(2 * time.Hour).Format(event.DateTimeLayout),
		EndEventDateTime:        at.Add(3 * time.Hour).Format(event.DateTimeLayout),
		BasePrice:               k % 1000,
		MaxPrice:                k%1000 + 1000,
		LimitOfEnrollment:       k,
	}
	if k%3 == 0 {
		b.BasePrice, b.MaxPrice = 0, 0
	}
	if k%2 == 0 {
		loc := fmt.Sprintf("room %d", k)
		b.Location = &loc
	}
	return b
}

// loadView is an event as the API shows it.
type loadView struct {
	ID int64 `json:"id"`
	loadBody
	Offline     bool   `json:"offline"`
	Free        bool   `json:"free"`
	EventStatus string `json:"eventStatus"`
	Manager     struct {
		ID int64 `json:"id"`
	} `json:"manager"`
	Links map[string]struct {
		Href string `json:"href"`
	} `json:"_links"`
}

type loadPage struct {
	Embedded struct {
		EventList []loadView `json:"eventList"`
	} `json:"_embedded"`
	Links map[string]struct {
		Href string `json:"href"`
	} `json:"_links"`
	Page struct {
		Size          int `json:"size"`
		TotalElements int `json:"totalElements"`
		TotalPages    int `json:"totalPages"`
		Number        int `json:"number"`
	} `json:"page"`
}

type loadToken struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"`
}

// loadWrite is one write the server accepted, with the moments (on the
// test's logical clock) its request was sent and its answer received.
type loadWrite struct {
	k          int
	sent, recv uint64
}

// loadRecord is what the test knows of one created event.
type loadRecord struct {
	id       int64
	user     int
	create   loadWrite
	accepted []loadWrite // updates answered 200
	refused  []int       // values of updates answered 403
}

// loadIntent is what a value k was sent as, registered before sending.
type loadIntent struct {
	kind    int
	user    int
	eventID int64 // 0 for a creation not answered yet
}

// loadRead is one event as a read showed it.
type loadRead struct {
	id         int64
	k          int
	sent, recv uint64
	where      string
}

type loadState struct {
	t       *testing.T
	base    string
	client  *http.Client
	ctx     context.Context
	cancel  context.CancelFunc
	seq     atomic.Uint64 // logical clock: one tick per request sent or answered
	nextK   atomic.Int64
	errs    atomic.Int64
	abortMu sync.Once
	aborted atomic.Bool
	budget  atomic.Bool

	managerIDs []int64 // account id of each loadUsers entry

	mu       sync.Mutex
	statuses map[string]map[int]int
	intents  map[int]loadIntent
	records  map[int64]*loadRecord
	byUser   [][]int64 // created event ids per user, in creation order
	reads    []loadRead
	grants   int
	refreshs int
}

func (st *loadState) errorf(format string, args ...any) {
	st.t.Helper()
	switch n := st.errs.Add(1); {
	case n <= loadMaxErrors:
		st.t.Errorf(format, args...)
	case n == loadMaxErrors+1:
		st.t.Errorf("more failures left out")
	}
}

// abort stops the load on a transport error; later errors caused by the
// cancellation are not reported.
func (st *loadState) abort(format string, args ...any) {
	st.t.Helper()
	st.abortMu.Do(func() {
		st.aborted.Store(true)
		st.t.Errorf("transport error, load stopped: "+format, args...)
		st.cancel()
	})
}

func (st *loadState) tick() uint64 { return st.seq.Add(1) }

type loadResponse struct {
	status     int
	header     http.Header
	body       []byte
	sent, recv uint64
}

// do sends one request and counts its status. ok is false after a
// transport error (the load is then stopped).
func (st *loadState) do(ctx context.Context, kind, method, path, bearer, contentType string, body []byte, basic bool) (r loadResponse, ok bool) {
	st.t.Helper()
	var rd io.Reader = http.NoBody
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, st.base+path, rd)
	if err != nil {
		st.abort("%s: build %s %s: %v", kind, method, path, err)
		return r, false
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	if basic {
		req.SetBasicAuth(loadClientID, loadClientSecret)
	}
	r.sent = st.tick()
	resp, err := st.client.Do(req)
	if err != nil {
		if ctx.Err() == nil || !st.aborted.Load() {
			st.abort("%s: %s %s: %v", kind, method, path, err)
		}
		return r, false
	}
	defer resp.Body.Close()
	r.body, err = io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	r.recv = st.tick()
	if err != nil {
		if ctx.Err() == nil || !st.aborted.Load() {
			st.abort("%s: %s %s: reading the answer (status %d): %v", kind, method, path, resp.StatusCode, err)
		}
		return r, false
	}
	r.status, r.header = resp.StatusCode, resp.Header
	st.mu.Lock()
	if st.statuses[kind] == nil {
		st.statuses[kind] = map[int]int{}
	}
	st.statuses[kind][r.status]++
	st.mu.Unlock()
	if r.status >= 500 {
		st.errorf("%s: %s %s answered %d: %s", kind, method, path, r.status, loadSnippet(r.body))
	}
	return r, true
}

// expect reports an unexpected status.
func (st *loadState) expect(kind, method, path string, r loadResponse, want int) bool {
	st.t.Helper()
	if r.status == want {
		return true
	}
	if r.status < 500 { // a 5xx is reported by do
		st.errorf("%s: %s %s answered %d, want %d: %s", kind, method, path, r.status, want, loadSnippet(r.body))
	}
	return false
}

func loadSnippet(b []byte) string {
	const n = 300
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// checkContent reports how v differs from the body of value k, the one its
// name gives; "" when v is exactly that body.
func loadCheckContent(v loadView) (k int, diff string) {
	k, err := strconv.Atoi(strings.TrimPrefix(v.Name, loadNamePrefix))
	if err != nil || !strings.HasPrefix(v.Name, loadNamePrefix) {
		return 0, fmt.Sprintf("name %q is none the test sent", v.Name)
	}
	want := loadBodyFor(k)
	var d []string
	field := func(name string, got, want any) {
		if got != want {
			d = append(d, fmt.Sprintf("%s = %v, want %v", name, got, want))
		}
	}
	field("description", v.Description, want.Description)
	field("beginEnrollmentDateTime", v.BeginEnrollmentDateTime, want.BeginEnrollmentDateTime)
	field("closeEnrollmentDateTime", v.CloseEnrollmentDateTime, want.CloseEnrollmentDateTime)
	field("beginEventDateTime", v.BeginEventDateTime, want.BeginEventDateTime)
	field("endEventDateTime", v.EndEventDateTime, want.EndEventDateTime)
	loc := func(p *string) string {
		if p == nil {
			return "<null>"
		}
		return *p
	}
	field("location", loc(v.Location), loc(want.Location))
	field("basePrice", v.BasePrice, want.BasePrice)
	field("maxPrice", v.MaxPrice, want.MaxPrice)
	field("limitOfEnrollment", v.LimitOfEnrollment, want.LimitOfEnrollment)
	field("offline", v.Offline, want.Location != nil)
	field("free", v.Free, want.BasePrice == 0 && want.MaxPrice == 0)
	field("eventStatus", v.EventStatus, string(event.Draft))
	if d == nil {
		return k, ""
	}
	return k, fmt.Sprintf("a mix of bodies (name says k=%d): %s", k, strings.Join(d, "; "))
}

// checkRead checks an event as a read showed it (during the load or after):
// exactly one body, sent for this event by its manager, never a refused
// one. It records the read for the ordering check at the end.
func (st *loadState) checkRead(v loadView, where string, r loadResponse) {
	st.t.Helper()
	k, diff := loadCheckContent(v)
	if diff != "" {
		st.errorf("%s: event %d: %s", where, v.ID, diff)
		return
	}
	st.mu.Lock()
	in, known := st.intents[k]
	st.reads = append(st.reads, loadRead{id: v.ID, k: k, sent: r.sent, recv: r.recv, where: where})
	st.mu.Unlock()
	switch {
	case !known:
		st.errorf("%s: event %d shows value k=%d, which the test never sent", where, v.ID, k)
	case in.kind == loadIntentOtherUpdate:
		st.errorf("%s: event %d shows k=%d, the body of an update by a non-manager (%s) that was refused with 403 (or is being refused)",
			where, v.ID, k, loadUsers[in.user].email)
	case in.eventID != 0 && in.eventID != v.ID:
		st.errorf("%s: event %d shows k=%d, a body sent for event %d", where, v.ID, k, in.eventID)
	case v.Manager.ID != st.managerIDs[in.user]:
		st.errorf("%s: event %d: manager.id = %d, want %d (%s, who sent k=%d)", where, v.ID, v.Manager.ID, st.managerIDs[in.user], loadUsers[in.user].email, k)
	}
}

// register allocates a fresh value k and records what it is sent as.
func (st *loadState) register(kind, user int, id int64) int {
	k := int(st.nextK.Add(1))
	st.mu.Lock()
	st.intents[k] = loadIntent{kind: kind, user: user, eventID: id}
	st.mu.Unlock()
	return k
}

type loadWorker struct {
	st      *loadState
	n, user int
	rng     *rand.Rand
	access  string
	refresh string
}

func (w *loadWorker) name() string {
	return fmt.Sprintf("worker %d (%s)", w.n, loadUsers[w.user].email)
}

func loadForm(v url.Values) []byte { return []byte(v.Encode()) }

const loadFormType = "application/x-www-form-urlencoded"

func (w *loadWorker) grant() bool {
	st := w.st
	u := loadUsers[w.user]
	body := loadForm(url.Values{"grant_type": {"password"}, "username": {u.email}, "password": {u.password}})
	r, ok := st.do(st.ctx, loadOpGrant, "POST", "/oauth/token", "", loadFormType, body, true)
	if !ok || !st.expect(loadOpGrant, "POST", "/oauth/token", r, http.StatusOK) {
		return false
	}
	var tok loadToken
	if err := json.Unmarshal(r.body, &tok); err != nil || tok.AccessToken == "" || tok.RefreshToken == "" ||
		!strings.EqualFold(tok.TokenType, "bearer") || tok.Scope != "read write" || tok.ExpiresIn != int64(oauth.AccessTokenValidity/time.Second) {
		st.errorf("%s: password grant: bad token response (%v): %s", w.name(), err, loadSnippet(r.body))
		return false
	}
	w.access, w.refresh = tok.AccessToken, tok.RefreshToken
	st.mu.Lock()
	st.grants++
	st.mu.Unlock()
	return true
}

// refreshTokens refreshes the worker's tokens and checks that the new access
// token works and the replaced one no longer does.
func (w *loadWorker) refreshTokens() bool {
	st := w.st
	param := "refresh_token"
	if w.rng.IntN(2) == 0 {
		param = "token" // the specification's name
	}
	body := loadForm(url.Values{"grant_type": {"refresh_token"}, param: {w.refresh}})
	r, ok := st.do(st.ctx, loadOpRefresh, "POST", "/oauth/token", "", loadFormType, body, true)
	if !ok || !st.expect(loadOpRefresh, "POST", "/oauth/token", r, http.StatusOK) {
		return false
	}
	var tok loadToken
	if err := json.Unmarshal(r.body, &tok); err != nil || tok.AccessToken == "" || tok.AccessToken == w.access || tok.RefreshToken != w.refresh {
		st.errorf("%s: refresh: bad token response (%v): %s", w.name(), err, loadSnippet(r.body))
		return false
	}
	old := w.access
	w.access = tok.AccessToken
	st.mu.Lock()
	st.refreshs++
	st.mu.Unlock()
	for _, c := range []struct {
		token string
		valid bool
	}{{tok.AccessToken, true}, {old, false}} {
		r, ok := st.do(st.ctx, loadOpTokenCheck, "GET", "/api/events?size=1", c.token, "", nil, false)
		if !ok || !st.expect(loadOpTokenCheck, "GET", "/api/events?size=1", r, http.StatusOK) {
			return false
		}
		var p loadPage
		if err := json.Unmarshal(r.body, &p); err != nil {
			st.errorf("%s: token check: %v: %s", w.name(), err, loadSnippet(r.body))
			return false
		}
		if _, has := p.Links["create-new-event"]; has != c.valid {
			if c.valid {
				st.errorf("%s: the access token of a refresh is not valid: no create-new-event link with it", w.name())
			} else {
				st.errorf("%s: the access token replaced by a refresh is still valid", w.name())
			}
		}
	}
	return true
}

func (w *loadWorker) create() bool {
	st := w.st
	k := st.register(loadIntentCreate, w.user, 0)
	body, _ := json.Marshal(loadBodyFor(k))
	r, ok := st.do(st.ctx, loadOpCreate, "POST", "/api/events", w.access, "application/json", body, false)
	if !ok || !st.expect(loadOpCreate, "POST", "/api/events", r, http.StatusCreated) {
		return false
	}
	var v loadView
	if err := json.Unmarshal(r.body, &v); err != nil || v.ID < 1 {
		st.errorf("%s: create k=%d: bad body (%v): %s", w.name(), k, err, loadSnippet(r.body))
		return false
	}
	if got, diff := loadCheckContent(v); diff != "" || got != k {
		st.errorf("%s: create k=%d answered event %d with another body: %s (k=%d)", w.name(), k, v.ID, diff, got)
	}
	if v.Manager.ID != st.managerIDs[w.user] {
		st.errorf("%s: created event %d has manager.id %d, want %d", w.name(), v.ID, v.Manager.ID, st.managerIDs[w.user])
	}
	if loc, want := r.header.Get("Location"), st.base+"/api/events/"+strconv.FormatInt(v.ID, 10); loc != want {
		st.errorf("%s: create k=%d: Location %q, want %q", w.name(), k, loc, want)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, dup := st.records[v.ID]; dup {
		st.errorf("%s: create k=%d got id %d, already given to an earlier 201", w.name(), k, v.ID)
		return false
	}
	in := st.intents[k]
	in.eventID = v.ID
	st.intents[k] = in
	st.records[v.ID] = &loadRecord{id: v.ID, user: w.user, create: loadWrite{k: k, sent: r.sent, recv: r.recv}}
	st.byUser[w.user] = append(st.byUser[w.user], v.ID)
	return true
}

// pick returns an event created by one of users, half of the time one of
// their first three (so that updates of one event often run at once), or
// 0 when they have none yet.
func (w *loadWorker) pick(users ...int) int64 {
	st := w.st
	st.mu.Lock()
	defer st.mu.Unlock()
	var ids []int64
	for _, u := range users {
		ids = append(ids, st.byUser[u]...)
	}
	if len(ids) == 0 {
		return 0
	}
	if len(users) == 1 && w.rng.IntN(2) == 0 {
		ids = ids[:min(3, len(ids))]
	}
	return ids[w.rng.IntN(len(ids))]
}

func (w *loadWorker) updateOwn() bool {
	st := w.st
	id := w.pick(w.user)
	if id == 0 {
		return w.create()
	}
	k := st.register(loadIntentManagerUpdate, w.user, id)
	body, _ := json.Marshal(loadBodyFor(k))
	path := "/api/events/" + strconv.FormatInt(id, 10)
	r, ok := st.do(st.ctx, loadOpUpdateOwn, "PUT", path, w.access, "application/json", body, false)
	if !ok || !st.expect(loadOpUpdateOwn, "PUT", path, r, http.StatusOK) {
		return false
	}
	var v loadView
	if err := json.Unmarshal(r.body, &v); err != nil {
		st.errorf("%s: update k=%d of event %d: bad body (%v): %s", w.name(), k, id, err, loadSnippet(r.body))
		return false
	}
	if got, diff := loadCheckContent(v); diff != "" || got != k || v.ID != id {
		st.errorf("%s: update k=%d of event %d answered event %d k=%d: %s", w.name(), k, id, v.ID, got, diff)
	}
	st.mu.Lock()
	rec := st.records[id]
	rec.accepted = append(rec.accepted, loadWrite{k: k, sent: r.sent, recv: r.recv})
	st.mu.Unlock()
	return true
}

func (w *loadWorker) updateOther() bool {
	st := w.st
	var others []int
	for u := range loadUsers {
		if u != w.user {
			others = append(others, u)
		}
	}
	id := w.pick(others...)
	if id == 0 {
		return w.create()
	}
	k := st.register(loadIntentOtherUpdate, w.user, id)
	body, _ := json.Marshal(loadBodyFor(k))
	path := "/api/events/" + strconv.FormatInt(id, 10)
	r, ok := st.do(st.ctx, loadOpUpdateOther, "PUT", path, w.access, "application/json", body, false)
	if !ok || !st.expect(loadOpUpdateOther, "PUT", path, r, http.StatusForbidden) {
		return false
	}
	var e struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(r.body, &e); err != nil || e.Error != "access_denied" {
		st.errorf("%s: refused update of event %d: want error access_denied: %s", w.name(), id, loadSnippet(r.body))
	}
	st.mu.Lock()
	rec := st.records[id]
	rec.refused = append(rec.refused, k)
	st.mu.Unlock()
	return true
}

func (w *loadWorker) get() bool {
	st := w.st
	id := w.pick(0, 1, 2)
	if id == 0 {
		return w.create()
	}
	path := "/api/events/" + strconv.FormatInt(id, 10)
	r, ok := st.do(st.ctx, loadOpGet, "GET", path, w.access, "", nil, false)
	if !ok || !st.expect(loadOpGet, "GET", path, r, http.StatusOK) {
		return false
	}
	var v loadView
	if err := json.Unmarshal(r.body, &v); err != nil || v.ID != id {
		st.errorf("%s: GET %s: bad body (%v): %s", w.name(), path, err, loadSnippet(r.body))
		return false
	}
	st.checkRead(v, w.name()+" GET "+path, r)
	st.mu.Lock()
	manager := st.records[id].user == w.user
	st.mu.Unlock()
	if _, has := v.Links["update-event"]; has != manager {
		st.errorf("%s: GET %s: update-event link present = %v, want %v", w.name(), path, has, manager)
	}
	return true
}

func (w *loadWorker) list() bool {
	st := w.st
	size := []int{1, 5, 10, 20}[w.rng.IntN(4)]
	st.mu.Lock()
	n := len(st.records)
	st.mu.Unlock()
	page := w.rng.IntN(n/size + 2)
	path := fmt.Sprintf("/api/events?page=%d&size=%d", page, size)
	r, ok := st.do(st.ctx, loadOpList, "GET", path, w.access, "", nil, false)
	if !ok || !st.expect(loadOpList, "GET", path, r, http.StatusOK) {
		return false
	}
	var p loadPage
	if err := json.Unmarshal(r.body, &p); err != nil {
		st.errorf("%s: GET %s: bad body (%v): %s", w.name(), path, err, loadSnippet(r.body))
		return false
	}
	items := p.Embedded.EventList
	if p.Page.Size != size || p.Page.Number != page || len(items) > size ||
		p.Page.TotalElements < n || p.Page.TotalPages != (p.Page.TotalElements+size-1)/size {
		st.errorf("%s: GET %s: page %+v with %d events (%d created before)", w.name(), path, p.Page, len(items), n)
	}
	for i, v := range items {
		if i > 0 && v.ID <= items[i-1].ID {
			st.errorf("%s: GET %s: ids out of order: %d after %d", w.name(), path, v.ID, items[i-1].ID)
		}
		st.checkRead(v, w.name()+" GET "+path, r)
	}
	return true
}

func (w *loadWorker) run(deadline time.Time) {
	st := w.st
	if !w.grant() || !w.create() {
		return
	}
	for range loadOpsPerWorker {
		if st.ctx.Err() != nil {
			return
		}
		if time.Now().After(deadline) {
			st.budget.Store(true)
			return
		}
		var ok bool
		switch p := w.rng.IntN(100); {
		case p < 5:
			ok = w.grant()
		case p < 15:
			ok = w.refreshTokens()
		case p < 35:
			ok = w.create()
		case p < 55:
			ok = w.updateOwn()
		case p < 65:
			ok = w.updateOther()
		case p < 85:
			ok = w.get()
		default:
			ok = w.list()
		}
		if !ok && st.aborted.Load() {
			return
		}
	}
}

// startLoadServer serves conf on a loopback port until the test ends and
// returns its base URL.
func startLoadServer(tb testing.TB, conf *config.Config) string {
	tb.Helper()
	// All workers share one address, and the clock stands still: the
	// token endpoint's budget per address (tested on its own) is off.
	return servertest.New(tb, New(Options{Config: conf, Clock: clock.NewManual(time.Now()), TokenRate: -1})).URL
}

// loadClient is a plain client with a bounded transport and timeouts.
func loadClient(tb testing.TB, conns int) *http.Client {
	tr := &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxConnsPerHost:       conns,
		MaxIdleConnsPerHost:   conns,
		IdleConnTimeout:       30 * time.Second,
		ResponseHeaderTimeout: 10 * time.Second,
		DisableCompression:    true,
	}
	tb.Cleanup(tr.CloseIdleConnections) // runs before the server's Shutdown
	return &http.Client{
		Transport: tr,
		Timeout:   15 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

func loadConfig(t *testing.T) *config.Config {
	t.Helper()
	hash := func(plain string) string {
		h, err := secret.Hash([]byte(plain), loadCost)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	doc := config.File{Clients: []config.ClientEntry{{
		ClientID: loadClientID, ClientSecret: hash(loadClientSecret),
		AuthorizedGrantTypes: []string{oauth.GrantPassword, oauth.GrantRefreshToken},
		Scopes:               []string{oauth.ScopeRead, oauth.ScopeWrite},
		ResourceIDs:          []string{ResourceID},
	}}}
	for _, u := range loadUsers {
		doc.Accounts = append(doc.Accounts, config.AccountEntry{Email: u.email, Password: hash(u.password), Roles: []string{"USER"}})
	}
	conf, err := config.New(doc)
	if err != nil {
		t.Fatal(err)
	}
	return conf
}

// TestConcurrentLoadLosesNothing runs a few hundred requests from parallel
// workers against a server on a loopback port: password grants and
// refreshes, creates, updates by the manager and refused ones by others,
// reads of events and of list pages. Afterwards every created event must be
// listed once, and every event must show exactly one body, never a mix:
// its creation body or one of its manager's accepted updates, not one
// superseded by an update answered before the read was sent (no lost or
// stale update), never the body of a refused update. No answer may be a 5xx.
func TestConcurrentLoadLosesNothing(t *testing.T) {
	conf := loadConfig(t)
	base := startLoadServer(t, conf)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := &loadState{
		t: t, base: base, client: loadClient(t, loadWorkers), ctx: ctx, cancel: cancel,
		statuses: map[string]map[int]int{},
		intents:  map[int]loadIntent{},
		records:  map[int64]*loadRecord{},
		byUser:   make([][]int64, len(loadUsers)),
	}
	for _, u := range loadUsers {
		a, ok := conf.Accounts.ByEmail(u.email)
		if !ok {
			t.Fatalf("no account %s", u.email)
		}
		st.managerIDs = append(st.managerIDs, a.ID)
	}

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d; %d workers, %d operations each; base %s", seed, loadWorkers, loadOpsPerWorker, base)
	start := time.Now()
	deadline := start.Add(loadBudget)
	var wg sync.WaitGroup
	for n := range loadWorkers {
		w := &loadWorker{st: st, n: n, user: n % len(loadUsers), rng: rand.New(rand.NewPCG(seed, uint64(n)))}
		wg.Go(func() { w.run(deadline) })
	}
	wg.Wait()
	loadTime := time.Since(start)
	if st.aborted.Load() {
		t.FailNow()
	}
	if st.budget.Load() {
		t.Logf("the load phase reached its time budget of %v: some workers stopped early", loadBudget)
	}

	// Afterwards: walk the whole list, then read every event alone.
	final := context.Background()
	listed := map[int64]loadView{}
	var order []int64
	const pageSize = 7
	for page := 0; ; page++ {
		path := fmt.Sprintf("/api/events?page=%d&size=%d", page, pageSize)
		r, ok := st.do(final, loadOpFinalList, "GET", path, "", "", nil, false)
		if !ok {
			t.FailNow()
		}
		if !st.expect(loadOpFinalList, "GET", path, r, http.StatusOK) {
			t.FailNow()
		}
		var p loadPage
		if err := json.Unmarshal(r.body, &p); err != nil {
			t.Fatalf("GET %s: %v: %s", path, err, loadSnippet(r.body))
		}
		if p.Page.TotalElements != len(st.records) {
			st.errorf("GET %s: totalElements %d, want %d (the 201s)", path, p.Page.TotalElements, len(st.records))
		}
		for _, v := range p.Embedded.EventList {
			if _, dup := listed[v.ID]; dup {
				st.errorf("the list shows event %d twice (again on page %d)", v.ID, page)
			}
			listed[v.ID] = v
			order = append(order, v.ID)
			st.checkRead(v, "final "+path, r)
		}
		_, next := p.Links["next"]
		if next != (page+1 < p.Page.TotalPages) {
			st.errorf("GET %s: next link = %v with %d pages", path, next, p.Page.TotalPages)
		}
		if !next || page > len(st.records)/pageSize+1 {
			break
		}
	}
	if !slices.IsSorted(order) {
		st.errorf("the list walk is not in id order: %v", order)
	}
	var missing, extra []int64
	for id := range st.records {
		if _, ok := listed[id]; !ok {
			missing = append(missing, id)
		}
	}
	for id := range listed {
		if _, ok := st.records[id]; !ok {
			extra = append(extra, id)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	if len(missing) > 0 {
		st.errorf("events answered 201 but missing from the list: %v", missing)
	}
	if len(extra) > 0 {
		st.errorf("events in the list that no 201 announced: %v", extra)
	}

	ids := make([]int64, 0, len(st.records))
	for id := range st.records {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		path := "/api/events/" + strconv.FormatInt(id, 10)
		r, ok := st.do(final, loadOpFinalGet, "GET", path, "", "", nil, false)
		if !ok {
			t.FailNow()
		}
		if !st.expect(loadOpFinalGet, "GET", path, r, http.StatusOK) {
			continue
		}
		var v loadView
		if err := json.Unmarshal(r.body, &v); err != nil || v.ID != id {
			st.errorf("GET %s: bad body (%v): %s", path, err, loadSnippet(r.body))
			continue
		}
		st.checkRead(v, "final GET "+path, r)
		if l, ok := listed[id]; ok && l.loadBody.Name != v.Name {
			st.errorf("event %d: the list shows %q, GET shows %q", id, l.Name, v.Name)
		}
	}

	// Ordering: a read must not show a write superseded by another
	// accepted write of the same event that was sent after the first one's
	// answer and answered before the read was sent. For the final reads,
	// this says: the creation body only when no update was accepted, and
	// otherwise one of the accepted updates not superseded so.
	stale := 0
	for _, rd := range st.reads {
		rec := st.records[rd.id]
		if rec == nil {
			continue // read of an event whose 201 was lost: reported above
		}
		w, found := rec.create, rec.create.k == rd.k
		for _, a := range rec.accepted {
			if a.k == rd.k {
				w, found = a, true
			}
		}
		if !found {
			in := st.intents[rd.k]
			st.errorf("%s: event %d shows k=%d (%s), never accepted for it", rd.where, rd.id, rd.k, loadIntentNames[in.kind])
			continue
		}
		for _, x := range rec.accepted {
			if x.sent > w.recv && x.recv < rd.sent {
				stale++
				st.errorf("%s: event %d shows k=%d, but the update k=%d, sent after k=%d was answered, had been answered 200 before this read was sent: a lost or stale update",
					rd.where, rd.id, rd.k, x.k, rd.k)
				break
			}
		}
	}
	for _, rec := range st.records {
		for _, k := range rec.refused {
			for _, rd := range st.reads {
				if rd.k == k {
					st.errorf("event %d: the refused update k=%d shows in %s", rec.id, k, rd.where)
				}
			}
		}
	}

	// Summary.
	updates, refused, hot := 0, 0, 0
	for _, rec := range st.records {
		updates += len(rec.accepted)
		refused += len(rec.refused)
		if len(rec.accepted) > 1 {
			hot++
		}
	}
	var lines []string
	total := 0
	kinds := make([]string, 0, len(st.statuses))
	for kind := range st.statuses {
		kinds = append(kinds, kind)
	}
	slices.Sort(kinds)
	for _, kind := range kinds {
		codes := make([]int, 0, len(st.statuses[kind]))
		for code := range st.statuses[kind] {
			codes = append(codes, code)
		}
		slices.Sort(codes)
		var parts []string
		for _, code := range codes {
			n := st.statuses[kind][code]
			total += n
			parts = append(parts, fmt.Sprintf("%d×%d", code, n))
		}
		lines = append(lines, fmt.Sprintf("  %-22s %s", kind, strings.Join(parts, " ")))
	}
	t.Logf("load phase %v, %d requests in all (%.0f/s during the load); %d password grants, %d refreshes, %d events created, %d updates accepted (%d events updated more than once), %d refused with 403, %d reads checked, %d stale\nstatuses:\n%s",
		loadTime.Round(time.Millisecond), total, float64(total-st.statuses[loadOpFinalList][200]-st.statuses[loadOpFinalGet][200])/loadTime.Seconds(),
		st.grants, st.refreshs, len(st.records), updates, hot, refused, len(st.reads), stale, strings.Join(lines, "\n"))
}

// BenchmarkTokenGrant is one password grant end to end on a loopback port,
// with the demo credentials and their bcrypt cost (10): a client secret
// and a password check per grant.
func BenchmarkTokenGrant(b *testing.B) {
	conf, err := config.Demo()
	if err != nil {
		b.Fatal(err)
	}
	base := startLoadServer(b, conf)
	client := loadClient(b, 1)
	body := url.Values{"grant_type": {"password"}, "username": {"user@email.com"}, "password": {"user"}}.Encode()
	for b.Loop() {
		req, err := http.NewRequest("POST", base+"/oauth/token", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", loadFormType)
		req.SetBasicAuth("myApp", "pass")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			b.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("password grant: status %d", resp.StatusCode)
		}
	}
}
