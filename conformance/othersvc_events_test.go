package conformance

// The documentation page and the resources of the second implementation
// (othersvc_test.go): the API root, the list, and one event.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"
)

// docs serves the documentation page.
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
