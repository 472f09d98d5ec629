package throttle

import (
	"math"
	"sync"
	"time"

	"eventsvc/server/clock"
)

// Default budget of the token endpoint: 20 requests a second per address,
// in bursts of up to 200. The rate bounds what one address costs the
// server in bcrypt over time (about a core); the burst holds a default run
// of the conformance suite (some 150 token requests within seconds), and
// the rate runs of it back to back.
const (
	DefaultRate  = 20
	DefaultBurst = 200
)

// BudgetLimits configure a Budget.
type BudgetLimits struct {
	// Rate is how many units a key earns a second; above 0.
	Rate float64
	// Burst is how many units a key may hold, and so spend at once; at
	// least 1.
	Burst int
	// MaxKeys bounds how many keys are remembered; at least 1. A key
	// forgotten starts again with a full budget.
	MaxKeys int
}

// Budget is a token bucket per key (a client address): each key holds up
// to Burst units, earns Rate units a second, and a request that finds too
// few is refused, spending nothing. It bounds the work one address can
// cause whatever the names it sends, where Throttle bounds the guesses
// about one name. It is safe for concurrent use. A nil *Budget refuses
// nothing.
type Budget struct {
	limits BudgetLimits
	clock  clock.Clock

	mu      sync.Mutex
	buckets *lru[string, *bucket]
}

type bucket struct {
	units  float64   // at the time at
	at     time.Time // the last take
	refill time.Time // when units reach Burst again
}

// NewBudget returns a Budget with the given limits, reading the time from
// c. Limits below their minimum are raised to it.
func NewBudget(l BudgetLimits, c clock.Clock) *Budget {
	if !(l.Rate > 0) {
		l.Rate = math.SmallestNonzeroFloat64
	}
	l.Burst = max(l.Burst, 1)
	l.MaxKeys = max(l.MaxKeys, 1)
	return &Budget{limits: l, clock: c, buckets: newLRU[string, *bucket](l.MaxKeys)}
}

// Take spends n units of key's budget and reports true, or, when key holds
// fewer than n, spends nothing and reports how long key must wait to hold
// n.
func (b *Budget) Take(key string, n int) (wait time.Duration, ok bool) {
	if b == nil {
		return 0, true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.clock.Now()
	b.expire(now)
	bk := b.bucket(key, now)
	units := min(bk.units+now.Sub(bk.at).Seconds()*b.limits.Rate, float64(b.limits.Burst))
	if units < float64(n) {
		secs := (float64(n) - units) / b.limits.Rate
		return time.Duration(math.Ceil(secs * float64(time.Second))), false
	}
	bk.units, bk.at = units-float64(n), now
	bk.refill = now.Add(time.Duration((float64(b.limits.Burst) - bk.units) / b.limits.Rate * float64(time.Second)))
	return 0, true
}

// Len returns the number of keys remembered.
func (b *Budget) Len() int {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buckets.len()
}

// bucket returns the bucket of key, made the most recently used, after
// adding it with a full budget, and forgetting the least recently used one
// when that makes too many.
func (b *Budget) bucket(key string, now time.Time) *bucket {
	return b.buckets.use(key, func() *bucket {
		return &bucket{units: float64(b.limits.Burst), at: now, refill: now}
	})
}

// expire forgets the least recently used buckets that are full again: a
// key without a bucket has a full budget anyway. It stops at the first
// that is not, which bounds its work by what it forgets; a bucket
// refilled behind one still filling waits for its turn.
func (b *Budget) expire(now time.Time) {
	for key, bk, ok := b.buckets.oldest(); ok && !now.Before(bk.refill); key, bk, ok = b.buckets.oldest() {
		b.buckets.remove(key)
	}
}
