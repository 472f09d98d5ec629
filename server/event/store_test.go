package event

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The Memory store must satisfy Store.
var _ Store = (*Memory)(nil)

// withComputed sets the computed fields the way the design defines them.
func withComputed(e Event) Event {
	e.Offline = strings.TrimSpace(e.Location) != ""
	e.Free = e.BasePrice == 0 && e.MaxPrice == 0
	return e
}

var statuses = []Status{Draft, Published, BeganEnrollment}

// randomEvent makes an event with few distinct values per property, so that
// every order has ties for the ID to break. Its computed fields are wrong on
// purpose: the store must compute them.
func randomEvent(r *rand.Rand) Event {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	day := func() time.Time { return base.Add(time.Duration(r.IntN(20)) * 12 * time.Hour) }
	var loc string
	switch r.IntN(10) {
	case 0, 1, 2:
		loc = ""
	case 3:
		loc = "  "
	default:
		loc = fmt.Sprintf("loc-%d", r.IntN(8))
	}
	return Event{
		ID:                      r.Int64N(1000), // ignored by Create
		Name:                    fmt.Sprintf("name-%02d", r.IntN(40)),
		Description:             fmt.Sprintf("desc-%d", r.IntN(15)),
		BeginEnrollmentDateTime: day(),
		CloseEnrollmentDateTime: day(),
		BeginEventDateTime:      day(),
		EndEventDateTime:        day(),
		Location:                loc,
		BasePrice:               r.IntN(4) * 100,
		MaxPrice:                r.IntN(3) * 150,
		LimitOfEnrollment:       r.IntN(30),
		Offline:                 r.IntN(2) == 0,
		Free:                    r.IntN(2) == 0,
		Status:                  statuses[r.IntN(len(statuses))],
		ManagerID:               r.Int64N(3) + 1,
	}
}

// randomChange returns a change that copies a random subset of the fields of
// another random event, and tries to change the ID and the computed fields.
func randomChange(r *rand.Rand) func(*Event) {
	src := randomEvent(r)
	mask := r.Uint32()
	if mask&0x7ff == 0 {
		mask = 1 // change at least the name
	}
	return func(e *Event) {
		set := func(bit uint, f func()) {
			if mask&(1<<bit) != 0 {
				f()
			}
		}
		set(0, func() { e.Name = src.Name })
		set(1, func() { e.Description = src.Description })
		set(2, func() { e.BeginEnrollmentDateTime = src.BeginEnrollmentDateTime })
		set(3, func() { e.CloseEnrollmentDateTime = src.CloseEnrollmentDateTime })
		set(4, func() { e.BeginEventDateTime = src.BeginEventDateTime })
		set(5, func() { e.EndEventDateTime = src.EndEventDateTime })
		set(6, func() { e.Location = src.Location })
		set(7, func() { e.BasePrice = src.BasePrice })
		set(8, func() { e.MaxPrice = src.MaxPrice })
		set(9, func() { e.LimitOfEnrollment = src.LimitOfEnrollment })
		set(10, func() { e.Status = src.Status })
		set(11, func() { e.ID = src.ID + 5000 })
		e.Offline, e.Free = src.Offline, src.Free
	}
}

func TestMemoryCreateGet(t *testing.T) {
	m := NewMemory()
	r := rand.New(rand.NewPCG(1, 1))
	var created []Event
	for i := 1; i <= 5; i++ {
		in := randomEvent(r)
		got, err := m.Create(in)
		if err != nil {
			t.Fatalf("Create: %v", err)
		}
		want := withComputed(in)
		want.ID = int64(i)
		if got != want {
			t.Fatalf("Create #%d =\n%+v\nwant\n%+v", i, got, want)
		}
		created = append(created, got)
	}
	for _, want := range created {
		got, err := m.Get(want.ID)
		if err != nil || got != want {
			t.Fatalf("Get(%d) = %+v, %v; want %+v", want.ID, got, err, want)
		}
	}

	// What Create, Get and List return are copies.
	created[0].Name = "changed"
	got, _ := m.Get(1)
	got.Name, got.BasePrice = "changed too", 12345
	p := mustList(t, m, Query{Size: 10, Sort: "name"})
	p.Events[0].Name = "changed as well"
	if got, _ := m.Get(1); got.Name == "changed" || got.Name == "changed too" || got.BasePrice == 12345 || got.Name == "changed as well" {
		t.Fatalf("changing a returned event changed the store: %+v", got)
	}
	for _, id := range []int64{0, -1, 6, math.MaxInt64} {
		if _, err := m.Get(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%d) error = %v, want ErrNotFound", id, err)
		}
	}
	if p := mustList(t, m, Query{Size: 10}); p.Total != 5 || !slices.Equal(ids(p.Events), []int64{1, 2, 3, 4, 5}) {
		t.Errorf("List = %v (total %d), want ids 1..5", ids(p.Events), p.Total)
	}
}

