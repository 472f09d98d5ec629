package clock

import (
	"sync"
	"testing"
	"time"
)

// testStart is the time the tests' manual clocks start at.
var testStart = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func TestManualAdvances(t *testing.T) {
	c := NewManual(testStart)
	wantNow(t, c, testStart)
	c.Advance(599 * time.Second)
	wantNow(t, c, testStart.Add(599*time.Second))
}

func TestManualIsSafeForConcurrentUse(t *testing.T) {
	c := NewManual(time.Unix(0, 0))
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				c.Advance(time.Second)
				_ = c.Now()
			}
		}()
	}
	wg.Wait()
	wantNow(t, c, time.Unix(800, 0))
}

// wantNow fails t unless c tells the time want.
func wantNow(t *testing.T, c Clock, want time.Time) {
	t.Helper()
	if got := c.Now(); !got.Equal(want) {
		t.Fatalf("Now() = %v, want %v", got, want)
	}
}
