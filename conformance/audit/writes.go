package audit

import (
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"time"
)

// templateVar is a variable of a URI template (RFC 6570).
var templateVar = regexp.MustCompile(`\{([^{}]*)\}`)

// event is an event the audit saw created: where it is, who manages it,
// and every body written to it, taken or refused.
type event struct {
	address  string
	id       string // its "id", as the answer to its creation showed it
	manager  string // the account that created it; "" when not known
	versions []version
	refused  []version
	// refusals are the last writes to it that were refused (refusedWrite):
	// one of them removed it, when it is not there and nobody deleted
	// it.
	refusals []refusedWrite
	// present is when the last answer that showed it there ended.
	present time.Time
	gone    bool // a DELETE of it succeeded: nothing more is told of it
	// lost is set once a write to it succeeded that the audit cannot
	// follow (a caller it cannot tell, a body that is not JSON): what it
	// holds is no longer known, and reads of it are not judged.
	lost bool
	// offered is when a read that offered its manager "update-event" was
	// last sent.
	offered time.Time
	// refusedTo are the tokens of its creator's account whose update of
	// it was refused as not its manager's (creatorRefused), and deniedTo
	// those whose read of it was not offered its update; managerRefused
	// is true once its manager's was refused (after the manager's first
	// taken update).
	refusedTo, deniedTo []*token
	managerRefused      bool
	// createdWith is the token that created it: one whose grant met
	// another account's may act for it, and who manages ev is then not
	// its creator's to tell (givenToAnother).
	createdWith *token
	// matched are the last reads that showed it as a write a read then
	// may show (checkReadBack), at most maxMatched.
	matched []span
	// accepted is set for a creation answered 202: it may not be there
	// yet.
	accepted bool
}

// version is one body written to an event.
type version struct {
	fields map[string]any
	when   span   // real time
	rule   string // for a refused write: the rule that refused it
	create bool
	same   bool // an update that wrote what the event held before it
}

