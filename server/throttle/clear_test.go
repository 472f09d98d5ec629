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

func TestClearGivesEveryBudgetBack(t *testing.T) {
	b := NewBudget(BudgetLimits{Rate: 1, Burst: 2, MaxKeys: 10}, clock.NewManual(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)))
	for range 2 {
		b.Take("127.0.0.1", 1)
	}
	if _, ok := b.Take("127.0.0.1", 1); ok {
		t.Fatal("a third request within the burst of 2 was let through")
	}
	b.Clear()
	if _, ok := b.Take("127.0.0.1", 1); !ok {
		t.Error("the budget is still spent after Clear")
	}
	var none *Budget
	none.Clear() // a nil Budget has nothing to clear
}
