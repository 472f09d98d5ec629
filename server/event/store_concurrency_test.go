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
		if j := outOfOrder(t, Query{Sort: sortBy}, p.Events); j > 0 {
			t.Fatalf("sort %s: %d before %d out of order", sortBy, p.Events[j-1].ID, p.Events[j].ID)
		}
	}
}

// outOfOrder is the index of the first of events that q's order does not
// allow after the one before it (by q's property, then by id), or 0.
func outOfOrder(t testing.TB, q Query, events []Event) int {
	for j := 1; j < len(events); j++ {
		a, b := events[j-1], events[j]
		if q.Desc {
			a, b = b, a
		}
		if c := refCompare(t, q.Sort, a, b); c > 0 || (c == 0 && a.ID >= b.ID) {
			return j
		}
	}
	return 0
}

// failBase starts the bodies the failing updates of concurrentUpdates
// write.
const failBase = 1_000_000

// updateRace is one event among others in a store, which concurrentUpdates
// updates and reads from many goroutines at once.
type updateRace struct {
	t      *testing.T
	m      *Memory
	target Event
	total  int
	errs   *errorLimit
}

// newUpdateRace fills a store with others events and the target, body 0,
// in their midst, and builds some of its indexes; "maxPrice" and
// "description" are built while the writers run.
func newUpdateRace(t *testing.T, others int) *updateRace {
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
	for _, p := range []string{"name", "basePrice", "location"} {
		mustList(t, m, Query{Size: 1, Sort: p})
	}
	return &updateRace{t: t, m: m, target: target, total: others + 1, errs: &errorLimit{t: t}}
}

// check reports an observed e that is not the target, not one whole body,
// or the body of a failed update.
func (u *updateRace) check(where string, e Event) {
	if e.ID != u.target.ID {
		u.errs.Errorf("%s: ID %d, want %d", where, e.ID, u.target.ID)
	}
	k, ok := bodyOf(e)
	if !ok {
		u.errs.Errorf("%s: a mix of bodies: %+v", where, e)
	}
	if k >= failBase {
		u.errs.Errorf("%s: body %d of a failed update is visible", where, k)
	}
}

// write is writer g: it writes the bodies k = (g+1)*1000+i in turn, i
// from 1 to n, and returns the last it wrote.
func (u *updateRace) write(g, n int) (last int) {
	for i := 1; i <= n; i++ {
		k := (g+1)*1000 + i
		e, err := u.m.Update(u.target.ID, func(e *Event) error { bodyK(k)(e); return nil })
		if err != nil {
			u.errs.Errorf("Update: %v", err)
			return last
		}
		u.check("Update", e)
		if got, _ := bodyOf(e); got != k {
			u.errs.Errorf("Update wrote %d but returned body %d", k, got)
		}
		last = k
	}
	return last
}

// fail is failer g: n times, it writes all or part of body
// failBase+(g+1)*1000+i and then fails.
func (u *updateRace) fail(g, n int) {
	errChange := errors.New("refused")
	for i := 1; i <= n; i++ {
		k := failBase + (g+1)*1000 + i
		e, err := u.m.Update(u.target.ID, func(e *Event) error {
			if i%2 == 0 {
				bodyK(k)(e) // all of it
			} else {
				e.Name, e.BasePrice = fmt.Sprintf("n-%d", k), k // part of it
			}
			return errChange
		})
		if err != errChange || e != (Event{}) {
			u.errs.Errorf("failing Update = %+v, %v; want the zero Event and the change's error", e, err)
		}
	}
}

// read is reader g: it gets the event and lists the store, by each
// property in turn, checking each event it sees and the list's order.
func (u *updateRace) read(g int) {
	sorts := []string{"name", "basePrice", "location", "id", "maxPrice", "description"}
	for i := range 150 {
		e, err := u.m.Get(u.target.ID)
		if err != nil {
			u.errs.Errorf("Get: %v", err)
			return
		}
		u.check("Get", e)

		sortBy := sorts[(g+i)%len(sorts)]
		q := Query{Size: 100, Sort: sortBy, Desc: i%3 == 0}
		p, err := u.m.List(q)
		if err != nil {
			u.errs.Errorf("List: %v", err)
			return
		}
		if p.Total != u.total || len(p.Events) != u.total {
			u.errs.Errorf("List %+v: total %d, %d events; want %d", q, p.Total, len(p.Events), u.total)
		}
		found := 0
		for _, e := range p.Events {
			if e.ID == u.target.ID {
				found++
				u.check("List "+sortBy, e)
			}
		}
		if j := outOfOrder(u.t, q, p.Events); j > 0 {
			u.errs.Errorf("List %+v: %d and %d out of order", q, p.Events[j-1].ID, p.Events[j].ID)
		}
		if found != 1 {
			u.errs.Errorf("List %+v: the event is there %d times", q, found)
		}
	}
}

// concurrentUpdates updates one event among others from many goroutines at
// once: writers each write the bodies k = (g+1)*1000+i in turn; failers each
// write all or part of body failBase+(g+1)*1000+i and then fail; readers Get
// and List the event meanwhile. Every event observed must be one whole body
// of a succeeding write, and the final one the last write of some writer.
func concurrentUpdates(t *testing.T, writers, failers, perWriter int) {
	u := newUpdateRace(t, 20)
	last := make([]int, writers)
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() { last[g] = u.write(g, perWriter) })
	}
	for g := range failers {
		wg.Go(func() { u.fail(g, perWriter) })
	}
	for g := range 4 {
		wg.Go(func() { u.read(g) })
	}
	wg.Wait()

	final, err := u.m.Get(u.target.ID)
	if err != nil {
		t.Fatal(err)
	}
	u.check("final", final)
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
