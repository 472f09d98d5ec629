package throttle

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"eventsvc/server/clock"
)

func TestLocksAfterTooManyFailuresAndOpensAgain(t *testing.T) {
	c := clock.NewManual(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	th := New(3, time.Minute, 5*time.Minute, c)
	for i := 0; i < 2; i++ {
		th.Fail("a")
		if _, blocked := th.Blocked("a"); blocked {
			t.Fatalf("blocked after %d failures", i+1)
		}
	}
	th.Fail("a")
	left, blocked := th.Blocked("a")
	if !blocked || left != 5*time.Minute {
		t.Fatalf("after 3 failures: blocked %v for %v, want 5m", blocked, left)
	}
	if _, blocked := th.Blocked("b"); blocked {
		t.Fatal("another key is blocked")
	}
	c.Advance(5*time.Minute - time.Second)
	if left, blocked := th.Blocked("a"); !blocked || left != time.Second {
		t.Fatalf("just before the end: %v %v", blocked, left)
	}
	c.Advance(time.Second)
	if _, blocked := th.Blocked("a"); blocked {
		t.Fatal("still blocked after the lockout")
	}
}

func TestFailuresOutsideTheWindowDoNotAddUp(t *testing.T) {
	c := clock.NewManual(time.Unix(0, 0))
	th := New(3, time.Minute, time.Hour, c)
	th.Fail("a")
	th.Fail("a")
	c.Advance(2 * time.Minute)
	th.Fail("a")
	if _, blocked := th.Blocked("a"); blocked {
		t.Fatal("failures of an old window counted")
	}
}

func TestResetForgets(t *testing.T) {
	th := New(2, time.Minute, time.Hour, clock.System{})
	th.Fail("a")
	th.Reset("a")
	th.Fail("a")
	if _, blocked := th.Blocked("a"); blocked {
		t.Fatal("a failure before the reset counted")
	}
}

func TestNilThrottleRefusesNothing(t *testing.T) {
	var th *Throttle
	th.Fail("a")
	th.Reset("a")
	if _, blocked := th.Blocked("a"); blocked {
		t.Fatal("a nil throttle blocked")
	}
}

func TestConcurrentFailuresAreAllCounted(t *testing.T) {
	th := New(100, time.Hour, time.Hour, clock.System{})
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 10; j++ {
				th.Fail("shared")
				th.Fail(fmt.Sprint("own", j))
			}
		}()
	}
	wg.Wait()
	if _, blocked := th.Blocked("shared"); !blocked {
		t.Fatal("100 concurrent failures did not lock the key")
	}
}
