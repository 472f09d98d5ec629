package audit

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"eventsvc/conformance/hal"
	"eventsvc/conformance/value"
)

// check runs every check that governs o, and learns from it.
func (w *world) check(o *observed) []*Finding {
	w.noteSpent(o)
	found := w.checkTokenAnswer(o)
	if o.path == "" || !o.underAPI() && !o.isWrite() {
		return found
	}
	found = append(found, w.checkWrite(o)...)
	if !o.underAPI() {
		return found
	}
	if f := w.checkOpenRead(o); f != nil {
		return append(found, f)
	}
	if !o.success() || o.doc == nil {
		return found
	}
	o.kind = w.kindOf(o)
	if f := o.checkHAL(); f != nil {
		return append(found, f)
	}
	if f := o.checkHrefs(); f != nil {
		return append(found, f)
	}
	if o.kind == kindRoot {
		w.learnList(o)
	}
	found = append(found, w.checkOffers(o)...)
	found = append(found, w.checkReadBack(o)...)
	return found
}

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
	if _, ok := w.events[key(o.url)]; ok {
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

// checkOpenRead checks a GET under /api/ sent without any credentials
// (spec AUTH-2, API-7): it is not refused for want of them.
func (w *world) checkOpenRead(o *observed) *Finding {
	if o.x.Method != http.MethodGet || o.caller.class != callerAnonymous {
		return nil
	}
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
	if msg := halProblem(o.doc); msg != "" {
		return finding("SVC-2", "the answer to %s %s: %s", o.x.Method, o.path, msg)
	}
	for i, item := range hal.Items(o.doc) {
		if msg := halProblem(item); msg != "" {
			return finding("SVC-2", "listed resource %d of the answer to %s %s: %s", i+1, o.x.Method, o.path, msg)
		}
	}
	return nil
}

// halProblem says how doc is not a HAL resource, or "".
func halProblem(doc map[string]any) string {
	v, ok := doc["_links"]
	if !ok {
		return "it has no \"_links\""
	}
	links, ok := v.(map[string]any)
	if !ok || len(links) == 0 {
		return fmt.Sprintf("_links is %s, not an object of links by relation name", value.Describe(v))
	}
	for _, rel := range sortedKeys(links) {
		entries, isList := links[rel].([]any)
		if !isList {
			entries = []any{links[rel]}
		} else if len(entries) == 0 {
			return fmt.Sprintf("the %q entry of _links is an empty array, not a link", rel)
		}
		for _, e := range entries {
			link, ok := e.(map[string]any)
			if href, _ := link["href"].(string); !ok || href == "" {
				return fmt.Sprintf("the %q entry of _links is %s, not a link with an href", rel, value.Describe(e))
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
		for _, rel := range sortedKeys(hal.Links(d)) {
			href := hal.Links(d)[rel]
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
	var found []*Finding
	switch o.kind {
	case kindPage:
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
		switch {
		case c.class == callerValid && !create:
			found = append(found, finding(honourRule(c, "API-4"), "a page of the event list, read by %s, does not offer \"create-new-event\"; it offers %s", c.who(), hal.RelNames(links)))
		case c.class != callerValid && create:
			found = append(found, finding(refusedRule(c, false), "a page of the event list offers \"create-new-event\" to %s, who holds no valid token", c.who()))
		}
		o.checked("API-8")
		for i, item := range hal.Items(o.doc) {
			if _, ok := hal.Links(item)["update-event"]; !ok {
				continue
			}
			manager, known := w.managerOf(o, hal.Links(item)["self"])
			if c.class != callerValid || known && manager != c.account {
				found = append(found, finding(wrongUpdateRule(c), "listed event %d offers \"update-event\" to %s, who does not manage it", i+1, c.who()))
				break
			}
		}
	case kindEvent:
		o.checked("API-8", "SVC-3")
		_, offered := links["update-event"]
		manager, known := w.managerOf(o, "")
		switch {
		case offered && (c.class != callerValid || known && manager != c.account):
			found = append(found, finding(wrongUpdateRule(c), "the event offers \"update-event\" to %s, who does not manage it", c.who()))
		case offered && c.class == callerValid && known && manager == c.account:
			w.offeredManager(o)
		case !offered && c.class == callerValid && known && manager == c.account:
			rule := honourRule(c, "API-8")
			if rule == "API-8" && w.takenByUpdate(o) {
				rule = "API-9" // an update took it from its manager
			}
			found = append(found, finding(rule, "the event does not offer \"update-event\" to %s, who created it and manages it; it offers %s", c.who(), hal.RelNames(links)))
		}
	}
	return found
}

// honourRule is the rule broken when a valid token is not taken for its
// account: rule, but TOK-8 for a token a refresh gave, and SVC-7 for a
// scheme written in another case.
func honourRule(c caller, rule string) string {
	switch {
	case c.tok != nil && c.tok.refreshed:
		return "TOK-8"
	case c.scheme != "Bearer":
		return "SVC-7"
	}
	return rule
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

// sortedKeys are the keys of m, in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
