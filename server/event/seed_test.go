package event

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func managers(email string) (int64, bool) {
	switch email {
	case "", "admin@email.com":
		return 1, true
	case "user@email.com":
		return 2, true
	}
	return 0, false
}

const seedEvent1 = `{"name": "Go meetup", "description": "Talks", "beginEnrollmentDateTime": "2026-11-01T09:00:00",
 "closeEnrollmentDateTime": "2026-11-10T17:00:00", "beginEventDateTime": "2026-11-20T18:00:00",
 "endEventDateTime": "2026-11-20T20:00:00", "location": "Room 1", "basePrice": 10, "maxPrice": 20`

func TestParseSeedReadsEventsWithManagerAndStatus(t *testing.T) {
	body := `[` + seedEvent1 + `, "manager": "user@email.com", "eventStatus": "PUBLISHED"},` + seedEvent1 + `}]`
	events, err := ParseSeed([]byte(body), managers)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 {
		t.Fatalf("%d events, want 2", len(events))
	}
	if e := events[0]; e.Name != "Go meetup" || e.ManagerID != 2 || e.Status != Published || !e.Offline || e.Free {
		t.Fatalf("first event %+v", e)
	}
	if e := events[1]; e.ManagerID != 1 || e.Status != Draft {
		t.Fatalf("second event: manager %d, status %s; want the first account and DRAFT", e.ManagerID, e.Status)
	}
}

func TestParseSeedListsEveryProblem(t *testing.T) {
	body := `[` + seedEvent1 + `}, {"name": ""}, ` + seedEvent1 + `, "manager": "nobody@example.com", "eventStatus": "DONE", "id": 4}]`
	_, err := ParseSeed([]byte(body), managers)
	var serr *SeedError
	if !errors.As(err, &serr) || len(serr.Problems) != 2 {
		t.Fatalf("err = %v, want a SeedError for events 1 and 2", err)
	}
	if serr.Problems[0].Index != 1 || serr.Problems[1].Index != 2 {
		t.Fatalf("problems at %d and %d", serr.Problems[0].Index, serr.Problems[1].Index)
	}
	codes := map[string]string{}
	for _, fe := range serr.Problems[1].Errors {
		codes[fe.Field] = fe.Code
	}
	if codes["manager"] != CodeWrongValue || codes["eventStatus"] != CodeWrongValue || codes["id"] != CodeNotAllowed {
		t.Fatalf("event 2's errors: %+v", serr.Problems[1].Errors)
	}
	if !strings.Contains(err.Error(), "event 1 of the seed") || !strings.Contains(err.Error(), "1 more") {
		t.Fatalf("message %q", err.Error())
	}
	for _, bad := range []string{``, `{}`, `[1] [2]`, `null`, `[`} {
		if _, err := ParseSeed([]byte(bad), managers); err == nil || errors.As(err, &serr) && bad != `[1] [2]` {
			t.Errorf("ParseSeed(%q) = %v, want a refusal of the whole body", bad, err)
		}
	}
	if _, err := ParseSeed([]byte(`[1]`), managers); !errors.As(err, &serr) || serr.Problems[0].Errors[0].Code != CodeNotAnObject {
		t.Errorf("a number as an event: %v", err)
	}
}

func TestReplaceMakesTheEventsTheWholeContent(t *testing.T) {
	m := NewMemory()
	for range 3 {
		m.Create(Event{Name: "old", ManagerID: 7})
	}
	m.List(Query{Size: 10, Sort: "name"}) // build an index, which Replace must drop
	if n := m.Replace([]Event{{Name: "b", BasePrice: 1, ManagerID: 7}, {Name: "a", ManagerID: 8}}); n != 2 {
		t.Fatalf("Replace = %d, want 2", n)
	}
	if a, _ := m.Get(2); a.Name != "a" || !a.Free {
		t.Fatalf("event 2 after Replace: %+v", a)
	}
	page, _ := m.List(Query{Size: 10, Sort: "name"})
	if page.Total != 2 || page.Events[0].Name != "a" || page.Events[1].Name != "b" {
		t.Fatalf("sorted by name after Replace: %+v", page)
	}
	if e, _ := m.Create(Event{Name: "c"}); e.ID != 3 {
		t.Fatalf("the next event has id %d, want 3", e.ID)
	}
	// The events each manager manages are counted afresh: manager 7 had
	// three before, and has one now.
	if _, err := m.CreateLimited(Event{Name: "d", ManagerID: 7}, 2); err != nil {
		t.Fatalf("manager 7's second event after Replace: %v", err)
	}
	if _, err := m.CreateLimited(Event{Name: "e", ManagerID: 7}, 2); !errors.Is(err, ErrLimitReached) {
		t.Fatalf("manager 7's third event with a limit of 2: %v", err)
	}
	m.Replace(nil)
	if page, _ := m.List(Query{Size: 10}); page.Total != 0 {
		t.Fatalf("after Replace(nil): %+v", page)
	}
}

func TestParseSeedIsBounded(t *testing.T) {
	over := "[" + strings.TrimSuffix(strings.Repeat("{},", MaxSeedEvents+1), ",") + "]"
	_, err := ParseSeed([]byte(over), managers)
	var serr *SeedError
	if err == nil || errors.As(err, &serr) || !strings.Contains(err.Error(), "at most") {
		t.Fatalf("a seed of %d events: %v, want a refusal naming the bound", MaxSeedEvents+1, err)
	}
	bad := "[" + strings.TrimSuffix(strings.Repeat(`{"name": ""},`, MaxSeedProblems+7), ",") + "]"
	_, err = ParseSeed([]byte(bad), managers)
	if !errors.As(err, &serr) || len(serr.Problems) != MaxSeedProblems || serr.More != 7 {
		t.Fatalf("a seed of %d invalid events: %v, want %d problems and 7 more", MaxSeedProblems+7, err, MaxSeedProblems)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("and %d more events", MaxSeedProblems+6)) {
		t.Fatalf("message %q does not count every other invalid event", err.Error())
	}
}
