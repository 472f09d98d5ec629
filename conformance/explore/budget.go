package explore

import "eventsvc/conformance/mutate"

// The budgets of events and failed logins that bound what a run may
// leave on the target or cost its accounts (Options.MaxEvents,
// Options.FailedLogins).

// eventsLeft reports whether sequences may still draw creations: up to
// half of MaxEvents, beside what the catalogue pass's variants took (a
// quarter at most), the rest kept for shrinking.
func (r *runner) eventsLeft() bool {
	return r.created.Load()-r.passEvents.Load() < int64(r.o.MaxEvents)/2
}

// reservePassEvent counts an event a variant of the catalogue pass may
// create, if its quarter of MaxEvents and MaxEvents allow.
func (r *runner) reservePassEvent() bool {
	if r.passEvents.Add(1) > int64(r.o.MaxEvents)/4 || !r.reserveEvent() {
		r.passEvents.Add(-1)
		return false
	}
	return true
}

// reserveEvent counts an event about to be created, if MaxEvents allows.
func (r *runner) reserveEvent() bool {
	if r.created.Add(1) > int64(r.o.MaxEvents) {
		r.created.Add(-1)
		return false
	}
	return true
}

// failedLoginsLeft reports whether a wrong login may still be drawn.
func (r *runner) failedLoginsLeft() bool { return r.failedLogins.Load() < int64(r.o.FailedLogins) }

// failedLoginsLeftBeside reports whether a wrong login may be drawn
// with kept failed logins still left after it.
func (r *runner) failedLoginsLeftBeside(kept int64) bool {
	return r.failedLogins.Load()+kept < int64(r.o.FailedLogins)
}

// reserveFailedLogin counts a wrong login about to be sent, if the budget
// allows.
func (r *runner) reserveFailedLogin() bool {
	if r.failedLogins.Add(1) > int64(r.o.FailedLogins) {
		r.failedLogins.Add(-1)
		return false
	}
	return true
}

// reserveEvent counts an event the sequence is about to create, from
// the catalogue pass's quarter for a sequence of the pass, if the budget
// allows.
func (s *sequence) reserveEvent() bool {
	if s.pass {
		return s.r.reservePassEvent()
	}
	return s.r.reserveEvent()
}

// nearMissHeadLeft is how many near-misses of the head of the
// credentials' (mutate.CredentialNearMissHead), within the budget of
// failed logins, no sequence has tried to send yet: the budget keeps
// them before another variant that may fail a login.
func (r *runner) nearMissHeadLeft() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return max(0, int64(min(mutate.CredentialNearMissHead, r.o.FailedLogins)-len(r.headTried)))
}
