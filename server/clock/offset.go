package clock

import (
	"fmt"
	"sync/atomic"
	"time"
)

// Offset is a Clock that reads another clock plus an offset that can be
// moved forward: time goes on as usual, and a developer (through the
// control API) can skip ahead, to see tokens expire without waiting. It is
// safe for concurrent use; a reading takes no lock, since every request
// with a token reads it.
type Offset struct {
	base   Clock
	offset atomic.Int64 // a time.Duration
}

// NewOffset returns an Offset clock that reads base, not yet moved.
func NewOffset(base Clock) *Offset { return &Offset{base: base} }

// Now returns the base clock's reading plus the offset.
func (o *Offset) Now() time.Time {
	return o.base.Now().Add(time.Duration(o.offset.Load()))
}

// MaxMoved is how far an Offset clock may be moved forward in all: 100
// years, far past any token or lockout, and far from the overflow of a
// time.Duration (292 years).
const MaxMoved = 100 * 365 * 24 * time.Hour

// ErrTooFar refuses an advance that would move the clock past MaxMoved.
var ErrTooFar = fmt.Errorf("the clock moves at most %v in all", MaxMoved)

// Advance moves the clock forward by d; a negative d is taken as zero, so
// that the clock never goes back. It returns the new offset, or ErrTooFar,
// moving nothing, when the offset would pass MaxMoved.
func (o *Offset) Advance(d time.Duration) (time.Duration, error) {
	d = max(d, 0)
	for {
		old := o.offset.Load()
		if d > MaxMoved-time.Duration(old) {
			return time.Duration(old), ErrTooFar
		}
		if o.offset.CompareAndSwap(old, old+int64(d)) {
			return time.Duration(old + int64(d)), nil
		}
	}
}

// Moved returns how far the clock has been moved forward in all.
func (o *Offset) Moved() time.Duration {
	return time.Duration(o.offset.Load())
}

// Reset puts the clock back on its base clock.
func (o *Offset) Reset() {
	o.offset.Store(0)
}
