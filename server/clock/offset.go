package clock

import (
	"sync"
	"time"
)

// Offset is a Clock that reads another clock plus an offset that can be
// moved forward: time goes on as usual, and a developer (through the
// control API) can skip ahead, to see tokens expire without waiting. It is
// safe for concurrent use.
type Offset struct {
	base Clock

	mu     sync.Mutex
	offset time.Duration
}

// NewOffset returns an Offset clock that reads base, not yet moved.
func NewOffset(base Clock) *Offset { return &Offset{base: base} }

// Now returns the base clock's reading plus the offset.
func (o *Offset) Now() time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.base.Now().Add(o.offset)
}

// Advance moves the clock forward by d; a negative d is taken as zero, so
// that the clock never goes back. It returns the new offset.
func (o *Offset) Advance(d time.Duration) time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.offset += max(d, 0)
	return o.offset
}

// Moved returns how far the clock has been moved forward in all.
func (o *Offset) Moved() time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.offset
}

// Reset puts the clock back on its base clock.
func (o *Offset) Reset() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.offset = 0
}
