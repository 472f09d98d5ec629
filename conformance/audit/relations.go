package audit

import (
	"fmt"
	"net/http"
	"strings"

	"eventsvc/conformance/hal"
	"eventsvc/conformance/jsonvalue"
)

// leads checks that the link j followed leads where its relation says
// (spec API-10): "self" to the resource itself (a listed resource's to
// that resource), "next" and "prev" to the adjacent page of the same
// listing and page size (API-5), "profile" to documentation that is
// served, "update-event" (read with GET) to the event it updates, and
// every other relation to a success.
//
// What a page lists, and whether it offers "next" or "prev", changes as
// events are created: those are checked only against an answer read
// after the one that carries the link (an earlier link to the same
// address may have been followed before).
func (w *world) leads(j *job, y *observed) *Finding {
	f := w.leadsTo(j, y)
	if f != nil && f.Rule == "API-10" {
		// Every link of one relation that leads elsewhere is one fault.
		f.leadsTo, f.rel = key(j.to), j.rel
		f.Cause = fmt.Sprintf("the %q links lead elsewhere than their relation says", j.rel)
		if j.item != nil {
			f.Cause = "the \"self\" links of listed resources lead elsewhere than to the resource"
		}
	}
	return f
}

// leadsTo is leads, without the finding's cause.
func (w *world) leadsTo(j *job, y *observed) *Finding {
	from, rel := j.from, j.rel
	fresh := !y.x.Start.Before(from.x.Start)
	what := fmt.Sprintf("the %q link of the answer to %s %s", rel, from.x.Method, from.path)
	if j.item != nil {
		what = fmt.Sprintf("the \"self\" link of a resource listed in the answer to %s %s", from.x.Method, from.path)
	}
	if y.x.Status >= 300 && y.x.Status < 400 {
		return nil // a redirect, which the audit does not follow: where it leads is not told
	}
	if !y.success() {
		switch {
		case isDocs(y) && (y.x.Status == http.StatusUnauthorized || y.x.Status == http.StatusForbidden):
			return nil // the registry's check of the answer judges it (checkDocs)
		case rel == "update-event":
			return nil // an action link need not answer GET
		case y.x.Status == http.StatusUnauthorized || y.x.Status == http.StatusForbidden:
			return finding(readRule(from, rel, j.item != nil), "%s leads to an answer of %d to %s: what it leads to is open to everyone", what, y.x.Status, from.caller.who())
		case w.lostEvent(y):
			return nil // the link is right: the event is lost (checkGone)
		}
		return finding("API-10", "%s leads to an answer of %d", what, y.x.Status)
	}
	switch {
	case rel == "profile":
		if strings.TrimSpace(string(y.x.RespBody)) == "" {
			return finding("API-10", "%s leads to an empty page: it is for the documentation of the answer", what)
		}
	case j.item != nil:
		if !sameItem(j.item, y) && !w.showsOwnedID(j.item) && !w.showsOwnedID(y.doc) {
			return finding("API-10", "%s leads to another resource (%s)", what, identity(y.doc))
		}
	case rel == "self" || rel == "update-event":
		if msg := sameResource(from, y); msg != "" {
			return finding("API-10", "%s leads to another resource: %s", what, msg)
		}
		if rel == "self" && fresh && (from.kind == kindPage || isListing(from.doc)) && w.quietAround(from, y) && !sameItems(from, y) {
			f := finding("API-10", "%s leads to a page that lists other events than the page itself", what)
			f.stands = func() bool { return w.quietAround(from, y) }
			return f
		}
	case rel == "next" || rel == "prev":
		return w.adjacent(j, y, what, fresh)
	case rel == "get-an-event":
		items := hal.Items(from.doc)
		if len(items) > 0 && !sameItem(items[0], y) {
			return finding("API-10", "%s, filled with the id of the first resource listed, leads to another resource (%s)", what, identity(y.doc))
		}
	}
	return nil
}

// readRule is the rule that lets anyone read where rel of o leads: the
// documentation (SVC-6, and AUTH-5 whatever the Authorization header
// holds), an event (API-7), the list and the rest under /api/ (API-2).
func readRule(o *observed, rel string, item bool) string {
	c := o.caller.class
	switch {
	case rel == "profile" && (c == callerAnonymous || c == callerValid):
		return "SVC-6"
	case rel == "profile":
		return "AUTH-5"
	case item || rel == "get-an-event" || rel == "self" && o.kind != kindPage && o.kind != kindRoot:
		return "API-7"
	}
	return "API-2"
}