// isWrite reports whether o is a request that changes something, if
// anything: any method but GET, HEAD and OPTIONS.
func (o *observed) isWrite() bool {
	switch o.x.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// outsideFilter reports whether o's path is one the specification leaves
// outside the resource server's rules: the token endpoint, the
// documentation and the static files (spec AUTH-5).
func (o *observed) outsideFilter() bool {
	p := strings.ToLower(o.path)
	for _, prefix := range []string{"/oauth/", "/docs/", "/css/", "/js/", "/images/", "/webjars/"} {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return p == "/favicon.ico"
}

// checkWrite checks a write: one without a valid token is not done (spec
// AUTH-3 under /api/, AUTH-4 elsewhere, TOK-13, AUTH-1, SVC-4); one with
// a valid token creates an event its caller manages (API-6), or updates
// an event its manager updates (API-9), and nobody else (AUTH-6); the
// answer shows what was written.
func (w *world) checkWrite(o *observed) []*Finding {
	c := o.caller
	// Pages read while it was under way may list the events otherwise,
	// even a refused one: a target may do what it refuses.
	// Of every world that shares the target: its pages list the writes
	// of every sequence (Scope.Fork).
	fam := w.family()
	fam.mu.Lock()
	fam.writes = append(fam.writes, span{o.x.Start, o.x.End})
	fam.mu.Unlock()
	ev, known := w.eventAt(o)
	if !known && c.class != callerValid {
		ev, known = w.eventSpelt(o) // a write to a spelling of its address
	}
	if c.class != callerValid && c.class != callerUncertain {
		rule := refusedRule(c, true)
		if !o.underAPI() && rule == "AUTH-3" {
			rule = "AUTH-4"
		}
		o.checked(rule)
		if known {
			w.refuse(ev, o, rule)
			w.noteRefusal(ev, o, rule)
		}
		if o.success() {
			return []*Finding{w.takenWithout(o, rule)}
		}
		return nilIfNone(w.refusedAsRef(o))
	}
	if c.class == callerUncertain && o.underAPI() && o.x.Method == http.MethodPost && w.isList(o) {
		return w.created(o) // whoever sent it, a creation shows what it wrote
	}
	if c.class != callerValid || !o.underAPI() {
		w.lose(ev, known, o)
		w.refusedToAnother(ev, known, o)
		return nil
	}
	switch {
	case o.x.Method == http.MethodPost && w.isList(o):
		return w.created(o)
	case known && o.x.Method == http.MethodPut:
		return w.updated(o, ev)
	case known && w.notManagedBy(ev, c):
		// Another method than PUT at an event, or one asked for by an
		// override header or parameter: taken from another user than
		// its manager, it changed what is the manager's alone.
		o.checked("AUTH-6")
		w.refuse(ev, o, "AUTH-6")
		w.noteRefusal(ev, o, "AUTH-6")
		if o.success() {
			w.lose(ev, known, o)
			return []*Finding{finding("AUTH-6", "%s %s by %s, who does not manage the event, answered %d: only its manager may change it", o.x.Method, o.path, c.who(), o.x.Status)}
		}
	case known && o.x.Method == http.MethodDelete && o.success():
		w.mu.Lock()
		ev.gone = true
		w.mu.Unlock()
	default:
		w.lose(ev, known, o)
	}
	return nil
}

// notManagedBy reports whether ev has a manager the audit knows, and c's
// account is not it.
func (w *world) notManagedBy(ev *event, c caller) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return ev.manager != "" && c.account != ev.manager
}

// lose marks ev, when known, lost once o, a write the audit does not
// follow, succeeded.
func (w *world) lose(ev *event, known bool, o *observed) {
	if !known || !o.success() {
		return
	}
	w.mu.Lock()
	ev.lost = true
	w.mu.Unlock()
}

// refusedToAnother notes o, a refused update of ev by a caller the
// audit cannot tell whose token was issued for another account than
// ev's manager: whether or not the token was still valid, what it sent
// must not read back (AUTH-6).
func (w *world) refusedToAnother(ev *event, known bool, o *observed) {
	c := o.caller
	if !known || o.x.Status < 400 || o.x.Status > 499 || o.x.Method != http.MethodPut || c.tok == nil || c.tok.refresh {
		return
	}
	w.mu.Lock()
	manager := ev.manager
	w.mu.Unlock()
	if manager != "" && c.tok.account != manager {
		w.refuse(ev, o, "AUTH-6")
	}
}

// isList reports whether o went to the event list's address.
func (w *world) isList(o *observed) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.list != "" && listKey(o.url) == w.list
}

// eventSpelt returns the event the audit saw created at an address that
// o's is a spelling of: routers and proxies fold a trailing or a doubled
// slash, dot segments, percent-encoded letters and the case of a path
// together.
func (w *world) eventSpelt(o *observed) (*event, bool) {
	want := looseKey(o.url)
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, ev := range w.events {
		if u, err := url.Parse(k); err == nil && looseKey(u) == want && !ev.gone {
			return ev, true
		}
	}
	return nil, false
}

// looseKey is an address as the loosest router reads it: its path
// decoded, its dot segments removed, its slashes single, without a
// trailing one, in lower case.
func looseKey(u *url.URL) string {
	p := u.Path
	for strings.Contains(p, "//") {
		p = strings.ReplaceAll(p, "//", "/")
	}
	var parts []string
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "", ".":
		case "..":
			if len(parts) > 0 {
				parts = parts[:len(parts)-1]
			}
		default:
			parts = append(parts, seg)
		}
	}
	return strings.ToLower(hostPort(u) + "/" + strings.Join(parts, "/"))
}

// eventAt returns the event the audit saw created at o's address.
func (w *world) eventAt(o *observed) (*event, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ev, ok := w.events[key(o.url)]
	return ev, ok && !ev.gone
}

