package audit

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
)

// One answer served to callers who must be answered differently (a page
// of the list with and without "create-new-event", an event with and
// without "update-event") is one fault however many reads show it: a
// cache whose key forgets who asked is the common one. The findings of
// what such an answer offers its caller name that cause (Finding.Cause),
// so that a run tells them as one.

// sharedAnswerCause is the cause of those findings.
const sharedAnswerCause = "answers given to one caller are served, byte for byte, to callers who must be answered otherwise"

// maxServed bounds the answers kept for one address, each a body given
// to callers who must be offered one thing.
const maxServed = 4

// servedAnswer is an answer whose links depend on its caller, as kept:
// its body's digest, its caller, and what the caller must be offered.
type servedAnswer struct {
	digest [sha256.Size]byte
	who    string
	offers string
}

// served are the answers kept, by address: each world its own.
type served map[string][]servedAnswer

// noteServed keeps o's answer at address, read by a caller who must be
// offered what offers says ("anonymous", "valid", "manager", …); "" keeps
// nothing.
func (w *world) noteServed(address, offers string, o *observed) {
	if offers == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.served == nil {
		w.served = served{}
	}
	s := servedAnswer{digest: sha256.Sum256(o.x.RespBody), who: o.caller.who(), offers: offers}
	kept := slices.DeleteFunc(w.served[address], func(k servedAnswer) bool { return k.digest == s.digest && k.offers == s.offers })
	kept = append(kept, s)
	if len(kept) > maxServed {
		kept = kept[len(kept)-maxServed:]
	}
	w.served[address] = kept
}

// sharedWith returns the caller an earlier answer at address, the same
// byte for byte as o's, was given to, who must be offered otherwise than
// o's caller ("" for none).
func (w *world) sharedWith(address, offers string, o *observed) string {
	if offers == "" {
		return ""
	}
	digest := sha256.Sum256(o.x.RespBody)
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.served[address] {
		if s.digest == digest && s.offers != offers {
			return s.who
		}
	}
	return ""
}

// shared names the cause of each of found, findings about o's answer at
// address, that is about an action offered or not (create-new-event,
// update-event: what depends on the caller), when that answer is the one
// given earlier to a caller who must be offered otherwise, and says so in
// its message.
func (w *world) shared(found []*Finding, address, offers string, o *observed) {
	if len(found) == 0 {
		return
	}
	other := w.sharedWith(address, offers, o)
	if other == "" {
		return
	}
	w.noteSharedRead(o.caller)
	for _, f := range found {
		if f.Cause == "" && (strings.Contains(f.Message, `"create-new-event"`) || strings.Contains(f.Message, `"update-event"`)) {
			f.Cause = sharedAnswerCause
			f.Message += fmt.Sprintf(" (the same answer, byte for byte, as the one given to %s at the same address)", other)
		}
	}
}