// sameResource says how y, reached through a "self" link of o, is not
// the resource o is; "" when it is, or when nothing tells. A page of a
// listing is a page of the same listing, the same page when both say
// their number; anything else is the same resource: the same "id" or
// "name" when both show one, never a listing when it is none, and its own
// "self" the same address as o's.
func sameResource(o, y *observed) string {
	if o.doc == nil {
		return ""
	}
	if y.doc == nil {
		return "the answer is not a JSON object"
	}
	if o.kind == kindPage || isListing(o.doc) {
		if !isListing(y.doc) {
			return "a page of the list leads to something that lists nothing"
		}
		if a, b := pageNumber(o.doc), pageNumber(y.doc); a != "" && b != "" && a != b {
			return fmt.Sprintf("page %s leads to page %s", a, b)
		}
		return ""
	}
	if isListing(y.doc) {
		return "it leads to a listing, not to the resource (" + identity(o.doc) + ")"
	}
	for _, k := range []string{"id", "name"} {
		a, aok := o.doc[k]
		b, bok := y.doc[k]
		if aok && bok {
			if !jsonvalue.Same(a, b) {
				return fmt.Sprintf("%q is %s there, %s here", k, jsonvalue.Describe(b), jsonvalue.Describe(a))
			}
			return ""
		}
	}
	if a, ok := o.resolve(hal.Links(o.doc)["self"]); ok {
		if b, ok := y.resolve(hal.Links(y.doc)["self"]); ok && key(a) != key(b) {
			return "the answer there names itself " + key(b)
		}
	}
	return ""
}

// sameItem reports whether y is the resource item, listed: the same "id",
// or the same "name", when both show one.
func sameItem(item map[string]any, y *observed) bool {
	if y.doc == nil {
		return false
	}
	if isListing(y.doc) {
		return false
	}
	for _, k := range []string{"id", "name"} {
		a, aok := item[k]
		b, bok := y.doc[k]
		if aok && bok {
			return jsonvalue.Same(a, b)
		}
	}
	return true
}

// adjacent checks a page reached through "next" or "prev" of another
// (spec API-5): a page of the same listing, of the same size, the next or
// the previous one when both say their number; one reached through
// "next" offers "prev", one reached through "prev" offers "next"; an
// empty page reached through "next" offers no "next"; and the walk meets
// no page twice.
func (w *world) adjacent(j *job, y *observed, what string, fresh bool) *Finding {
	from := j.from
	if !isListing(y.doc) {
		return finding("API-5", "%s leads to something that lists nothing", what)
	}
	if a, b := pageSize(from.doc), pageSize(y.doc); a != "" && b != "" && a != b {
		return finding("API-5", "%s leads to a page of %s, from a page of %s: the same listing keeps its page size", what, b, a)
	}
	if a, b := len(hal.Items(from.doc)), len(hal.Items(y.doc)); fresh && j.rel == "next" && b > a && w.quietAround(from, y) {
		f := finding("API-5", "%s leads to a page of %d events, from a page of %d: of a listing in pages of one size, only the last page holds fewer", what, b, a)
		f.stands = func() bool { return w.quietAround(from, y) } // with the creations the audit learns of later
		return f
	}
	step := 1
	if j.rel == "prev" {
		step = -1
	}
	if a, b := pageNumber(from.doc), pageNumber(y.doc); a != "" && b != "" && fmt.Sprint(atoi(a)+step) != b {
		return finding("API-5", "%s leads from page %s to page %s", what, a, b)
	}
	back := map[string]string{"next": "prev", "prev": "next"}[j.rel]
	if _, ok := hal.Links(y.doc)[back]; !ok && (fresh || j.rel == "next") {
		return finding("API-5", "%s leads to a page that offers no %q link, though there is a page on that side of it", what, back)
	}
	if _, more := hal.Links(y.doc)["next"]; fresh && j.rel == "next" && more && len(hal.Items(y.doc)) == 0 {
		return finding("API-5", "%s leads to an empty page that offers \"next\": an empty page has no next page", what)
	}
	id := pageID(y)
	j.walk.mu.Lock()
	seen := j.walk.pages[id]
	j.walk.pages[id] = true
	if len(j.walk.pages) > maxWalk {
		j.walk.ended = true // a list that long is followed no further
	}
	j.walk.mu.Unlock()
	if seen && j.rel == "next" {
		return finding("API-5", "%s leads back to a page read before on the walk through the list", what)
	}
	if fresh && j.rel == "next" && w.quietAround(from, y) {
		if dup := sharedItem(from, y); dup != "" {
			f := finding("API-5", "%s leads to a page that lists again an event of the page before: %s", what, dup)
			// A creation under way between the two reads, whose answer
			// came later, may have moved the event to the next page.
			f.stands = func() bool { return w.quietAround(from, y) }
			return f
		}
	}
	return nil
}