// updated checks an update of an event the audit saw created: its
// manager's is taken (API-9) and answered with what was written; anyone
// else's is refused with 403 (AUTH-6).
func (w *world) updated(o *observed, ev *event) []*Finding {
	c := o.caller
	w.mu.Lock()
	manager := ev.manager
	w.mu.Unlock()
	if manager == "" || o.reqJSON == nil {
		w.lose(ev, true, o)
		return nil
	}
	if c.account != manager {
		o.checked("AUTH-6")
		w.refuse(ev, o, "AUTH-6")
		w.noteRefusal(ev, o, "AUTH-6")
		switch {
		case o.success():
			return w.updatedAsManager(c, manager, fmt.Sprintf("%s updated an event managed by %s: %d", c.who(), manager, o.x.Status))
		case o.x.Status == http.StatusForbidden:
			w.noteRefusedNotManager(c)
		case o.x.Status == http.StatusUnauthorized:
			return w.notHonoured(c, o, ev.address, "AUTH-6", ev, fmt.Sprintf("the update of an event by %s, who does not manage it, answered 401, not 403: the token is valid", c.who()))
		case notThere(o.x.Status):
			return []*Finding{finding("AUTH-6", "the update of an event by %s, who does not manage it, answered %d, not 403", c.who(), o.x.Status)}
		}
		return nil
	}
	o.checked("API-9")
	switch {
	case o.success():
		v := version{fields: storedAs(written(o.reqJSON), o.doc), when: span{o.x.Start, o.x.End}}
		w.mu.Lock()
		// One that writes what the event held (a creator's update of it
		// as it is) changes nothing, and takes no link (takenByUpdate);
		// it still orders the writes a read may show.
		v.same = reflect.DeepEqual(ev.versions[len(ev.versions)-1].fields, v.fields)
		ev.versions = append(ev.versions, v)
		w.updatedWith[c.account+" "+ev.address] = append(w.updatedWith[c.account+" "+ev.address], useOf(c, v.when))
		id := ev.id
		w.mu.Unlock()
		if sent, ok := idText(o.reqJSON["id"]); ok && sent != id {
			if shown, _ := idText(o.doc["id"]); shown != "" {
				if f := w.ownedTaken(o, shown, "", "API-9", "the update"); f != nil {
					return []*Finding{f}
				}
			}
		}
		if o.doc != nil {
			return nilIfNone(shownAsWritten(o.doc, []version{v}, "API-9", "the answer to the update"))
		}
	case o.x.Status == http.StatusForbidden && !c.tok.refreshed && !w.updatedBefore(ev, o):
		// A token whose grant met another account's may act for it: its
		// refusal tells nothing of who manages ev (refusedOwn), which
		// creatorRefused weighs when it is asked.
		w.mu.Lock()
		ev.refusedTo = append(ev.refusedTo, c.tok)
		w.refusedCreators = append(w.refusedCreators, c.tok)
		w.mu.Unlock()
		o.checked("API-6")
		return w.refusedOwn(c, ev, finding("API-6", "the update of an event by %s, who created it, was refused as not its manager's: 403; the caller who creates an event becomes its manager", c.who()))
	case o.x.Status == http.StatusUnauthorized || o.x.Status == http.StatusForbidden:
		w.mu.Lock()
		ev.managerRefused = true
		w.mu.Unlock()
		return w.managerRefused(c, ev, fmt.Sprintf("the update of an event by %s, its manager, was refused: %d", c.who(), o.x.Status))
	case notThere(o.x.Status):
		return []*Finding{finding("API-9", "the update of an event by %s, its manager, answered %d", c.who(), o.x.Status)}
	}
	return nil
}

// bodyRefused reports whether status, of a write refused, is one it may
// be refused with whatever the rules of callers say: a body the target
// refuses as invalid (400, 422: its validation, which the specification
// leaves open), the target protecting itself (429), or a server error,
// which the runners tell as a finding of its own kind.
func bodyRefused(status int) bool {
	return status == http.StatusBadRequest || status == http.StatusUnprocessableEntity || status == http.StatusTooManyRequests || status >= 500
}

// notThere reports whether status answers a write as if its address took
// none: 404 or 405, which no caller's rule allows of the event list or
// of an event.
func notThere(status int) bool {
	return status == http.StatusNotFound || status == http.StatusMethodNotAllowed
}

