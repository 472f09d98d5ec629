package throttle

import (
	"testing"
	"time"

	"eventsvc/server/clock"
)

func TestClearLiftsEveryLockout(t *testing.T) {
	th := New(limits(2, time.Minute, time.Hour), clock.NewManual(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)))
	for _, name := range []string{"a", "b"} {
		key := KeyOf(name)
		fail(th, key)
		fail(th, key)
		if _, ok := th.Check(key); ok {
			t.Fatalf("%s is not locked after two failures", name)
		}
	}
	th.Clear()
	if th.Len() != 0 {
		t.Errorf("Len = %d after Clear, want 0", th.Len())
	}
	for _, name := range []string{"a", "b"} {
		if _, ok := th.Reserve(KeyOf(name)); !ok {
			t.Errorf("%s is still locked after Clear", name)
		}
	}
	var none *Throttle
	none.Clear() // a nil Throttle has nothing to clear
}
