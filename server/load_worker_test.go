package server

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"eventsvc/server/oauth"
)

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

type loadToken struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"`
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

// put sends w's user's update of event id, registered as intent, as the
// operation op, and reports its number k and its answer when the answer
// has the status want.
func (w *loadWorker) put(intent int, op string, id int64, want int) (k int, r loadResponse, ok bool) {
	st := w.st
	k = st.register(intent, w.user, id)
	body, _ := json.Marshal(loadBodyFor(k))
	path := "/api/events/" + strconv.FormatInt(id, 10)
	r, ok = st.do(st.ctx, op, "PUT", path, w.access, "application/json", body, false)
	return k, r, ok && st.expect(op, "PUT", path, r, want)
}

func (w *loadWorker) updateOwn() bool {
	st := w.st
	id := w.pick(w.user)
	if id == 0 {
		return w.create()
	}
	k, r, ok := w.put(loadIntentManagerUpdate, loadOpUpdateOwn, id, http.StatusOK)
	if !ok {
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
	k, r, ok := w.put(loadIntentOtherUpdate, loadOpUpdateOther, id, http.StatusForbidden)
	if !ok {
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
