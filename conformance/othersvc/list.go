package othersvc

// The event list of the second implementation (othersvc.go).

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
	if o.Flaws.OverlappingPages {
		start = max(0, start-(p-1))
	}
	if o.Flaws.NextNeverEnds && start >= total && total > 0 {
		if o.Flaws.PastTheEnd != nil {
			o.Flaws.PastTheEnd.Add(1)
		}
		start = (total - 1) / size * size // the page number clamped to the last
	}
	last := p > 1 && start+size >= total // the last page of a list of several
	if o.Flaws.LastPageRepeats && last && start < total {
		start = max(0, total-size) // OFFSET total-size, for a full last page
	}
	for i := start; i < min(start+size, total); i++ {
		e := o.events[total-1-i] // newest first
		links := map[string]any{"self": otherLink("events/" + e.id)}
		if o.Flaws.ItemSelfFrom21st && i >= 20 {
			// The ids of the links, twenty at a time, the second
			// batch one row late.
			next := ""
			if i+1 < total {
				next = o.events[total-2-i].id
			}
			links["self"] = otherLink("events/" + next)
		}
		if o.Flaws.ItemUpdateForAnyone {
			links["update-event"] = otherLink("events/" + e.id)
		}
		doc := o.doc(e, links)
		if o.Flaws.ItemsWithoutLinks || o.Flaws.LastItemNoLinks && i == total-1 {
			delete(doc, "_links")
		}
		items = append(items, doc)
	}
	amp := "&"
	if o.Flaws.AmpEscapedHrefs {
		amp = "&amp;" // escaped as an HTML attribute
	}
	at := func(n int) map[string]any { return otherLink(fmt.Sprintf("events?p=%d%sper_page=%d", n, amp, size)) }
	links := map[string]any{
		"self":         at(p),
		"profile":      otherLink("/docs/index.html#list"),
		"get-an-event": map[string]any{"href": "events/{id}", "templated": true},
	}
	if o.Flaws.AnonLinksFirstOnly && p > 1 {
		delete(links, "profile")
		delete(links, "get-an-event")
	}
	if last && o.Flaws.LastPageNoTemplate {
		delete(links, "get-an-event")
	}
	if last && o.Flaws.LastPageSelfToPrev {
		links["self"] = at(p - 1)
	}
	if o.Choices.SelfAsAsked {
		links["self"] = otherLink(strings.TrimSuffix("events?"+r.URL.RawQuery, "?"))
	}
	switch {
	case o.Flaws.NextNeverEnds:
		links["next"] = at(p + 1)
	case start+size < total && o.Flaws.NextSamePage:
		links["next"] = at(p)
	case start+size < total || (o.Flaws.NextOnLastPage && start < total) || (o.Flaws.NextWhenFull && start+size == total):
		links["next"] = at(p + 1)
	}
	switch {
	case p > 1:
		links["prev"] = at(min(p-1, max(1, (total+size-1)/size)))
	case o.Flaws.PrevOnExplicitFirst && r.URL.Query().Has("p"):
		links["prev"] = at(1)
	}
	if (user != "" || o.Flaws.CreateLinkForAnonymous) && !o.Flaws.NoCreateLinkForUsers && (r.URL.RawQuery == "" || !o.Flaws.CreateLinkDefaultOnly) {
		links["create-new-event"] = otherLink("events")
	}
	body := map[string]any{"_embedded": map[string]any{"events": items}, "_links": links}
	if o.Choices.ListAsArray {
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