// quietAround reports whether no creation of the run was under way while
// either of two pages was read, from the first request to the last
// answer, so that they list the events as one list: the page a link led
// to may have been answered before the page that carries it (an earlier
// read of the same address), and a creation between the two answers
// changes what they list.
func (w *world) quietAround(a, b *observed) bool {
	start, end := a.x.Start, a.x.End
	if b.x.Start.Before(start) {
		start = b.x.Start
	}
	if b.x.End.After(end) {
		end = b.x.End
	}
	return w.quiet(start, end)
}

// quiet reports whether no creation of the run was under way between
// start and end, so that two pages read then list the events as one list.
func (w *world) quiet(start, end interface{ UnixNano() int64 }) bool {
	fam := w.family()
	fam.mu.Lock()
	defer fam.mu.Unlock()
	for _, s := range fam.writes {
		if s.end.UnixNano() >= start.UnixNano() && s.start.UnixNano() <= end.UnixNano() {
			return false
		}
	}
	return true
}

// sharedItem is a resource two pages both list, by its "self" link.
func sharedItem(a, b *observed) string {
	seen := map[string]bool{}
	for _, item := range hal.Items(a.doc) {
		if u, ok := a.resolve(hal.Links(item)["self"]); ok {
			seen[key(u)] = true
		}
	}
	for _, item := range hal.Items(b.doc) {
		if u, ok := b.resolve(hal.Links(item)["self"]); ok && seen[key(u)] {
			return key(u)
		}
	}
	return ""
}

// sameItems reports whether two pages list the same resources, by their
// "self" links.
func sameItems(a, b *observed) bool {
	list := func(o *observed) []string {
		var out []string
		for _, item := range hal.Items(o.doc) {
			u, ok := o.resolve(hal.Links(item)["self"])
			if !ok {
				return nil
			}
			out = append(out, key(u))
		}
		return out
	}
	x, y := list(a), list(b)
	if x == nil || y == nil {
		return true // nothing tells
	}
	return strings.Join(x, " ") == strings.Join(y, " ")
}

// isListing reports whether doc lists resources: it embeds some, or it
// says it is a page.
func isListing(doc map[string]any) bool {
	if _, ok := doc["_embedded"]; ok {
		return true
	}
	if _, ok := doc["page"].(map[string]any); ok {
		return true
	}
	return len(hal.Items(doc)) > 0 && doc["id"] == nil
}

// pageNumber and pageSize are what a page says of itself, when it says.
func pageNumber(doc map[string]any) string { return pageField(doc, "number") }
func pageSize(doc map[string]any) string   { return pageField(doc, "size") }

func pageField(doc map[string]any, name string) string {
	p, ok := doc["page"].(map[string]any)
	if !ok {
		return ""
	}
	s, _ := idText(p[name])
	return s
}

// idText is a JSON id as text: a string, or a whole number.
func idText(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, t != ""
	case float64:
		if t == float64(int64(t)) {
			return fmt.Sprintf("%d", int64(t)), true
		}
	}
	return "", false
}

func atoi(s string) int {
	n := 0
	fmt.Sscanf(s, "%d", &n)
	return n
}

// identity names a resource in a message: its id or name.
func identity(doc map[string]any) string {
	for _, k := range []string{"id", "name"} {
		if v, ok := doc[k]; ok {
			return k + " " + jsonvalue.Describe(v)
		}
	}
	if isListing(doc) {
		return "a listing"
	}
	return "no id or name"
}
