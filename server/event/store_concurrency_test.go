package event

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// body k of the concurrency tests: every field derived from k.
func bodyK(k int) func(*Event) {
	return func(e *Event) {
		e.Name = fmt.Sprintf("n-%d", k)
		e.Description = fmt.Sprintf("d-%d", k)
		e.Location = fmt.Sprintf("l-%d", k)
		e.BasePrice, e.MaxPrice, e.LimitOfEnrollment = k, k+1, k+2
	}
}

// bodyOf returns the k an event was written with, and whether all of its
// fields come from that same k.
func bodyOf(e Event) (int, bool) {
	k := e.BasePrice
	want := e
	bodyK(k)(&want)
	want = withComputed(want)
	return k, e == want
}

// errorLimit reports at most a few errors from many goroutines.
type errorLimit struct {
	t  *testing.T
	mu sync.Mutex
	n  int
}

func (l *errorLimit) Errorf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	if l.n <= 10 {
		l.t.Errorf(format, args...)
	}
}

func TestMemoryConcurrentCreate(t *testing.T) {
	const goroutines, perGoroutine = 8, 25
	const n = goroutines * perGoroutine
	m := NewMemory()
	mustList(t, m, Query{Size: 1, Sort: "name"}) // creates must also keep this index
	errs := &errorLimit{t: t}
	got := make([][]int64, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 5))
			for range perGoroutine {
				e, err := m.Create(randomEvent(r))
				if err != nil {
					errs.Errorf("Create: %v", err)
					return
				}
				got[g] = append(got[g], e.ID)
			}
		})
	}
	wg.Go(func() { // a reader meanwhile
		for range 50 {
			if _, err := m.List(Query{Size: 10, Sort: "name", Desc: true}); err != nil {
				errs.Errorf("List: %v", err)
			}
		}
	})
	wg.Wait()

	seen := map[int64]bool{}
	for _, list := range got {
		for _, id := range list {
			if seen[id] {
				t.Errorf("ID %d given twice", id)
			}
			seen[id] = true
			if id < 1 || id > n {
				t.Errorf("ID %d outside 1..%d", id, n)
			}
		}
	}
	if len(seen) != n {
		t.Fatalf("%d distinct IDs, want %d", len(seen), n)
	}
	for _, sortBy := range []string{"id", "name"} {
		p := mustList(t, m, Query{Size: 1000, Sort: sortBy})
		if p.Total != n || len(p.Events) != n {
			t.Fatalf("sort %s: total %d, %d events; want %d", sortBy, p.Total, len(p.Events), n)
		}
		for i := 1; i < n; i++ {
			a, b := p.Events[i-1], p.Events[i]
			if c := refCompare(t, sortBy, a, b); c > 0 || (c == 0 && a.ID >= b.ID) {
				t.Fatalf("sort %s: %d before %d out of order", sortBy, a.ID, b.ID)
			}
		}
	}
}

