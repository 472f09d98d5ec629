// Package throttle slows down guessing: it counts attempts per key (a
// client address and a username, say) and refuses a key for a while once it
// has failed too often, as RFC 6749 §4.3.2 asks of a token endpoint
// (https://www.rfc-editor.org/rfc/rfc6749#section-4.3.2).
//
// An attempt is reserved before the credential is checked, in the same
// critical section as the decision to let it through: the failures of the
// window and the attempts still in progress together never exceed the
// limit, so however many requests arrive at once, at most the allowed
// number are checked in a window. A success forgets the failures, and a
// wrong secret that failed lately counts once (RecentWrong). The keys
// are fixed-size digests and their number is bounded (the least recently
// used is forgotten first), so that a flood of failures with huge or unique
// names cannot grow the memory without bound.
package throttle

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"slices"
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

// RecentWrong is how many of a key's latest wrong secrets are
// remembered, as short keyed digests (never the secrets): a failure with
// one of them again does not count, so that a client that retries a
// stale password, or a test suite run again and again with the same
// wrong credentials, is not locked out by repeating itself, while every
// new guess counts (as Microsoft Entra ID's smart lockout does).
const RecentWrong = 3

// tagger makes the short digests of wrong secrets: 4 bytes of an
// HMAC-SHA256 under a key drawn at random for each Throttle or
// RedisGuard, too short to tell anything of a secret.
type tagger struct{ key [32]byte }

func newTagger() tagger {
	var t tagger
	_, _ = rand.Read(t.key[:])
	return t
}

// tag is the digest of wrong, tried as the secret of key.
func (t tagger) tag(key Key, wrong string) uint32 {
	m := hmac.New(sha256.New, t.key[:])
	_, _ = m.Write(key[:])
	_, _ = m.Write([]byte(wrong))
	return binary.BigEndian.Uint32(m.Sum(nil))
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
	tags   tagger

	mu      sync.Mutex
	entries *lru[Key, *entry]
}

type entry struct {
	failures     int       // failures of the window since the last success
	pending      int       // attempts reserved and not yet done
	since        time.Time // the first failure of the window
	blockedUntil time.Time
	touched      time.Time // the last use
	wrong        []uint32  // the tags of the latest wrong secrets, at most RecentWrong
}

// Busy is how long a caller is asked to wait when the attempts in progress
// of a key fill what is left of its limit: about the time they take.
const Busy = time.Second

// New returns a Throttle with the given limits, reading the time from c.
// Limits below their minimum are raised to it.
func New(l Limits, c clock.Clock) *Throttle {
	l.Failures = max(l.Failures, 1)
	l.MaxKeys = max(l.MaxKeys, 1)
	return &Throttle{limits: l, clock: c, tags: newTagger(), entries: newLRU[Key, *entry](l.MaxKeys)}
}

// Reserve decides whether key may make one more attempt and, when it may,
// counts it as in progress in the same critical section. The caller checks
// the credential and then calls exactly one of Succeeded and Failed. An
// attempt is refused while the key is locked out, and while its failures
// of the window and its attempts in progress reach the limit; left tells
// for how much longer (Busy in the second case).
//
// With Failures 10, at most ten attempts are checked in a window, however
// many arrive at once; the others are refused at once.
func (t *Throttle) Reserve(key Key) (left time.Duration, ok bool) {
	if t == nil {
		return 0, true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.clock.Now()
	t.expire(now)
	e := t.touch(key, now)
	if left, ok := t.allowed(e, now); !ok {
		return left, false
	}
	e.pending++
	return 0, true
}

// Check reports what Reserve would answer, without reserving anything: for
// a credential known to be right without checking it again, which must
// still be refused while its key is.
func (t *Throttle) Check(key Key) (left time.Duration, ok bool) {
	if t == nil {
		return 0, true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	e, found := t.entries.get(key)
	if !found {
		return 0, true
	}
	return t.allowed(e, t.clock.Now())
}

// Succeeded ends an attempt of Reserve that succeeded: the failures of key
// are forgotten.
func (t *Throttle) Succeeded(key Key) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.entries.get(key)
	if !ok {
		return
	}
	e.pending = max(e.pending-1, 0)
	e.failures, e.blockedUntil, e.wrong = 0, time.Time{}, nil
	if e.pending == 0 {
		t.entries.remove(key)
	}
}

// Failed ends an attempt of Reserve that failed with the secret wrong:
// it counts as a failure of key, unless wrong is one of the key's latest
// wrong secrets (RecentWrong), and locks the key when that makes too many
// in the window.
func (t *Throttle) Failed(key Key, wrong string) {
	if t == nil {
		return
	}
	tag := t.tags.tag(key, wrong)
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.clock.Now()
	e := t.touch(key, now) // a key forgotten meanwhile starts again
	e.pending = max(e.pending-1, 0)
	if e.failures == 0 || now.Sub(e.since) > t.limits.Window {
		e.failures, e.since, e.wrong = 0, now, e.wrong[:0]
	}
	if slices.Contains(e.wrong, tag) {
		return // tried lately: no new guess
	}
	if len(e.wrong) == RecentWrong {
		e.wrong = e.wrong[1:]
	}
	e.wrong = append(e.wrong, tag)
	e.failures++
	if e.failures >= t.limits.Failures {
		e.blockedUntil = now.Add(t.limits.Lockout)
		e.failures, e.wrong = 0, e.wrong[:0]
	}
}

// Len returns the number of keys remembered.
func (t *Throttle) Len() int {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.entries.len()
}

// allowed tells whether e may make one more attempt at now, or for how
// much longer it may not.
func (t *Throttle) allowed(e *entry, now time.Time) (time.Duration, bool) {
	if left := e.blockedUntil.Sub(now); left > 0 {
		return left, false
	}
	failures := e.failures
	if now.Sub(e.since) > t.limits.Window {
		failures = 0
	}
	if failures+e.pending >= t.limits.Failures {
		return Busy, false
	}
	return 0, true
}

// touch returns the entry of key, made the most recently used, after
// adding it, and forgetting the least recently used one when that makes
// too many.
func (t *Throttle) touch(key Key, now time.Time) *entry {
	e := t.entries.use(key, func() *entry { return &entry{} })
	e.touched = now
	return e
}

// expire forgets the least recently used keys that can no longer matter:
// no attempt for longer than the window and the lockout together. Each
// call costs as many steps as keys it forgets, plus one.
func (t *Throttle) expire(now time.Time) {
	ttl := t.limits.Window + t.limits.Lockout
	for key, e, ok := t.entries.oldest(); ok && now.Sub(e.touched) > ttl; key, e, ok = t.entries.oldest() {
		t.entries.remove(key)
	}
}
