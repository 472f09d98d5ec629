package conformance

// The event list of the second implementation (othersvc_test.go).

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// list serves page p of the list, per_page events a page, newest first.
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
	if o.flaws.nextNeverEnds && start >= total && total > 0 {
		if o.flaws.pastTheEnd != nil {
			o.flaws.pastTheEnd.Add(1)
		}
		start = (total - 1) / size * size // the page number clamped to the last
	}
	last := p > 1 && start+size >= total // the last page of a list of several
	if o.flaws.lastPageRepeats && last && start < total {
		start = max(0, total-size) // OFFSET total-size, for a full last page
	}
	for i := start; i < min(start+size, total); i++ {
		e := o.events[total-1-i] // newest first
		links := map[string]any{"self": otherLink("events/" + e.id)}
		if o.flaws.itemSelfFrom21st && i >= 20 {
			// The ids of the links, twenty at a time, the second
			// batch one row late.
			next := ""
			if i+1 < total {
				next = o.events[total-2-i].id
			}
			links["self"] = otherLink("events/" + next)
		}
		if o.flaws.itemUpdateForAnyone {
			links["update-event"] = otherLink("events/" + e.id)
		}
		doc := o.doc(e, links)
		if o.flaws.itemsWithoutLinks || o.flaws.lastItemNoLinks && i == total-1 {
			delete(doc, "_links")
		}
		items = append(items, doc)
	}
	amp := "&"
	if o.flaws.ampEscapedHrefs {
		amp = "&amp;" // escaped as an HTML attribute
	}
	at := func(n int) map[string]any { return otherLink(fmt.Sprintf("events?p=%d%sper_page=%d", n, amp, size)) }
	links := map[string]any{
		"self":         at(p),
		"profile":      otherLink("/docs/index.html#list"),
		"get-an-event": map[string]any{"href": "events/{id}", "templated": true},
	}
	if o.flaws.anonLinksFirstOnly && p > 1 {
		delete(links, "profile")
		delete(links, "get-an-event")
	}
	if last && o.flaws.lastPageNoTemplate {
		delete(links, "get-an-event")
	}
	if last && o.flaws.lastPageSelfToPrev {
		links["self"] = at(p - 1)
	}
	if o.choices.selfAsAsked {
		links["self"] = otherLink(strings.TrimSuffix("events?"+r.URL.RawQuery, "?"))
	}
	switch {
	case o.flaws.nextNeverEnds:
		links["next"] = at(p + 1)
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
