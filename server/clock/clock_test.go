package clock

import (
	"sync"
	"testing"
	"time"
)

func TestManualAdvances(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	c := NewManual(start)
	if got := c.Now(); !got.Equal(start) {
		t.Fatalf("Now() = %v, want %v", got, start)
	}
	c.Advance(599 * time.Second)
	if got, want := c.Now(), start.Add(599*time.Second); !got.Equal(want) {
		t.Fatalf("after Advance(599s) Now() = %v, want %v", got, want)
	}
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
	if got, want := c.Now(), time.Unix(800, 0); !got.Equal(want) {
		t.Fatalf("Now() = %v, want %v", got, want)
	}
}