func TestMemoryUpdate(t *testing.T) {
	m := NewMemory()
	r := rand.New(rand.NewPCG(2, 2))
	for range 5 {
		if _, err := m.Create(randomEvent(r)); err != nil {
			t.Fatal(err)
		}
	}
	mustList(t, m, Query{Size: 10, Sort: "name"}) // build an index

	t.Run("missing", func(t *testing.T) {
		for _, id := range []int64{0, -1, 6} {
			called := false
			_, err := m.Update(id, func(*Event) error { called = true; return nil })
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("Update(%d) error = %v, want ErrNotFound", id, err)
			}
			if called {
				t.Errorf("Update(%d) called change for a missing event", id)
			}
		}
	})

	t.Run("change fails", func(t *testing.T) {
		before, _ := m.Get(3)
		beforeList := mustList(t, m, Query{Size: 10, Sort: "name"})
		errChange := errors.New("refused")
		var seen Event
		got, err := m.Update(3, func(e *Event) error {
			seen = *e
			e.Name, e.BasePrice, e.Location, e.ID = "zzz", 999, "somewhere", 42
			return errChange
		})
		if err != errChange {
			t.Fatalf("Update error = %v, want the change's error", err)
		}
		if got != (Event{}) {
			t.Errorf("Update returned %+v with an error, want the zero Event", got)
		}
		if seen != before {
			t.Errorf("change saw %+v, want the stored %+v", seen, before)
		}
		if after, _ := m.Get(3); after != before {
			t.Errorf("after a failed change: %+v, want %+v", after, before)
		}
		if after := mustList(t, m, Query{Size: 10, Sort: "name"}); !reflect.DeepEqual(after, beforeList) {
			t.Errorf("after a failed change: list %v, want %v", ids(after.Events), ids(beforeList.Events))
		}
	})

	t.Run("change succeeds", func(t *testing.T) {
		got, err := m.Update(2, func(e *Event) error {
			e.ID = 77 // ignored
			e.Name, e.Location, e.BasePrice, e.MaxPrice = "renamed", " \t", 0, 0
			e.Offline, e.Free = true, false // recomputed
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != 2 || got.Name != "renamed" || got.Offline || !got.Free {
			t.Errorf("Update = %+v, want ID 2, name renamed, online, free", got)
		}
		if stored, _ := m.Get(2); stored != got {
			t.Errorf("Get after Update = %+v, want %+v", stored, got)
		}
		if _, err := m.Get(77); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(77) error = %v: the change moved the ID", err)
		}
		got.Name = "not stored"
		if stored, _ := m.Get(2); stored.Name != "renamed" {
			t.Errorf("changing Update's result changed the store")
		}
	})
}

// CreateLimited refuses an event whose manager already manages limit
// events, however many creates arrive at once, and counts only that
// manager's events.
func TestMemoryCreateLimitedCapsEachManager(t *testing.T) {
	m := NewMemory()
	r := rand.New(rand.NewPCG(1, 2))
	const limit = 25
	var created, refused atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				e := Event{ManagerID: 7, Name: fmt.Sprint(g, i)}
				_, err := m.CreateLimited(e, limit)
				tally(t, err, &created, &refused)
			}
		}()
	}
	wg.Wait()
	if created.Load() != limit || refused.Load() != 80-limit {
		t.Fatalf("80 creates at once with a limit of %d: %d created, %d refused", limit, created.Load(), refused.Load())
	}
	other := randomEvent(r)
	other.ManagerID = 8
	if _, err := m.CreateLimited(other, limit); err != nil {
		t.Fatalf("another manager: %v", err)
	}
	if _, err := m.CreateLimited(Event{ManagerID: 7}, 0); err != nil {
		t.Fatalf("limit 0 means none: %v", err)
	}
	if p := mustList(t, m, Query{Size: 100}); p.Total != limit+2 {
		t.Fatalf("%d events stored, want %d", p.Total, limit+2)
	}
}

// tally counts the outcome of a CreateLimited, err: an event created, one
// refused at the limit, or a failure of t.
func tally(t *testing.T, err error, created, refused *atomic.Int64) {
	switch {
	case err == nil:
		created.Add(1)
	case errors.Is(err, ErrLimitReached):
		refused.Add(1)
	default:
		t.Errorf("CreateLimited: %v", err)
	}
}
