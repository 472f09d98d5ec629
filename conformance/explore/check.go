package explore

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/deadlink"
	"eventsvc/conformance/hal"
	"eventsvc/conformance/jsonvalue"
)

// The oracle: every answer of a sequence is checked against the rules of
// the specification that apply to it, each check naming its rule; a
// server error (5xx) is a finding of its own kind, and so is an answer
// cut by a bound of the run (sequence.play). The checks accept what
// the specification leaves open: any 4xx for a refused token request, 401
// or 403 for a request refused as unauthenticated, a refused event body,
// hrefs relative or absolute, token_type in any case, scope in any order.

// Rules are the rules an exploration's answers are judged by, in the
// catalogue's order: by the registry's checks (package audit), which
// judge every exchange of every sequence, and by the exploration's own,
// among them SVC-1 and TOK-8, which it blames when a valid token is not
// honoured (tokenBlame). API-11, AUTH-7 and TOK-11 are judged only with
// Options.Ref.
var Rules = []string{
	"SVC-1", "SVC-2", "SVC-5", "SVC-7",
	"TOK-1", "TOK-3", "TOK-4", "TOK-5", "TOK-7", "TOK-8", "TOK-10", "TOK-13", "TOK-14", "TOK-15", "TOK-16",
	"API-1", "API-2", "API-3", "API-4", "API-5", "API-6", "API-7", "API-8", "API-9", "API-10", "API-11",
	"AUTH-1", "AUTH-2", "AUTH-3", "AUTH-5", "AUTH-6", "AUTH-7", "TOK-11",
}

// finding is an answer that breaks a rule, a server error, or an answer
// cut by a bound of the run.
type finding struct {
	rule        string // the rule it breaks; "" for a server error or a cut
	serverError bool
	cut         bool
	message     string
	log         int // the exchange it speaks of, in the sequence's log; -1 for none
	// walkBound is a walk through the list stopped past what the list
	// shows it holds (hal.Walk).
	walkBound bool
}

func (f *finding) String() string {
	switch {
	case f.serverError:
		return "server error: " + f.message
	case f.cut:
		return "answer cut: " + f.message
	}
	return f.rule + ": " + f.message
}

// breaks is a finding about answer a (nil for none).
func (s *sequence) breaks(rule string, a *answer, format string, args ...any) *finding {
	f := &finding{rule: rule, message: s.r.redactor.String(fmt.Sprintf(format, args...)), log: -1}
	if a != nil {
		f.log = a.log
		if page := deadlink.ProxyPage(a.status, a.header); page != "" {
			f.message += " (" + page + ")"
		}
	}
	return f
}

// checked counts a check of each rule.
func (s *sequence) checked(rules ...string) {
	for _, r := range rules {
		s.checks[r]++
	}
}

