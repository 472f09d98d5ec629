package throttle

import "time"

// Guard is the lockout as the token endpoint uses it: a Throttle in this
// process, or a RedisGuard shared by every replica. Both keep Throttle's
// rules: an attempt is reserved before its credential is checked, in one
// step with the decision to let it through, and keys are digests.
//
// An implementation that cannot reach its backend returns an error for
// which errors.Is(err, backend.ErrUnavailable) holds, and lets nothing
// through: a lockout that cannot count refuses rather than lets guesses
// pass uncounted.
type Guard interface {
	// Begin is Throttle.Reserve: it reserves an attempt of key, or tells
	// for how much longer key is refused.
	Begin(key Key) (left time.Duration, ok bool, err error)
	// Pass is for a credential known to be right without checking it
	// again: it is refused while key is, as Begin would refuse it;
	// otherwise key's failures are forgotten, as a success forgets them,
	// and nothing is reserved.
	Pass(key Key) (left time.Duration, ok bool, err error)
	// End ends an attempt of Begin: Throttle.Succeeded when succeeded,
	// Throttle.Failed with the wrong secret otherwise (a wrong secret
	// tried lately counts once, RecentWrong). It reports whether this
	// failure locked the key out.
	End(key Key, succeeded bool, wrong string) (locked bool, err error)
}

var _ Guard = (*Throttle)(nil)

// Begin implements Guard with Reserve; it never fails.
func (t *Throttle) Begin(key Key) (time.Duration, bool, error) {
	left, ok := t.Reserve(key)
	return left, ok, nil
}

// Pass implements Guard: Check, and when key may go on, its failures
// forgotten as Succeeded forgets them. It never fails.
func (t *Throttle) Pass(key Key) (time.Duration, bool, error) {
	if t == nil {
		return 0, true, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	e, found := t.entries.get(key)
	if !found {
		return 0, true, nil
	}
	if left, ok := t.allowed(e, t.clock.Now()); !ok {
		return left, false, nil
	}
	e.failures, e.wrong = 0, nil
	if e.pending == 0 {
		t.entries.remove(key)
	}
	return 0, true, nil
}

// End implements Guard with Succeeded or Failed; it never fails. The key
// was locked by this failure when it is refused for longer than Busy
// right after it.
func (t *Throttle) End(key Key, succeeded bool, wrong string) (bool, error) {
	if succeeded {
		t.Succeeded(key)
		return false, nil
	}
	t.Failed(key, wrong)
	left, ok := t.Check(key)
	return !ok && left > Busy, nil
}