// managerRefused are the findings of an update by its manager c
// refused, of which the one the run's evidence bears out stands: for a
// password grant's token sent with "Bearer", API-9, but none when the
// creator's own update was refused as not the manager's (API-6, told by
// its own finding); for a token sent another way, the one of
// honourBlames that the account's updates of the event bear out, API-6
// when the creator's plain update was refused, else nothing the audit
// can tell.
func (w *world) managerRefused(c caller, ev *event, msg string) []*Finding {
	blames := honourBlames(c)
	if len(blames) == 0 {
		f := finding("API-9", "%s", msg)
		f.stands = func() bool { return !w.refusedCreator(ev) }
		return []*Finding{f}
	}
	decide := func() string {
		w.mu.Lock()
		uses := append([]use(nil), w.updatedWith[c.account+" "+ev.address]...)
		w.mu.Unlock()
		for i, st := range standing(blames, uses) {
			if st {
				return blames[i].rule
			}
		}
		if w.refusedCreator(ev) {
			return "API-6"
		}
		return ""
	}
	var out []*Finding
	for _, b := range append(blames, blame{rule: "API-6"}) {
		r := b.rule
		f := finding(r, "%s", msg)
		if r == "API-6" {
			f.Message += "; the creator's own update, with a token of a password grant, is refused too: the caller who creates an event becomes its manager"
		}
		f.stands = func() bool { return decide() == r }
		out = append(out, f)
	}
	return out
}

// updatedBefore reports whether an update of ev was taken before o was
// sent.
func (w *world) updatedBefore(ev *event, o *observed) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, v := range ev.versions {
		if !v.create && v.when.end.Before(o.x.Start) {
			return true
		}
	}
	return false
}

// refuse notes a write to ev that its rule refuses: what it sent must not
// read back.
func (w *world) refuse(ev *event, o *observed, rule string) {
	if o.reqJSON == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	ev.refused = append(ev.refused, version{fields: written(o.reqJSON), when: span{o.x.Start, o.x.End}, rule: rule})
}

// managerOf returns the manager of the event at o's address, or at the
// address href (resolved against o's) when it is given, when the audit
// knows it.
func (w *world) managerOf(o *observed, href string) (string, bool) {
	u := o.url
	if href != "" {
		var ok bool
		if u, ok = o.resolve(href); !ok {
			return "", false
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	ev, ok := w.events[key(u)]
	if !ok || ev.manager == "" {
		return "", false
	}
	return ev.manager, true
}

// offeredManager notes that a read, o, offered the event's manager
// "update-event".
func (w *world) offeredManager(o *observed) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ev, ok := w.events[key(o.url)]
	if !ok {
		return
	}
	if o.x.Start.After(ev.offered) {
		ev.offered = o.x.Start // it held then, or a little after
	}
	if len(ev.versions) == 1 {
		w.managersOffered = true
	}
}

// takenByUpdate reports whether an update of the event at o's address
// took "update-event" from its manager: a read offered it, then an
// update, sent before o's answer came (o may show it), ended after that
// read began (the target may have applied it after answering the read:
// the audit follows links beside the scenarios' writes).
func (w *world) takenByUpdate(o *observed) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	ev, ok := w.events[key(o.url)]
	if !ok || ev.offered.IsZero() && !w.managersOffered {
		return false
	}
	for _, v := range ev.versions {
		if !v.create && !v.same && v.when.end.After(ev.offered) && v.when.start.Before(o.x.End) {
			return true
		}
	}
	return false
}

// takenWithout is the finding of rule about o, a write taken from a
// caller without a valid token, which must have been refused. Taken from
// a caller with credentials that open nothing (a refresh token, the
// client's Basic ones, a token made up or sent elsewhere), it stands
// only while the same write is not seen taken from an anonymous caller:
// a target that takes it from anyone breaks AUTH-3 (AUTH-4 outside the
// API), whatever the credentials sent.
func (w *world) takenWithout(o *observed, rule string) *Finding {
	c := o.caller
	f := finding(rule, "%s %s by %s answered %d: it must be refused, and change nothing", o.x.Method, o.path, c.who(), o.x.Status)
	key := o.x.Method + " " + o.url.EscapedPath()
	w.mu.Lock()
	defer w.mu.Unlock()
	if c.class == callerAnonymous {
		w.takenFromAnyone[key] = true
		return f
	}
	f.stands = func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return !w.takenFromAnyone[key]
	}
	return f
}
