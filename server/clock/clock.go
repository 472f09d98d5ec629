// Package clock gives the reference server its notion of "now", so that tests
// can move time forward instead of waiting for tokens to expire.
package clock

import (
	"sync"
	"time"
)

// Clock tells the current time.
type Clock interface {
	Now() time.Time
}

// System is the Clock of the machine.
type System struct{}

// Now returns time.Now().
func (System) Now() time.Time { return time.Now() }

// Manual is a Clock that only moves when told to. It is safe for concurrent
// use; the zero value is not usable, use NewManual.
type Manual struct {
	mu  sync.Mutex
	now time.Time
}

// NewManual returns a Manual clock that reads start until it is advanced.
func NewManual(start time.Time) *Manual {
	return &Manual{now: start}
}

// Now returns the clock's current reading.
func (m *Manual) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// Advance moves the clock forward by d (backward when d is negative).
func (m *Manual) Advance(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = m.now.Add(d)
}
