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
	// Peek is Throttle.Check: what Begin would answer, reserving nothing.
	Peek(key Key) (left time.Duration, ok bool, err error)
	// End ends an attempt of Begin: Throttle.Succeeded when succeeded,
	// Throttle.Failed otherwise. It reports whether this failure locked
	// the key out.
	End(key Key, succeeded bool) (locked bool, err error)
}

var _ Guard = (*Throttle)(nil)

// Begin implements Guard with Reserve; it never fails.
func (t *Throttle) Begin(key Key) (time.Duration, bool, error) {
	left, ok := t.Reserve(key)
	return left, ok, nil
}

// Peek implements Guard with Check; it never fails.
func (t *Throttle) Peek(key Key) (time.Duration, bool, error) {
	left, ok := t.Check(key)
	return left, ok, nil
}

// End implements Guard with Succeeded or Failed; it never fails. The key
// was locked by this failure when it is refused for longer than Busy
// right after it.
func (t *Throttle) End(key Key, succeeded bool) (bool, error) {
	if succeeded {
		t.Succeeded(key)
		return false, nil
	}
	t.Failed(key)
	left, ok := t.Check(key)
	return !ok && left > Busy, nil
}
