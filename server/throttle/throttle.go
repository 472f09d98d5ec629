// Package throttle slows down guessing: it counts failures per key (a
// client address and a username, say) and refuses a key for a while once it
// has failed too often, as RFC 6749 §4.3.2 asks of a token endpoint
// (https://www.rfc-editor.org/rfc/rfc6749#section-4.3.2).
package throttle

import (
	"sync"
	"time"

	"github.com/patrickmn/go-cache"

	"eventsvc/server/clock"
)

// Default limits: 10 failures within 15 minutes lock a key for 5 minutes.
const (
	DefaultFailures = 10
	DefaultWindow   = 15 * time.Minute
	DefaultLockout  = 5 * time.Minute
)

// Throttle counts failures per key. It is safe for concurrent use. A nil
// *Throttle refuses nothing.
type Throttle struct {
	failures        int
	window, lockout time.Duration
	clock           clock.Clock

	mu      sync.Mutex
	entries *cache.Cache // key → *entry; expires when nothing is left to remember
}

type entry struct {
	count        int
	since        time.Time // the first failure of the window
	blockedUntil time.Time
}

// New returns a Throttle that locks a key for lockout once it has failed
// failures times within window, reading the time from c.
func New(failures int, window, lockout time.Duration, c clock.Clock) *Throttle {
	return &Throttle{
		failures: failures, window: window, lockout: lockout, clock: c,
		entries: cache.New(window+lockout, time.Minute),
	}
}

// Blocked reports whether key is locked, and for how much longer.
func (t *Throttle) Blocked(key string) (time.Duration, bool) {
	if t == nil {
		return 0, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	v, ok := t.entries.Get(key)
	if !ok {
		return 0, false
	}
	left := v.(*entry).blockedUntil.Sub(t.clock.Now())
	return left, left > 0
}

// Fail counts a failure of key, and locks it when that makes too many.
func (t *Throttle) Fail(key string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.clock.Now()
	e := &entry{since: now}
	if v, ok := t.entries.Get(key); ok {
		e = v.(*entry)
	}
	if now.Sub(e.since) > t.window {
		e.count, e.since = 0, now
	}
	e.count++
	if e.count >= t.failures {
		e.blockedUntil = now.Add(t.lockout)
		e.count, e.since = 0, now
	}
	t.entries.Set(key, e, cache.DefaultExpiration)
}

// Reset forgets the failures of key, after a success.
func (t *Throttle) Reset(key string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.entries.Delete(key)
}
