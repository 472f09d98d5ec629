package clock

import (
	"errors"
	"math"
	"testing"
	"time"
)

func TestOffsetMovesForwardOnlyAndResets(t *testing.T) {
	base := NewManual(testStart)
	o := NewOffset(base)
	wantNow(t, o, testStart)
	if got, err := o.Advance(90 * time.Second); got != 90*time.Second || err != nil {
		t.Fatalf("Advance(90s) = %v, %v", got, err)
	}
	base.Advance(time.Second) // the base clock goes on
	wantNow(t, o, testStart.Add(91*time.Second))
	o.Advance(-time.Hour)
	if got := o.Moved(); got != 90*time.Second {
		t.Fatalf("after Advance(-1h), Moved() = %v, want 90s", got)
	}
	o.Reset()
	if got, want := o.Now(), testStart.Add(time.Second); !got.Equal(want) || o.Moved() != 0 {
		t.Fatalf("after Reset, Now() = %v (want %v), Moved() = %v", got, want, o.Moved())
	}
}

func TestOffsetNeverPassesMaxMoved(t *testing.T) {
	o := NewOffset(System{})
	if _, err := o.Advance(MaxMoved); err != nil {
		t.Fatalf("Advance(MaxMoved) = %v", err)
	}
	for _, d := range []time.Duration{1, time.Hour, 2562047 * time.Hour, math.MaxInt64} {
		if got, err := o.Advance(d); !errors.Is(err, ErrTooFar) || got != MaxMoved {
			t.Fatalf("Advance(%v) past MaxMoved = %v, %v; want ErrTooFar and no move", d, got, err)
		}
	}
	if o.Moved() != MaxMoved {
		t.Fatalf("Moved() = %v, want MaxMoved", o.Moved())
	}
}
