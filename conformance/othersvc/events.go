package othersvc

// The documentation page and the resources of the second implementation
// (othersvc.go): the API root and one event; the list is in
// list.go.

import (
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
)

// docs serves the documentation page.
func (o *otherSvc) docs(w http.ResponseWriter) {
	page := `<!DOCTYPE html><html><head><title>Events API</title></head><body>
<h1>Events API</h1><h2 id="list">Listing</h2><p>GET /api/events?p=1&amp;per_page=2</p>
<h2 id="event">An event</h2><p>{"name", "startsAt", "venue"}</p></body></html>`
	if o.Choices.BareHTML { // HTML5: html, head and body tags may be left out
		page = `<!DOCTYPE html><title>Events API</title><h1>Events API</h1><p id="list">GET /api/events?p=1&amp;per_page=2`
	}
	if o.Choices.Latin1Docs {
		w.Header().Set("Content-Type", "text/html; charset=ISO-8859-1")
	} else {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	_, _ = io.WriteString(w, page)
}

// api serves p, a path under /api.
func (o *otherSvc) api(w http.ResponseWriter, r *http.Request, p string) {
	user, rest := o.user(r), strings.TrimPrefix(p, "/api")
	if o.Flaws.AnyBearerWrites && user == "" && r.Method != http.MethodGet && strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
		user = "whoever@example.org"
	}
	if o.Flaws.CreatesWithoutToken && user == "" && r.Method == http.MethodPost && rest == "/events" {
		o.create(httptest.NewRecorder(), r, "nobody") // and then refuse below
	}
	id, isEvent := strings.CutPrefix(rest, "/events/")
	isEvent = isEvent && id != "" && !strings.Contains(id, "/")
	switch get := r.Method == http.MethodGet; {
	case !get && user == "" && o.guarded(r, p),
		o.Flaws.InvalidTokenRefused && user == "" && strings.HasPrefix(r.Header.Get("Authorization"), "Bearer "):
		otherError(w, http.StatusForbidden, "a valid bearer token is needed")
	case get && rest == "" && o.Flaws.RootNeedsToken && user == "":
		w.Header().Set("WWW-Authenticate", `Bearer realm="events"`)
		otherError(w, http.StatusUnauthorized, "a valid bearer token is needed")
	case get && rest == "":
		o.root(w)
	case get && user == "" && (rest == "/events" && o.Flaws.ListNeedsToken || isEvent && o.Flaws.ReadNeedsToken):
		otherError(w, http.StatusForbidden, "a valid bearer token is needed")
	case get && rest == "/events":
		o.cachedList(w, r, user)
	case r.Method == http.MethodPost && rest == "/events":
		o.create(w, r, user)
	case get && isEvent:
		o.cachedRead(w, r, id, user)
	case r.Method == http.MethodPut && isEvent:
		o.update(w, r, id, user)
	case get && o.Flaws.UnknownGETNeedToken && user == "":
		otherError(w, http.StatusForbidden, "a valid bearer token is needed")
	case get:
		otherError(w, http.StatusNotFound, "no such resource")
	default:
		otherError(w, http.StatusMethodNotAllowed, "not allowed here")
	}
}

func (o *otherSvc) root(w http.ResponseWriter) {
	events, rel := "api/events", "events"
	if o.Flaws.BrokenEventsHref {
		events = "api/v1/events"
	}
	if o.Flaws.NoEventsLink {
		rel = "event-list"
	}
	self := "api"
	if o.Flaws.RootSelfNowhere {
		self = "api/"
	}
	links := map[string]any{"self": otherLink(self), rel: otherLink(events)}
	if o.Flaws.LinksAsArray {
		otherJSON(w, http.StatusOK, map[string]any{"_links": []any{
			map[string]any{"rel": "self", "href": "api"}, map[string]any{"rel": rel, "href": events},
		}})
		return
	}
	otherJSON(w, http.StatusOK, map[string]any{"_links": links})
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
	if o.Flaws.EventSelfOffByOne {
		n, _ := strconv.Atoi(strings.TrimPrefix(e.id, "ev-"))
		links["self"] = otherLink(fmt.Sprintf("ev-%04d", n+1))
	}
	if o.Flaws.ProfileNowhere {
		links["profile"] = otherLink("/docs/event.html")
	}
	switch {
	case user != "" && (user == e.manager || o.Flaws.UpdateLinkForAnyone) && o.Flaws.UpdateLinkToList:
		links["update-event"] = otherLink("/api/events") // built as create-new-event is
	case user != "" && (user == e.manager || o.Flaws.UpdateLinkForAnyone), o.Flaws.UpdateLinkForEveryone:
		links["update-event"] = otherLink(e.id)
	case o.Flaws.NullLinks:
		links["update-event"] = nil // a link the caller may not have
	}
	otherJSON(w, http.StatusOK, o.doc(e, links))
}

func (o *otherSvc) update(w http.ResponseWriter, r *http.Request, id, user string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	e := o.find(id)
	switch {
	case e == nil:
		otherError(w, http.StatusGone, "no such event")
	case user != e.manager && o.Flaws.NonManager401:
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
		delete(fields, "id") // the handler sets the entity's id from the path
		loaded := *e         // the entity the handler loaded
		switch {
		case o.Flaws.UpdateIgnored:
		case o.Flaws.UpdateNameOnly:
			e.fields["name"] = fields["name"]
		case o.Flaws.VenueNotUpdated:
			fields["venue"] = e.fields["venue"] // the UPDATE sets the other columns
			if fields["venue"] == nil {
				delete(fields, "venue")
			}
			e.fields = fields
		default:
			e.fields = fields
		}
		if o.Flaws.UpdateDropsManager {
			e.manager = ""
		}
		o.written(e.id)
		if o.Flaws.PutLinksAsArray {
			doc := o.doc(e, nil)
			doc["_links"] = []any{map[string]any{"rel": "self", "href": e.id}}
			otherJSON(w, http.StatusOK, doc)
			return
		}
		if o.Choices.PutAnswersEvent || o.Flaws.PutStaleAnswer || o.Flaws.UpdateAnswerSelfToList {
			shown, self := e, e.id
			if o.Flaws.PutStaleAnswer {
				shown = &loaded
			}
			if o.Flaws.UpdateAnswerSelfToList {
				self = "/api/events" // as the list builds it
			}
			links := map[string]any{"self": otherLink(self), "profile": otherLink("/docs/index.html#event"), "update-event": otherLink(e.id)}
			otherJSON(w, http.StatusOK, o.doc(shown, links))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

// doc renders the event with links, as the serializer writes it; the
// caller holds o.mu.
func (o *otherSvc) doc(e *otherEvent, links map[string]any) map[string]any {
	out := map[string]any{"id": e.id, "_links": links}
	for k, v := range e.fields {
		if s, ok := v.(string); ok && o.Flaws.HtmlEscapedTexts {
			v = html.EscapeString(s)
		}
		out[k] = v
	}
	return out
}
