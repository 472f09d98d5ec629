package target

import (
	"context"
	"time"
)

// Clock tells the time and lets it pass: the machine's (SystemClock), or
// a test's, which need not wait an hour for a token to age.
type Clock interface {
	Now() time.Time
	// Sleep returns once d has passed, or with ctx's error when ctx is
	// done first.
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the machine's clock.
type SystemClock struct{}

// Now is the machine's time.
func (SystemClock) Now() time.Time { return time.Now() }

// Sleep waits d, or until ctx is done.
func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Lifetimes are the token lifetimes the @slow scenarios check, and how
// close to their end: a token is checked to work Margin before its
// lifetime ends, and to be refused Margin after, for a target that counts
// in whole seconds and for the time a request takes.
type Lifetimes struct {
	// Access is the longest an access token may live (CLI-5, LIM-1): a
	// token announced with a shorter expires_in is checked for that.
	Access time.Duration
	// Refresh is how long a refresh token lives (CLI-6, LIM-2).
	Refresh time.Duration
	Margin  time.Duration
}

// SpecLifetimes are the specification's: 600 s and 3600 s, checked 5 s
// before and after their end.
func SpecLifetimes() Lifetimes {
	return Lifetimes{Access: 600 * time.Second, Refresh: 3600 * time.Second, Margin: 5 * time.Second}
}

// OrSpec is l, or the specification's where l has none.
func (l Lifetimes) OrSpec() Lifetimes {
	if l == (Lifetimes{}) {
		return SpecLifetimes()
	}
	return l
}

// Around is Margin before the end of lifetime, when nearly, or after.
func (l Lifetimes) Around(lifetime time.Duration, nearly bool) time.Duration {
	if nearly {
		return lifetime - l.Margin
	}
	return lifetime + l.Margin
}
