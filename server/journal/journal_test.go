package journal

import (
	"testing"
	"time"

	"eventsvc/server/clock"
)

func TestJournalKeepsTheLastEntriesOldestFirst(t *testing.T) {
	j := New(3, clock.NewManual(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)))
	if got := j.Last(0); len(got) != 0 || j.Len() != 0 {
		t.Fatalf("empty journal: %+v", got)
	}
	for _, p := range []string{"/a", "/b", "/c", "/d"} {
		j.Add(Entry{Path: p})
	}
	got := j.Last(0)
	if len(got) != 3 || got[0].Path != "/b" || got[2].Path != "/d" || got[2].ID != 4 {
		t.Fatalf("Last(0) = %+v, want /b /c /d, the last numbered 4", got)
	}
	if got := j.Last(2); len(got) != 2 || got[0].Path != "/c" {
		t.Fatalf("Last(2) = %+v", got)
	}
	j.Clear()
	j.Add(Entry{Path: "/e"})
	if got := j.Last(5); len(got) != 1 || got[0].ID != 5 || j.Len() != 1 {
		t.Fatalf("after Clear and one more: %+v", got)
	}
}
