package audit

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"eventsvc/conformance/hal"
	"eventsvc/conformance/jsonvalue"
)

// kindOf tells what a successful JSON answer of /api/** is: the API root,
// a page of the list (an answer at the list's address), or an event (an
// answer at the address of an event the audit saw created or listed).
func (w *world) kindOf(o *observed) string {
	if o.x.Method != http.MethodGet {
		return ""
	}
	if o.path == "/api" {
		return kindRoot
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.list != "" && listKey(o.url) == w.list {
		return kindPage
	}
	if _, ok := w.events[key(o.url)]; ok || w.listed[key(o.url)] {
		return kindEvent
	}
	return ""
}

// learnList keeps the address of the event list the API root gives.
func (w *world) learnList(o *observed) {
	href := hal.Links(o.doc)["events"]
	if href == "" {
		return
	}
	if u, ok := o.resolve(href); ok {
		w.mu.Lock()
		w.list = listKey(u)
		w.mu.Unlock()
	}
}

// checkRoot checks a read of the API root (spec API-1): it is served,
// and its "events" link gives the list's address. Refused, it breaks
// API-1 for a caller without credentials or with a valid token; one who
// sent credentials the target did not issue, or ones of another kind,
// may be refused them (RFC 6750 §3.1).
func (w *world) checkRoot(o *observed) []*Finding {
	c := o.caller
	if o.x.Status != http.StatusOK && c.class != callerAnonymous && c.class != callerValid {
		return nil
	}
	o.checked("API-1")
	switch {
	case o.x.Status != http.StatusOK && c.class == callerValid:
		return w.notHonoured(c, o, key(o.url), "API-1", nil, fmt.Sprintf("the API root, read by %s, answered %d: it needs no authentication", c.who(), o.x.Status))
	case o.x.Status != http.StatusOK:
		return []*Finding{finding("API-1", "the API root, read by %s, answered %d: it needs no authentication", o.caller.who(), o.x.Status)}
	case o.doc == nil:
		return []*Finding{finding("API-1", "the API root, read by %s, is not a JSON object: it gives the event list's address as _links.events.href", o.caller.who())}
	case hal.Links(o.doc)["events"] == "":
		return []*Finding{finding("API-1", "the API root offers no \"events\" link; it offers %s", hal.RelNames(hal.Links(o.doc)))}
	}
	if c.class == callerValid {
		w.noteOffered(c, key(o.url), true, o) // served: the token was taken, or taken for none
	}
	return nil
}

// checkOpenRead checks a GET under /api/ sent without any credentials
// (spec AUTH-2, API-7): it is not refused for want of them.
func (w *world) checkOpenRead(o *observed) *Finding {
	o.checked("AUTH-2")
	if o.x.Status == http.StatusUnauthorized || o.x.Status == http.StatusForbidden {
		return finding("AUTH-2", "GET %s, sent without credentials, answered %d: GET on any path under /api/ is allowed for everyone", o.path, o.x.Status)
	}
	return nil
}

// checkHAL checks a successful JSON answer of /api/** and every resource
// it lists (spec SVC-2): "_links" is an object keyed by relation name,
// and every entry a link with an href, or an array of such links (HAL); an
// entry that is null, a string, an empty array or an array holding
// anything but links is none.
func (o *observed) checkHAL() *Finding {
	o.checked("SVC-2")
	if msg := HALProblem(o.doc); msg != "" {
		return finding("SVC-2", "the answer to %s %s: %s", o.x.Method, o.path, msg)
	}
	for i, item := range hal.Items(o.doc) {
		if msg := HALProblem(item); msg != "" {
			return finding("SVC-2", "listed resource %d of the answer to %s %s: %s", i+1, o.x.Method, o.path, msg)
		}
	}
	return nil
}

// HALProblem says how doc is not a HAL resource, or "".
func HALProblem(doc map[string]any) string {
	v, ok := doc["_links"]
	if !ok {
		return "it has no \"_links\""
	}
	links, ok := v.(map[string]any)
	if !ok || len(links) == 0 {
		return fmt.Sprintf("_links is %s, not an object of links by relation name", jsonvalue.Describe(v))
	}
	for _, rel := range slices.Sorted(maps.Keys(links)) {
		entries, isList := links[rel].([]any)
		if !isList {
			entries = []any{links[rel]}
		} else if len(entries) == 0 {
			return fmt.Sprintf("the %q entry of _links is an empty array, not a link", rel)
		}
		for _, e := range entries {
			link, ok := e.(map[string]any)
			if href, _ := link["href"].(string); !ok || href == "" {
				return fmt.Sprintf("the %q entry of _links is %s, not a link with an href", rel, jsonvalue.Describe(e))
			}
		}
	}
	return ""
}

// checkHrefs checks that every href of the answer, and of every resource
// it lists, resolves against the answer's address to an address a client
// can follow (spec API-10).
func (o *observed) checkHrefs() *Finding {
	o.checked("API-10")
	docs := append([]map[string]any{o.doc}, hal.Items(o.doc)...)
	for _, d := range docs {
		for _, rel := range slices.Sorted(maps.Keys(hal.Links(d))) {
			href := hal.Links(d)[rel]
			if href == "" {
				continue // no link at all: SVC-2's to tell
			}
			if strings.Contains(href, "{") {
				href = hal.Expand(href, templateVars(href))
			}
			if _, ok := o.resolve(href); !ok {
				return finding("API-10", "the %q link %q of the answer to %s %s does not resolve to an address a client can follow", rel, href, o.x.Method, o.path)
			}
		}
	}
	return nil
}

// templateVars fills every variable of a URI template with a value, to
// see whether the template resolves.
func templateVars(t string) map[string]string {
	vars := map[string]string{}
	for _, m := range templateVar.FindAllStringSubmatch(t, -1) {
		vars[m[1]] = "1"
	}
	return vars
}

// listLinks are the links every page of the event list offers every
// caller (spec API-3, API-4).
var listLinks = []string{"self", "profile", "get-an-event"}

// checkOffers checks what an answer offers its caller (spec SVC-3): a
// page of the list offers self, profile and get-an-event to everyone
// (API-3, API-4), create-new-event to a caller with a valid token and to
// nobody else; an event, and an event a page lists, offer update-event to
// nobody who does not manage it, and an event to its manager (API-8).
// Callers the audit cannot tell are not judged on what depends on them.
func (w *world) checkOffers(o *observed) []*Finding {
	c := o.caller
	if c.class == callerUncertain {
		return nil
	}
	links := hal.Links(o.doc)
	here := withoutTokenParam(o.url)
	var found []*Finding
	offers := "" // what the caller must be offered, for shared.go
	switch o.kind {
	case kindPage:
		offers = "anonymous"
		if c.class == callerValid {
			offers = "valid"
		}
		rule := "API-3"
		if c.class == callerValid {
			rule = "API-4"
		}
		o.checked(rule, "SVC-3")
		var missing []string
		for _, rel := range listLinks {
			if _, ok := links[rel]; !ok {
				missing = append(missing, rel)
			}
		}
		if missing != nil {
			found = append(found, finding(rule, "a page of the event list, read by %s, does not offer %q; it offers %s", c.who(), missing, hal.RelNames(links)))
		}
		_, create := links["create-new-event"]
		w.noteOffered(c, here, create, o)
		switch {
		case c.class == callerValid && !create:
			found = append(found, w.notHonoured(c, o, here, "API-4", nil, fmt.Sprintf("a page of the event list, read by %s, does not offer \"create-new-event\"; it offers %s", c.who(), hal.RelNames(links)))...)
		case c.class != callerValid && create:
			found = append(found, w.offeredWithout(c, here, fmt.Sprintf("a page of the event list offers \"create-new-event\" to %s, who holds no valid token", c.who())))
		}
		if len(hal.Items(o.doc)) > 0 {
			o.checked("API-8")
		}
		for i, item := range hal.Items(o.doc) {
			_, offered := hal.Links(item)["update-event"]
			u, ok := o.resolve(hal.Links(item)["self"])
			if !ok {
				continue
			}
			w.noteListed(key(u))
			w.noteOffered(c, key(u), offered, o)
			manager, known := w.managerOf(o, hal.Links(item)["self"])
			if offered && (c.class != callerValid || known && manager != c.account) {
				found = append(found, w.offeredAnother(c, key(u), manager, fmt.Sprintf("listed event %d offers \"update-event\" to %s, who does not manage it", i+1, c.who()))...)
				break
			}
			if offered && !known {
				if f := w.oneManager(c, key(u), fmt.Sprintf("listed event %d", i+1)); f != nil {
					found = append(found, f)
					break
				}
			}
		}
	case kindEvent:
		o.checked("API-8", "SVC-3")
		_, offered := links["update-event"]
		w.noteOffered(c, here, offered, o)
		manager, known := w.managerOf(o, "")
		switch {
		case known && c.class == callerValid && c.account == manager:
			offers = "manager"
		case known:
			offers = "not the manager"
		}
		switch {
		case offered && (c.class != callerValid || known && manager != c.account):
			found = append(found, w.offeredAnother(c, here, manager, fmt.Sprintf("the event offers \"update-event\" to %s, who does not manage it", c.who()))...)
		case offered && !known:
			if f := w.oneManager(c, here, "the event"); f != nil {
				found = append(found, f)
			}
		case offered && c.class == callerValid && known && manager == c.account:
			w.offeredManager(o)
			w.noteUpdateOffer(c, manager, true)
		case !offered && c.class == callerValid && known && manager == c.account:
			msg := fmt.Sprintf("the event does not offer \"update-event\" to %s, who created it and manages it; it offers %s", c.who(), hal.RelNames(links))
			found = append(found, w.managerNotOffered(o, c, here, msg)...)
		}
	default:
		if !o.isWrite() {
			break
		}
		// The answer to a write offers nobody what they may not do.
		o.checked("SVC-3")
		if _, create := links["create-new-event"]; create && c.class != callerValid {
			found = append(found, w.offeredWithout(c, here, fmt.Sprintf("the answer to %s %s offers \"create-new-event\" to %s, who holds no valid token", o.x.Method, o.path, c.who())))
		}
	}
	w.shared(found, here, offers, o)
	w.noteServed(here, offers, o)
	return found
}

// noteListed notes the address of a listed event.
func (w *world) noteListed(address string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.listed[address] = true
}

// oneManager checks that an event whose creation the audit did not see,
// at address, offers "update-event" to one account only (API-8): the
// first offered it is taken for its manager.
func (w *world) oneManager(c caller, address, what string) *Finding {
	if c.class != callerValid {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	before := slices.Clone(w.offeredTo[address])
	if !slices.ContainsFunc(before, func(u use) bool { return u.tok != nil && u.tok.account == c.account }) && len(before) < maxOfferedTo {
		w.offeredTo[address] = append(w.offeredTo[address], use{tok: c.tok})
	}
	i := slices.IndexFunc(before, func(u use) bool { return u.tok != nil && u.tok.account != c.account })
	if i < 0 {
		return nil
	}
	f := finding("API-8", "%s offers \"update-event\" to %s, and offered it to %s before: an event has one manager, and only its manager is offered it", what, c.who(), before[i].tok.account)
	// A token of a grant answered beside another account's may act for
	// it: only plain tokens of two accounts tell.
	t := c.tok
	f.stands = func() bool {
		return w.plainToken(t, nil) && slices.ContainsFunc(before, func(u use) bool { return u.tok.account != t.account && w.plainToken(u.tok, nil) })
	}
	return f
}

// maxOfferedTo is how many accounts' offers of one event's update the
// audit keeps (oneManager).
const maxOfferedTo = 8

// noteOffered notes what a page or an event at address offered c, read
// by o: an action offered an anonymous caller is offered to anyone; one
// offered an account's valid token is offered to that account, then, as
// that token was sent.
func (w *world) noteOffered(c caller, address string, offered bool, o *observed) {
	if !offered {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case c.class == callerAnonymous:
		w.anonymousOffered[address] = true
	case c.class == callerValid:
		w.offered[c.account+" "+address] = append(w.offered[c.account+" "+address], useOf(c, span{o.x.Start, o.x.End}))
	}
}

// offeredWithout is the finding of an action offered at address to c, who
// may not take it: when an anonymous caller is offered it there too, what
// c sent counted for nothing, and the anonymous caller's finding tells the
// fault.
func (w *world) offeredWithout(c caller, address, msg string) *Finding {
	f := finding(wrongUpdateRule(c), "%s", msg)
	rel := "update-event"
	if strings.Contains(msg, "create-new-event") {
		f.Rule, rel = refusedRule(c, false), "create-new-event"
	}
	if c.class != callerAnonymous && c.class != callerValid {
		w.probeAnonymous(address, rel)
		f.stands = func() bool {
			w.mu.Lock()
			defer w.mu.Unlock()
			return !w.anonymousOffered[address]
		}
	}
	if rel == "update-event" {
		// An event whose creator's update was refused as not its
		// manager's has another manager in the target's eyes: that its
		// update is offered to another is the creation's fault (API-6,
		// told by its own finding).
		w.mu.Lock()
		ev := w.events[address]
		w.mu.Unlock()
		f.stands = both(f.stands, func() bool { return !w.refusedCreator(ev) })
	}
	return f
}

// notHonoured are the findings of an action not offered at address to
// c, who holds a valid token, for rule: rule's for a password grant's
// token sent with "Bearer"; else the one of honourBlames that the
// account's other uses at address bear out, with no update of ev between
// the reads; otherwise what its caller lacks is not the audit's to tell,
// and the other reads tell the rest.
func (w *world) notHonoured(c caller, o *observed, address, rule string, ev *event, msg string) []*Finding {
	read := span{o.x.Start, o.x.End}
	return honourFindings(c, rule, msg, func() []use { return w.offeredNear(c.account, address, ev, read) })
}

// managerNotOffered are the findings of an event at address that does
// not offer its manager c "update-event": for a plain token, API-9 when
// an update took it away (offered before the update, or offered to every
// manager before their first update), none when the creator's own update
// was refused as not the manager's (API-6, told by its own finding), else
// API-8, also when the answer is one given to a caller who must be
// answered otherwise (shared) and the manager's updates are not refused
// since (the update took the manager away); for a token a refresh gave, or a scheme
// written in another case, notHonoured's. What stands is decided at the
// run's end.
func (w *world) managerNotOffered(o *observed, c caller, address, msg string) []*Finding {
	ev, _ := w.eventAt(o)
	w.noteUpdateOffer(c, c.account, false)
	if len(honourBlames(c)) > 0 {
		return w.notHonoured(c, o, address, "API-8", ev, msg)
	}
	var out []*Finding
	if ev != nil && c.tok != nil {
		w.mu.Lock()
		if len(ev.deniedTo) < maxOfferedTo && !slices.Contains(ev.deniedTo, c.tok) {
			ev.deniedTo = append(ev.deniedTo, c.tok)
		}
		w.mu.Unlock()
		out = append(out, w.mixedUp(ev))
	}
	decide := func() string {
		switch {
		case w.a.writing.under(address): // the update under way may have taken it
			return ""
		case w.refusedCreator(ev):
			return ""
		case w.takenByUpdate(o):
			return "API-9"
		}
		return "API-8"
	}
	for _, rule := range []string{"API-9", "API-8"} {
		r := rule
		f := finding(r, "%s", msg)
		notSwapped := w.notSwapped(c) // a token that acts for another account: ACC-1, told by offeredAnother
		f.stands = func() bool {
			d := decide()
			if d != "" && f.Cause == sharedAnswerCause && !w.managerRefusedAt(ev) {
				d = "API-8" // an answer given to another caller, not an update, took it away
			}
			// A token whose grant met another account's may act for it:
			// what it is denied tells the links' fault no better.
			return d == r && notSwapped() && w.plainToken(c.tok, nil)
		}
		out = append(out, f)
	}
	return out
}

// offeredNear are the uses of account's valid token that were offered
// an action at address by a read with no update of ev taken from the
// first of the two reads' requests to the last of their answers: an
// update under way while either read was may be what it shows (the audit
// follows links beside the scenarios' writes).
func (w *world) offeredNear(account, address string, ev *event, read span) []use {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []use
	for _, offered := range w.offered[account+" "+address] {
		lo, hi := offered.when.start, read.end
		if read.start.Before(lo) {
			lo = read.start
		}
		if offered.when.end.After(hi) {
			hi = offered.when.end
		}
		between := false
		if ev != nil {
			for _, v := range ev.versions {
				if !v.create && v.when.end.After(lo) && v.when.start.Before(hi) {
					between = true
					break
				}
			}
		}
		if !between {
			out = append(out, offered)
		}
	}
	return out
}

// withoutTokenParam is the address u without an access_token query
// parameter: the same resource, whatever a caller put there.
func withoutTokenParam(u *url.URL) string {
	c := *u
	q := c.Query()
	if _, ok := q["access_token"]; ok {
		q.Del("access_token")
		c.RawQuery = q.Encode()
	}
	return key(&c)
}

// wrongUpdateRule is the rule broken when update-event is offered to a
// caller who does not manage the event.
func wrongUpdateRule(c caller) string {
	switch c.class {
	case callerRefresh, callerBasic, callerElsewhere:
		return refusedRule(c, false)
	}
	return "API-8"
}
