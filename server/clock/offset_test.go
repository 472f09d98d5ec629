package clock

import (
	"testing"
	"time"
)

func TestOffsetMovesForwardOnlyAndResets(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	base := NewManual(start)
	o := NewOffset(base)
	if got := o.Now(); !got.Equal(start) {
		t.Fatalf("Now() = %v, want %v", got, start)
	}
	if got := o.Advance(90 * time.Second); got != 90*time.Second {
		t.Fatalf("Advance(90s) = %v", got)
	}
	base.Advance(time.Second) // the base clock goes on
	if got, want := o.Now(), start.Add(91*time.Second); !got.Equal(want) {
		t.Fatalf("Now() = %v, want %v", got, want)
	}
	o.Advance(-time.Hour)
	if got := o.Moved(); got != 90*time.Second {
		t.Fatalf("after Advance(-1h), Moved() = %v, want 90s", got)
	}
	o.Reset()
	if got, want := o.Now(), start.Add(time.Second); !got.Equal(want) || o.Moved() != 0 {
		t.Fatalf("after Reset, Now() = %v (want %v), Moved() = %v", got, want, o.Moved())
	}
}
