// Package throttle slows down guessing: it counts attempts per key (a
// client address and a username, say) and refuses a key for a while once it
// has failed too often, as RFC 6749 §4.3.2 asks of a token endpoint
// (https://www.rfc-editor.org/rfc/rfc6749#section-4.3.2).
//
// An attempt is counted when it is allowed, before the credential is
// checked, in the same critical section as the decision: however many
// requests arrive at once, at most the allowed number are let through in a
// window. A success forgets the key. The keys are fixed-size digests and
// their number is bounded (the least recently used is forgotten first), so
// that a flood of failures with huge or unique names cannot grow the
// memory without bound.
package throttle

import (
	"container/list"
	"crypto/sha256"
	"sync"
	"time"

	"eventsvc/server/clock"
)

// Default limits: 10 failures within 15 minutes lock a key for 5 minutes;
// at most 100,000 keys are remembered (some 300 bytes each, 30 MB in all).
const (
	DefaultFailures = 10
	DefaultWindow   = 15 * time.Minute
	DefaultLockout  = 5 * time.Minute
	DefaultMaxKeys  = 100_000
)

// MaxNameLen is how much of each part of a key KeyOf takes into account:
// longer parts are cut to it before they are digested. Callers refuse
// names that long before they get here.
const MaxNameLen = 512

// Key identifies what is counted: a SHA-256 digest, whatever the size of
// the names it is made of.
type Key [sha256.Size]byte

// KeyOf returns the Key of parts, such as a kind ("user"), a client
// address and a name; each part is cut to MaxNameLen bytes first.
func KeyOf(parts ...string) Key {
	h := sha256.New()
	for _, p := range parts {
		if len(p) > MaxNameLen {
			p = p[:MaxNameLen]
		}
		// The length first, so that parts cannot run into each other.
		n := len(p)
		_, _ = h.Write([]byte{byte(n >> 8), byte(n)})
		_, _ = h.Write([]byte(p))
	}
	var k Key
	h.Sum(k[:0])
	return k
}

// Limits configure a Throttle.
type Limits struct {
	// Failures within Window lock a key for Lockout. At least 1.
	Failures        int
	Window, Lockout time.Duration
	// MaxKeys bounds how many keys are remembered; when a new key would
	// make more, the least recently used one is forgotten. At least 1.
	MaxKeys int
}

// Throttle counts attempts per key. It is safe for concurrent use. A nil
// *Throttle refuses nothing.
type Throttle struct {
	limits Limits
	clock  clock.Clock

	mu      sync.Mutex
	entries map[Key]*list.Element // of *entry
	order   list.List             // most recently used first
}

type entry struct {
	key          Key
	count        int       // attempts of the window not followed by a success
	since        time.Time // the first attempt of the window
	blockedUntil time.Time
	touched      time.Time // the last attempt, allowed or not
}

// New returns a Throttle with the given limits, reading the time from c.
// Limits below their minimum are raised to it.
func New(l Limits, c clock.Clock) *Throttle {
	l.Failures = max(l.Failures, 1)
	l.MaxKeys = max(l.MaxKeys, 1)
	return &Throttle{limits: l, clock: c, entries: map[Key]*list.Element{}}
}

// Reserve decides whether key may make one more attempt. When it may, the
// attempt is counted as a failure at once, in the same critical section,
// and ok is true; the caller checks the credential and calls Reset on a
// success. When it may not, left tells for how much longer.
//
// The attempt that reaches the limit is allowed and starts the lockout:
// with Failures 10, ten attempts are let through in a window and the
// eleventh is refused, however many arrive at once.
func (t *Throttle) Reserve(key Key) (left time.Duration, ok bool) {
	if t == nil {
		return 0, true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.clock.Now()
	t.expire(now)
	e := t.touch(key, now)
	if left := e.blockedUntil.Sub(now); left > 0 {
		return left, false
	}
	if now.Sub(e.since) > t.limits.Window {
		e.count, e.since = 0, now
	}
	e.count++
	if e.count >= t.limits.Failures {
		e.blockedUntil = now.Add(t.limits.Lockout)
		e.count, e.since = 0, now
	}
	return 0, true
}

// Reset forgets the attempts of key, after a success.
func (t *Throttle) Reset(key Key) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if el, ok := t.entries[key]; ok {
		t.order.Remove(el)
		delete(t.entries, key)
	}
}

// Len returns the number of keys remembered.
func (t *Throttle) Len() int {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.entries)
}

// touch returns the entry of key, made the most recently used, after
// adding it, and forgetting the least recently used one when that makes
// too many.
func (t *Throttle) touch(key Key, now time.Time) *entry {
	if el, ok := t.entries[key]; ok {
		t.order.MoveToFront(el)
		e := el.Value.(*entry)
		e.touched = now
		return e
	}
	if len(t.entries) >= t.limits.MaxKeys {
		oldest := t.order.Back()
		t.order.Remove(oldest)
		delete(t.entries, oldest.Value.(*entry).key)
	}
	e := &entry{key: key, since: now, touched: now}
	t.entries[key] = t.order.PushFront(e)
	return e
}

// expire forgets the least recently used keys that can no longer matter:
// no attempt for longer than the window and the lockout together. Each
// call costs as many steps as keys it forgets, plus one.
func (t *Throttle) expire(now time.Time) {
	ttl := t.limits.Window + t.limits.Lockout
	for el := t.order.Back(); el != nil; el = t.order.Back() {
		e := el.Value.(*entry)
		if now.Sub(e.touched) <= ttl {
			return
		}
		t.order.Remove(el)
		delete(t.entries, e.key)
	}
}
