package audit

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"eventsvc/conformance/hal"
	"eventsvc/conformance/jsonvalue"
)

// Creations: an event a creation made is its caller's, at an address and
// with an id of its own, there until deleted, and shows what was written
// (spec API-6); a valid token's creation is not refused as
// unauthenticated.

// created learns an event a valid token, or a caller the audit cannot
// tell, created, and checks it: a new event at an address of its own
// (API-6), whose answer shows what was written.
func (w *world) created(o *observed) []*Finding {
	if !o.success() {
		return w.creationRefused(o)
	}
	if o.reqJSON == nil {
		return nil
	}
	o.checked("API-6")
	address := o.x.RespHeader.Get("Location")
	if address == "" && o.doc != nil {
		address = hal.Links(o.doc)["self"]
	}
	u, ok := o.resolve(address)
	if address == "" || !ok {
		return nil // nothing tells where it is: it cannot be followed up
	}
	v := version{fields: storedAs(written(o.reqJSON), o.doc), when: span{o.x.Start, o.x.End}, create: true}
	id, _ := idText(o.doc["id"])
	w.mu.Lock()
	if c := o.caller; c.class == callerValid {
		w.createdWith[c.account] = append(w.createdWith[c.account], useOf(c, v.when))
	}
	k := key(u)
	before, twice := w.events[k]
	var sameID, made *event
	if !twice {
		for _, other := range w.events {
			if id != "" && other.id == id {
				sameID = other
			}
		}
		made = &event{address: k, id: id, manager: creator(o.caller), versions: []version{v}, accepted: o.x.Status == http.StatusAccepted,
			createdWith: o.caller.tok}
		w.events[k] = made
	}
	w.mu.Unlock()
	if f := w.ownedTaken(o, id, u.Path, "API-6", "the creation"); f != nil {
		return []*Finding{f}
	}
	switch {
	case twice:
		w.confused(before)
		return []*Finding{finding("API-6", "the creation was answered with the address of an event %s (%s): two creations made one event", createdWhen(before, v), address)}
	case sameID != nil:
		w.confused(sameID, made)
		return []*Finding{finding("API-6", "the creation was answered with the id %s of an event %s (%s): two creations made one event", id, createdWhen(sameID, v), sameID.address)}
	}
	if o.doc != nil {
		if f := shownAsWritten(o.doc, []version{v}, "API-6", "the answer to the creation"); f != nil {
			return []*Finding{f}
		}
	}
	return nil
}

// confused forgets what the audit knew of events two creations made
// one: who manages them and what they hold, which their reads no longer
// tell apart from the creation's fault (API-6, told once).
func (w *world) confused(events ...*event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, ev := range events {
		ev.manager, ev.lost = "", true
	}
}

// createdWhen says when ev was created, beside the creation v: at the
// same time, when their requests overlapped, or before.
func createdWhen(ev *event, v version) string {
	if len(ev.versions) > 0 {
		if ev.versions[0].when.meets(v.when) {
			return "created at the same time"
		}
	}
	return "created before"
}

// checkGone checks a read of an event the audit saw created and nobody
// deleted, nor wrote in a way it cannot follow (API-6): it is there. A
// creation answered 202 (accepted, not yet done) is not judged so.
func (w *world) checkGone(o *observed) *Finding {
	ev, ok := w.eventAt(o)
	if !ok {
		return nil
	}
	w.mu.Lock()
	absent, created := ev.mayBeAbsent(), ev.versions[0].when
	w.mu.Unlock()
	if absent || o.x.Start.Before(created.end) || w.a.writing.unsure(ev.address) {
		return nil // a write to it that got no answer may have deleted it
	}
	if r, ok := w.removedBy(ev, created.end, o); ok {
		o.checked(r.rule)
		f := finding(r.rule, "the event created at %s is not there: reading it answered %d, after %s was answered %d: a refused request must change nothing, and this one removed the event", ev.address, o.x.Status, r.request, r.status)
		f.Cause = fmt.Sprintf("the event at %s removed by %s, refused", ev.address, r.request)
		return f
	}
	o.checked("API-6")
	return finding("API-6", "the event created at %s is not there: reading it answered %d", ev.address, o.x.Status)
}

