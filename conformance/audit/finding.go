package audit

import (
	"fmt"
	"strings"

	"eventsvc/conformance/deadlink"
	"eventsvc/conformance/repro"
)

// Finding is an answer that breaks a rule, as the audit tells it.
type Finding struct {
	// Rule is the rule broken.
	Rule string
	// Check names the registry's check that found it: a check of every
	// exchange, or of a walk (WalkOnce and the others).
	Check string
	// Message says what was expected and what came, masked.
	Message string
	// Transcript is the exchange that broke it, masked.
	Transcript string
	// Place is where its exchange was made.
	Place Place
	// Followed is the chain of exchanges the audit sent itself to follow
	// links, the last of them the one that broke the rule; empty when
	// the exchange is the place's own.
	Followed []repro.Exchange
	// Cause, when set, names the fault the finding shows as other
	// findings show it too: one answer served to callers who must be
	// answered differently, the links of one relation that lead
	// elsewhere, a request that removed an event. A run tells the
	// findings of one cause as one.
	Cause string

	scope   *Scope
	at      int // the place's exchange it came from, in the scope's log
	claimed bool
	// leadsTo is, of a link found to lead elsewhere than its relation
	// says, where it leads (key), and rel that relation: a request there
	// by the method the relation is for met that fault.
	leadsTo, rel string
	// stands reports whether what the finding rests on still holds (a
	// token the audit took for valid when it was sent); nil: always.
	stands func() bool
}

// At is the number of the place's exchange the finding came from, as its
// runner numbered it (Observe).
func (f *Finding) At() int { return f.at }

// both is a test that holds when a (if any) and b hold.
func both(a, b func() bool) func() bool {
	if a == nil {
		return b
	}
	return func() bool { return a() && b() }
}

// standing reports whether f still stands.
func (f *Finding) standing() bool { return f.stands == nil || f.stands() }

// Stands reports whether what f rests on still holds: a finding about a
// token the audit took for valid when it was sent stands no more once the
// run learns otherwise.
func (f *Finding) Stands() bool { return f.standing() }

// Log is the exchanges that show the finding again: the place's up to
// the one it came from, then those the audit sent to follow its links.
func (f *Finding) Log() []repro.Exchange {
	if f.scope == nil {
		return f.Followed
	}
	return append(f.scope.Log(f.at), f.Followed...)
}

// AtDeadLink reports whether the exchange the finding came from was at
// a dead link of dead (package deadlink): the run tells that link once,
// as API-10, and the finding says no more.
func (f *Finding) AtDeadLink(dead *deadlink.Log) bool {
	if dead == nil {
		return false
	}
	log := f.Log()
	if len(log) == 0 {
		return false
	}
	return dead.DeadAt(log[len(log)-1].URL) != nil
}

// Holders returns, for every bearer token the exchanges of the finding's
// log send, the account the audit saw it issued to: a reproduction asks
// for such a token again when its log does not.
func (f *Finding) Holders() map[string]string {
	out := map[string]string{}
	if f.scope == nil {
		return out
	}
	w := f.scope.a.world(f.scope.worldNow())
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, x := range f.Log() {
		scheme, cred, _ := strings.Cut(x.Header.Get("Authorization"), " ")
		if t, ok := w.tokens[strings.TrimSpace(cred)]; ok && strings.EqualFold(scheme, "Bearer") && !t.refresh {
			out[strings.TrimSpace(cred)] = t.account
		}
	}
	return out
}

// finding is a Finding about the exchange being checked.
func finding(rule, format string, args ...any) *Finding {
	return &Finding{Rule: rule, Message: fmt.Sprintf(format, args...)}
}

func nilIfNone(f *Finding) []*Finding {
	if f == nil {
		return nil
	}
	return []*Finding{f}
}
