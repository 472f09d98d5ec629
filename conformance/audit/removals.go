package audit

import (
	"fmt"
	"net/http"
	"time"
)

// An event that is not there, though the audit saw it created and nobody
// deleted, after a DELETE the target refused, with no answer between that
// showed it there, was removed by that DELETE: its rule is the one broken
// (a refused request changes nothing), and every read that finds the
// event absent shows the same fault.

// maxRefusals bounds the refused writes kept of one event.
const maxRefusals = 8

// refusedWrite is a write to an event that was refused.
type refusedWrite struct {
	when    span
	rule    string // the rule that refuses it
	request string // the request, for a message: method, path and caller
	method  string
	status  int
}

// noteRefusal keeps o, a write to ev that rule refuses, answered with a
// refusedWrite: one that was not refused breaks rule on its own.
func (w *world) noteRefusal(ev *event, o *observed, rule string) {
	if o.success() {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	r := refusedWrite{when: span{o.x.Start, o.x.End}, rule: rule, method: o.x.Method, status: o.x.Status,
		request: fmt.Sprintf("%s %s by %s", o.x.Method, o.path, o.caller.who())}
	ev.refusals = append(ev.refusals, r)
	if len(ev.refusals) > maxRefusals {
		ev.refusals = ev.refusals[len(ev.refusals)-maxRefusals:]
	}
}

// removedBy returns the refused DELETE of ev that removed it, as o, a
// read that found it gone, shows: the last one begun after the last
// answer that showed ev there (and after its creation, since) and before
// o's answer, that the target did not answer as if ev were already gone
// (404, 410). A refused write of another method, or none, removed
// nothing the audit can tell.
func (w *world) removedBy(ev *event, since time.Time, o *observed) (refusedWrite, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if ev.present.After(since) {
		since = ev.present
	}
	var last *refusedWrite
	for i := range ev.refusals {
		r := &ev.refusals[i]
		if r.method != http.MethodDelete || r.status == http.StatusNotFound || r.status == http.StatusGone ||
			r.when.start.Before(since) || !r.when.start.Before(o.x.End) {
			continue
		}
		last = r
	}
	if last == nil {
		return refusedWrite{}, false
	}
	return *last, true
}

// notePresent notes the end of o, an answer that showed an event the
// audit saw created there: a refused request begun before it removed
// nothing.
func (w *world) notePresent(o *observed) {
	ev, ok := w.eventAt(o)
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if o.x.End.After(ev.present) {
		ev.present = o.x.End
	}
}
