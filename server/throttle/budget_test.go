package throttle

import (
	"testing"
	"time"

	"eventsvc/server/clock"
)

func TestABudgetAllowsItsBurstThenItsRate(t *testing.T) {
	c := clock.NewManual(time.Unix(0, 0))
	b := NewBudget(BudgetLimits{Rate: 2, Burst: 3, MaxKeys: 10}, c)
	for i := 0; i < 3; i++ {
		if _, ok := b.Take("10.0.0.1", 1); !ok {
			t.Fatalf("request %d of the burst refused", i+1)
		}
	}
	wait, ok := b.Take("10.0.0.1", 1)
	if ok || wait != 500*time.Millisecond {
		t.Fatalf("past the burst: allowed %v, wait %v; want refused, wait 500ms", ok, wait)
	}
	if _, ok := b.Take("10.0.0.2", 1); !ok {
		t.Fatal("another address is refused")
	}
	c.Advance(500 * time.Millisecond)
	if _, ok := b.Take("10.0.0.1", 1); !ok {
		t.Fatal("refused after the wait")
	}
	if wait, ok := b.Take("10.0.0.1", 2); ok || wait != time.Second {
		t.Fatalf("two at once on an empty budget: allowed %v, wait %v; want refused, wait 1s", ok, wait)
	}
	c.Advance(time.Hour)
	for i := 0; i < 3; i++ {
		if _, ok := b.Take("10.0.0.1", 1); !ok {
			t.Fatalf("after an hour, request %d refused: the budget holds at most its burst", i+1)
		}
	}
	if _, ok := b.Take("10.0.0.1", 1); ok {
		t.Fatal("the budget grew past its burst")
	}
}

// A refused request spends nothing: the caller that waits as told gets in.
func TestARefusedRequestSpendsNothing(t *testing.T) {
	c := clock.NewManual(time.Unix(0, 0))
	b := NewBudget(BudgetLimits{Rate: 1, Burst: 1, MaxKeys: 10}, c)
	b.Take("a", 1)
	for i := 0; i < 5; i++ {
		b.Take("a", 1)
	}
	c.Advance(time.Second)
	if _, ok := b.Take("a", 1); !ok {
		t.Fatal("refused requests spent the budget")
	}
}

func TestABudgetRemembersAtMostMaxKeys(t *testing.T) {
	c := clock.NewManual(time.Unix(0, 0))
	b := NewBudget(BudgetLimits{Rate: 1, Burst: 1, MaxKeys: 100}, c)
	for i := 0; i < 1000; i++ {
		b.Take(string(rune('a'+i%26))+string(rune(i)), 1)
	}
	if b.Len() != 100 {
		t.Fatalf("Len %d, want 100", b.Len())
	}
	// An address whose budget is full again is forgotten: it is as if new.
	c.Advance(2 * time.Second)
	b.Take("z", 1)
	if b.Len() != 1 {
		t.Fatalf("Len %d after every budget refilled, want 1", b.Len())
	}
}

func TestANilBudgetRefusesNothing(t *testing.T) {
	var b *Budget
	for i := 0; i < 100; i++ {
		if _, ok := b.Take("a", 1); !ok {
			t.Fatal("a nil budget refused")
		}
	}
}