// answered is the check every answer gets: no server error, and, when the
// run checks the reference choices, the OpenAPI document (API-11).
func (s *sequence) answered(a *answer) *finding {
	if a.status >= 500 {
		return &finding{serverError: true, log: a.log, message: fmt.Sprintf("%s %s answered %d", a.method, s.r.redactor.String(a.url.Path), a.status)}
	}
	if a.contractErr != nil {
		s.checked("API-11")
		return s.breaks("API-11", a, "%s (the OpenAPI document is /docs/openapi.json)", firstLine(a.contractErr.Error()))
	}
	if s.r.contract != nil {
		s.checked("API-11")
	}
	return nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// isHAL checks doc, part of answer a, for spec SVC-2 with the registry's
// own judgment (audit.HALProblem): "_links" is an object of links by
// relation name, each with an href.
func (s *sequence) isHAL(a *answer, doc map[string]any, what string) *finding {
	s.checked("SVC-2")
	if doc == nil {
		return s.breaks("SVC-2", a, "%s is not a JSON object (%v)", what, a.jsonErr)
	}
	if msg := audit.HALProblem(doc); msg != "" {
		return s.breaks("SVC-2", a, "%s: %s", what, msg)
	}
	return nil
}

// anonymousRule is the rule that says a caller is served as anonymous on
// a read, and refused on a write: no token (AUTH-3), a token the target
// did not issue (API-2 on reads, AUTH-3 on writes), a refresh token
// (TOK-13), client credentials (AUTH-1).
func anonymousRule(who string, write bool) string {
	switch who {
	case AsRefresh:
		return "TOK-13"
	case AsBasic:
		return "AUTH-1"
	case AsInvalid:
		if !write {
			return "API-2"
		}
	}
	if write {
		return "AUTH-3"
	}
	return "API-3"
}

// listLinks are the links every page of the list offers (API-3, API-4).
var listLinks = []string{"self", "profile", "get-an-event"}

// checkPage checks a page of the event list read by who: served to
// everyone (API-2), HAL with HAL events (SVC-2), the links of API-3 and
// API-4, "create-new-event" to a caller with a valid token and nobody
// else, "update-event" on none of the listed events to a caller who does
// not manage it (API-8).
func (s *sequence) checkPage(a *answer, who, scheme string) *finding {
	s.checked("API-2")
	if a.status < 200 || a.status > 299 {
		rule := "API-2"
		if holdsToken(who) && (a.status == http.StatusUnauthorized || a.status == http.StatusForbidden) {
			rule = s.tokenBlame(who, scheme, "API-2")
		}
		return s.breaks(rule, a, "the event list, read by %s, answered %d", callerText(who), a.status)
	}
	if f := s.isHAL(a, a.doc, "the page of the list"); f != nil {
		return f
	}
	for i, item := range hal.Items(a.doc) {
		if f := s.isHAL(a, item, fmt.Sprintf("listed event %d", i+1)); f != nil {
			return f
		}
	}
	rule := "API-3"
	if holdsToken(who) {
		rule = "API-4"
	}
	s.checked(rule)
	links := a.links()
	for _, rel := range listLinks {
		if _, ok := links[rel]; !ok {
			return s.breaks(rule, a, "the page, read by %s, does not offer %q; it offers %s", callerText(who), rel, hal.RelNames(links))
		}
	}
	_, create := links["create-new-event"]
	switch {
	case holdsToken(who) && !create:
		return s.breaks(s.tokenBlame(who, scheme, "API-4"), a, "the page does not offer \"create-new-event\" to %s, who holds a valid token; it offers %s", callerText(who), hal.RelNames(links))
	case !holdsToken(who) && create:
		r := anonymousRule(who, false)
		if who != AsAnonymous && s.offeredToAnyone(a.url.String(), "create-new-event") {
			r = "API-3" // offered to everyone: what who sent counted for nothing
		}
		s.checked(r)
		return s.breaks(r, a, "the page offers \"create-new-event\" to %s, who holds no valid token", callerText(who))
	}
	s.checked("API-8")
	for i, item := range hal.Items(a.doc) {
		itemLinks := hal.Links(item)
		if _, ok := itemLinks["update-event"]; !ok {
			continue
		}
		ev := s.ownEvent(a.resolve(itemLinks["self"]))
		if !holdsToken(who) || (ev != nil && !manages(who, ev)) {
			return s.breaks("API-8", a, "listed event %d offers \"update-event\" to %s, who does not manage it", i+1, callerText(who))
		}
	}
	return nil
}

// offeredToAnyone reports whether the answer to an anonymous read of
// address offers rel: then a link offered to a caller who sent
// credentials that open nothing (a refresh token, the client's Basic
// credentials) is offered to everyone, and what that caller sent
// counted for nothing; its fault is the link's rule, not theirs.
func (s *sequence) offeredToAnyone(address, rel string) bool {
	a, err := s.send(request{method: http.MethodGet, address: address})
	if err != nil || a.status != http.StatusOK {
		return false
	}
	_, ok := a.links()[rel]
	return ok
}

// ownEvent is the sequence's event at address, or nil.
func (s *sequence) ownEvent(address string) *event {
	for _, ev := range s.m.events {
		if sameAddress(ev.address, address) {
			return ev
		}
	}
	return nil
}

// sameAddress compares two addresses without their fragments.
func sameAddress(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	ua.Fragment, ub.Fragment = "", ""
	return ua.String() == ub.String()
}

// checkEvent checks an answer to a read of ev by who: served to everyone
// (API-7), HAL (SVC-2), "update-event" to its manager and nobody else
// (API-8), and every field last written reads back as written (API-6
// after the creation, API-9 after an update).
func (s *sequence) checkEvent(a *answer, who, scheme string, ev *event) *finding {
	s.checked("API-7")
	if a.status != http.StatusOK {
		rule := "API-7"
		if holdsToken(who) && (a.status == http.StatusUnauthorized || a.status == http.StatusForbidden) {
			rule = s.tokenBlame(who, scheme, "API-7")
		}
		return s.breaks(rule, a, "event #%d, read by %s, answered %d", s.index(ev)+1, callerText(who), a.status)
	}
	if f := s.isHAL(a, a.doc, "the event"); f != nil {
		return f
	}
	if id, ok := a.doc["id"]; ok {
		ev.id = strings.Trim(jsonText(id), `"`)
	}
	links := a.links()
	_, offered := links["update-event"]
	s.checked("API-8")
	switch {
	case manages(who, ev) && !offered:
		rule := s.tokenBlame(who, scheme, "API-8")
		if rule == "API-8" && !s.managerMayUpdate(ev) {
			rule = "API-6" // its creator is not its manager
		}
		return s.breaks(rule, a, "event #%d does not offer \"update-event\" to %s, who created it; it offers %s", s.index(ev)+1, callerText(who), hal.RelNames(links))
	case !manages(who, ev) && offered:
		rule := "API-8"
		if (who == AsRefresh || who == AsBasic) && !s.offeredToAnyone(a.url.String(), "update-event") {
			rule = anonymousRule(who, false)
		}
		return s.breaks(rule, a, "event #%d offers \"update-event\" to %s, who does not manage it", s.index(ev)+1, callerText(who))
	}
	return s.readsBack(a, ev, ev.lastRule)
}

// readsBack checks that every field of ev last written reads back in a as
// written; a field a does not show is not checked. rule is blamed.
func (s *sequence) readsBack(a *answer, ev *event, rule string) *finding {
	s.checked(rule)
	for _, k := range slices.Sorted(maps.Keys(ev.fields)) {
		got, shown := a.doc[k]
		if !shown {
			continue
		}
		if !jsonvalue.SameWritten(ev.fields[k], plain(got)) {
			return s.breaks(rule, a, "%q of event #%d reads back as %s; it was written as %s", k, s.index(ev)+1, jsonvalue.Describe(plain(got)), jsonvalue.Describe(ev.fields[k]))
		}
	}
	return nil
}

// index is ev's place among the sequence's events.
func (s *sequence) index(ev *event) int { return slices.Index(s.m.events, ev) }

// managerMayUpdate sends, as ev's manager with the run's shared token,
// the body ev holds to its address: whether the target takes the creator
// for its manager.
func (s *sequence) managerMayUpdate(ev *event) bool {
	body, _ := json.Marshal(ev.fields)
	a, err := s.send(request{method: http.MethodPut, address: ev.address, auth: bearer("", s.m.accounts[ev.manager].pooled), contentType: "application/json", body: body})
	return err != nil || a.status != http.StatusForbidden
}

// tokenBlame names the rule an answer breaks that treated who's valid
// token as no token: when the list offers that token "create-new-event",
// the target honours it and rule is broken; otherwise the token is not
// honoured, because of how its scheme is spelt (SVC-7), because it came
// from a refresh (TOK-8), or because the API does not know the tokens its
// authorization server issues (SVC-1). When the list offers no token
// "create-new-event", nothing tells and rule is blamed.
func (s *sequence) tokenBlame(who, scheme, rule string) string {
	acct := s.m.accounts[who]
	offered := func(auth string) bool {
		a, err := s.send(request{method: http.MethodGet, address: s.r.events, auth: auth})
		if err != nil || a.status != http.StatusOK {
			return false
		}
		_, ok := a.links()["create-new-event"]
		return ok
	}
	switch {
	case offered(bearer(scheme, acct.access)):
		return rule
	case scheme != "" && offered(bearer("", acct.access)):
		return "SVC-7"
	case !offered(bearer("", acct.pooled)):
		return rule
	case acct.refreshed:
		return "TOK-8"
	}
	return "SVC-1"
}

// callerText names a caller in a message.
func callerText(who string) string {
	return Action{As: who}.caller()
}

// plain turns the json.Numbers of a decoded value into float64s, as a
// reader of JSON takes them.
func plain(v any) any {
	switch t := v.(type) {
	case json.Number:
		if f, err := t.Float64(); err == nil {
			return f
		}
		return t.String()
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = plain(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = plain(e)
		}
		return out
	}
	return v
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