// lostEvent reports whether y, a read answered 404 or 410, is of an
// event the audit saw created and nobody deleted.
func (w *world) lostEvent(y *observed) bool {
	if y.x.Status != http.StatusNotFound && y.x.Status != http.StatusGone {
		return false
	}
	ev, ok := w.eventAt(y)
	if !ok {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return !ev.mayBeAbsent()
}

// mayBeAbsent reports whether ev may not be there: deleted, written in a
// way the audit cannot follow, or accepted (202) and not yet done. w.mu
// is held.
func (ev *event) mayBeAbsent() bool { return ev.gone || ev.lost || ev.accepted }

// creationRefused are the findings of a creation by a valid token that
// the target did not take (API-6): refused as unauthenticated (401), the
// rule of honourBlames that the account's creations bear out for a token
// sent another way; answered as if the list took no creation (notThere),
// API-6. Forbidden (403) is not judged: a target may cap what one account
// creates, as the reference server does.
func (w *world) creationRefused(o *observed) []*Finding {
	c := o.caller
	if c.class != callerValid || o.x.Status != http.StatusUnauthorized && !notThere(o.x.Status) {
		return nil
	}
	o.checked("API-6")
	if notThere(o.x.Status) {
		return []*Finding{finding("API-6", "a creation by %s answered %d", c.who(), o.x.Status)}
	}
	return honourFindings(c, "API-6", fmt.Sprintf("a creation by %s was refused: %d", c.who(), o.x.Status), func() []use {
		w.mu.Lock()
		defer w.mu.Unlock()
		return slices.Clone(w.createdWith[c.account])
	})
}

// creator is the account an event that c created is managed by: that of
// its token, when the audit saw it issued, even one it cannot tell is
// still valid (the target took it); "" when not known.
func creator(c caller) string {
	if c.account == "" && c.tok != nil && !c.tok.refresh {
		return c.tok.account
	}
	return c.account
}

// ownedNames are the fields of an event the service owns, not its
// caller: its id, its links and what it embeds, and the names a store
// might give its manager. A write's body that sends them sends nothing
// the event reads back (written), and the service takes none of them
// (ownedTaken).
var ownedNames = []string{"id", "_links", "_embedded", "manager", "managerId", "owner"}

// written is what a write's body writes to the event: its fields but
// those the service owns.
func written(body map[string]any) map[string]any {
	out := make(map[string]any, len(body))
	for k, v := range body {
		if !slices.Contains(ownedNames, k) {
			out[k] = v
		}
	}
	return out
}

// storedAs is fields, what a write sent, with each value that the
// answer to the write, doc, shows as a JSON binder reads it by default
// (jsonvalue.Stored: a fraction as a whole number, null as a type's
// default) as the answer shows it: what the service stored, which the
// reads after it show.
func storedAs(fields, doc map[string]any) map[string]any {
	for k, sent := range fields {
		if got, shown := doc[k]; shown && !jsonvalue.SameWritten(sent, got) && jsonvalue.Stored(sent, got) {
			fields[k] = got
		}
	}
	return fields
}

// ownedTaken is a finding of rule when the write o, whose answer shows
// the id id (and, of a creation, whose event is at path), took the id its
// body sent: the service owns an event's id (OWASP API3:2023, mass
// assignment).
func (w *world) ownedTaken(o *observed, id, path, rule, what string) *Finding {
	sent, ok := idText(o.reqJSON["id"])
	if !ok {
		return nil
	}
	o.checked(rule)
	if id == sent || path != "" && strings.HasSuffix(path, "/"+sent) {
		root := w.family() // a sequence's world is a fork: the fault is the target's
		root.mu.Lock()
		root.ownedIDs[sent] = true
		root.mu.Unlock()
		return finding(rule, "%s sent the id %s in its body, and the event took it: the service owns an event's id", what, sent)
	}
	return nil
}

// showsOwnedID reports whether doc, a resource, shows an id a write sent
// that the target took (ownedTaken).
func (w *world) showsOwnedID(doc map[string]any) bool {
	id, ok := idText(doc["id"])
	if !ok {
		return false
	}
	root := w.family()
	root.mu.Lock()
	defer root.mu.Unlock()
	return root.ownedIDs[id]
}

// refusedCreator reports whether an update of ev by its creator was
// refused as not its manager's, or, while no event offered its manager
// "update-event", any creator's was.
func (w *world) refusedCreator(ev *event) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return ev != nil && (w.anyPlain(ev.refusedTo) || w.refusedBeside(ev) || w.givenToAnother(ev) != "") || w.anyPlain(w.refusedCreators) && !w.managersOffered
}

