package audit

import (
	"fmt"
	"net/http"
	"time"
)

// An event that is not there, though the audit saw it created and nobody
// deleted, was removed by a write the target refused: that write's rule
// is the one broken (a refused request changes nothing), and every read
// that finds the event absent shows the same fault.

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

// removedBy returns the refused write to ev sent after since that
// removed it: the last DELETE among them, or else the last of them.
func (w *world) removedBy(ev *event, since time.Time) (refusedWrite, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var last *refusedWrite
	for i := range ev.refusals {
		r := &ev.refusals[i]
		if r.when.start.Before(since) {
			continue
		}
		if last == nil || r.method == http.MethodDelete || last.method != http.MethodDelete {
			last = r
		}
	}
	if last == nil {
		return refusedWrite{}, false
	}
	return *last, true
}