// concurrentUpdates updates one event among others from many goroutines at
// once: writers each write the bodies k = (g+1)*1000+i in turn; failers each
// write all or part of body failBase+(g+1)*1000+i and then fail; readers Get
// and List the event meanwhile. Every event observed must be one whole body
// of a succeeding write, and the final one the last write of some writer.
func concurrentUpdates(t *testing.T, writers, failers, perWriter int) {
	const others = 20
	const failBase = 1_000_000
	m := NewMemory()
	r := rand.New(rand.NewPCG(6, 6))
	for range others / 2 {
		if _, err := m.Create(randomEvent(r)); err != nil {
			t.Fatal(err)
		}
	}
	var initial Event
	bodyK(0)(&initial)
	target, err := m.Create(initial)
	if err != nil {
		t.Fatal(err)
	}
	for range others - others/2 {
		if _, err := m.Create(randomEvent(r)); err != nil {
			t.Fatal(err)
		}
	}
	// Build some indexes first; "maxPrice" and "description" are built while
	// the writers run.
	for _, p := range []string{"name", "basePrice", "location"} {
		mustList(t, m, Query{Size: 1, Sort: p})
	}
	total := others + 1

	errs := &errorLimit{t: t}
	check := func(where string, e Event) {
		if e.ID != target.ID {
			errs.Errorf("%s: ID %d, want %d", where, e.ID, target.ID)
		}
		k, ok := bodyOf(e)
		if !ok {
			errs.Errorf("%s: a mix of bodies: %+v", where, e)
		}
		if k >= failBase {
			errs.Errorf("%s: body %d of a failed update is visible", where, k)
		}
	}
	errChange := errors.New("refused")
	last := make([]int, writers)
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := 1; i <= perWriter; i++ {
				k := (g+1)*1000 + i
				e, err := m.Update(target.ID, func(e *Event) error { bodyK(k)(e); return nil })
				if err != nil {
					errs.Errorf("Update: %v", err)
					return
				}
				check("Update", e)
				if got, _ := bodyOf(e); got != k {
					errs.Errorf("Update wrote %d but returned body %d", k, got)
				}
				last[g] = k
			}
		})
	}
	for g := range failers {
		wg.Go(func() {
			for i := 1; i <= perWriter; i++ {
				k := failBase + (g+1)*1000 + i
				e, err := m.Update(target.ID, func(e *Event) error {
					if i%2 == 0 {
						bodyK(k)(e) // all of it
					} else {
						e.Name, e.BasePrice = fmt.Sprintf("n-%d", k), k // part of it
					}
					return errChange
				})
				if err != errChange || e != (Event{}) {
					errs.Errorf("failing Update = %+v, %v; want the zero Event and the change's error", e, err)
				}
			}
		})
	}
	sorts := []string{"name", "basePrice", "location", "id", "maxPrice", "description"}
	for g := range 4 {
		wg.Go(func() {
			for i := range 150 {
				e, err := m.Get(target.ID)
				if err != nil {
					errs.Errorf("Get: %v", err)
					return
				}
				check("Get", e)

				sortBy := sorts[(g+i)%len(sorts)]
				q := Query{Size: 100, Sort: sortBy, Desc: i%3 == 0}
				p, err := m.List(q)
				if err != nil {
					errs.Errorf("List: %v", err)
					return
				}
				if p.Total != total || len(p.Events) != total {
					errs.Errorf("List %+v: total %d, %d events; want %d", q, p.Total, len(p.Events), total)
				}
				found := 0
				for j, e := range p.Events {
					if e.ID == target.ID {
						found++
						check("List "+sortBy, e)
					}
					if j > 0 {
						a, b := p.Events[j-1], e
						if q.Desc {
							a, b = b, a
						}
						if c := refCompare(t, sortBy, a, b); c > 0 || (c == 0 && a.ID >= b.ID) {
							errs.Errorf("List %+v: %d and %d out of order", q, p.Events[j-1].ID, e.ID)
						}
					}
				}
				if found != 1 {
					errs.Errorf("List %+v: the event is there %d times", q, found)
				}
			}
		})
	}
	wg.Wait()

	final, err := m.Get(target.ID)
	if err != nil {
		t.Fatal(err)
	}
	check("final", final)
	k, _ := bodyOf(final)
	if writers > 0 && !slices.Contains(last, k) {
		t.Errorf("final body %d is not the last write of any writer (%v)", k, last)
	}
	if writers == 0 && k != 0 {
		t.Errorf("final body %d, want the initial 0", k)
	}
}

func TestMemoryConcurrentUpdateOneEvent(t *testing.T) {
	concurrentUpdates(t, 8, 0, 40)
}

func TestMemoryConcurrentFailedUpdates(t *testing.T) {
	t.Run("with succeeding ones", func(t *testing.T) { concurrentUpdates(t, 4, 4, 40) })
	t.Run("alone", func(t *testing.T) { concurrentUpdates(t, 0, 4, 40) })
}