// anyPlain reports whether one of tokens is plain (plainToken): what it
// was refused tells what its account may.
func (w *world) anyPlain(tokens []*token) bool {
	return slices.ContainsFunc(tokens, func(t *token) bool { return t != nil && w.plainToken(t, nil) })
}

// plainCreation reports whether the token that created ev is plain, or
// not known: the audit may take its account for ev's manager.
func (w *world) plainCreation(ev *event) bool {
	return ev.createdWith == nil || w.plainToken(ev.createdWith, nil)
}

// givenToAnother returns the account ev's creation gave it to, when
// creations met: ev was created at the same moment as an event of that
// account, which a read was offered ev's update, where a read by ev's
// creator was not, with a token whose grant met no other account's, as
// the token that created it ("" when not). w.mu is held.
func (w *world) givenToAnother(ev *event) string {
	if ev.manager == "" || !w.anyPlain(ev.deniedTo) || !w.plainCreation(ev) {
		return ""
	}
	for _, o := range w.createdMeeting(ev) {
		if o.manager != "" && o.manager != ev.manager && w.plainCreation(o) && len(w.offered[o.manager+" "+ev.address]) > 0 {
			return o.manager
		}
	}
	return ""
}

// createdMeeting are the events the audit saw created at the same moment
// as ev, ev aside: creations that met. w.mu is held.
func (w *world) createdMeeting(ev *event) []*event {
	c, ok := createdAt(ev)
	if !ok {
		return nil
	}
	var out []*event
	for _, o := range w.events {
		if when, ok := createdAt(o); ok && o != ev && when.meets(c) {
			out = append(out, o)
		}
	}
	return out
}

// createdAt is when the audit saw ev created; false when it did not.
func createdAt(ev *event) (span, bool) {
	if len(ev.versions) == 0 || !ev.versions[0].create {
		return span{}, false
	}
	return ev.versions[0].when, true
}

// mixedUp is the finding of ev's creation that gave it to another
// account than its creator when creations met (givenToAnother): API-6,
// standing once the reads bear it out and no refused update of its
// creator's told it already.
func (w *world) mixedUp(ev *event) *Finding {
	f := finding("API-6", "the event created at %s was given to another account than its creator, whose creation met it: its creator's read is not offered its update, that account's is; the caller who creates an event becomes its manager", ev.address)
	f.stands = func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return !w.anyPlain(ev.refusedTo) && w.givenToAnother(ev) != ""
	}
	return f
}

// refusedBeside reports whether ev was created at the same moment as an
// event of another account, and an event its creator created at that
// moment too was refused to its creator as not the manager's: creations
// that met mixed up who manages them (API-6, told by that refusal), and
// what ev offers its creator is that fault's, not its links'. w.mu is
// held.
func (w *world) refusedBeside(ev *event) bool {
	if ev.manager == "" {
		return false
	}
	met, refused := false, false
	for _, o := range w.createdMeeting(ev) {
		met = met || o.manager != "" && o.manager != ev.manager
		refused = refused || o.manager == ev.manager && w.anyPlain(o.refusedTo)
	}
	return met && refused
}

// managerRefusedAt reports whether an update of ev by its manager was
// refused.
func (w *world) managerRefusedAt(ev *event) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return ev != nil && ev.managerRefused
}
