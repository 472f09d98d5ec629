package throttle

import (
	"testing"
	"time"

	"eventsvc/server/clock"
)

func TestClearLiftsEveryLockout(t *testing.T) {
	th := New(2, time.Minute, time.Hour, clock.NewManual(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)))
	for _, key := range []string{"a", "b"} {
		th.Fail(key)
		th.Fail(key)
		if _, blocked := th.Blocked(key); !blocked {
			t.Fatalf("%s is not locked after two failures", key)
		}
	}
	th.Clear()
	for _, key := range []string{"a", "b"} {
		if _, blocked := th.Blocked(key); blocked {
			t.Errorf("%s is still locked after Clear", key)
		}
	}
	var none *Throttle
	none.Clear() // a nil Throttle has nothing to clear
}
