package event

import (
	"testing"
	"time"
)

func TestDemoEventsAreValidAndVaried(t *testing.T) {
	events := Demo(25, []int64{1, 2}, time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC))
	if len(events) != 25 {
		t.Fatalf("got %d events", len(events))
	}
	managers, free, offline := map[int64]bool{}, 0, 0
	for _, e := range events {
		managers[e.ManagerID] = true
		if e.Free {
			free++
		}
		if e.Offline {
			offline++
		}
		if e.EndEventDateTime.Before(e.BeginEventDateTime) || e.EndEventDateTime.Before(e.CloseEnrollmentDateTime) || e.EndEventDateTime.Before(e.BeginEnrollmentDateTime) {
			t.Errorf("%q ends before another of its date-times", e.Name)
		}
		if e.BasePrice > e.MaxPrice && e.MaxPrice > 0 {
			t.Errorf("%q has wrong prices", e.Name)
		}
	}
	if len(managers) != 2 || free == 0 || free == 25 || offline == 0 || offline == 25 {
		t.Fatalf("not varied: managers %v, free %d, offline %d", managers, free, offline)
	}
	if Demo(3, nil, time.Now()) != nil {
		t.Fatal("events without managers")
	}
}
