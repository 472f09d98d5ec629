package event

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The Memory store must satisfy Store.
var _ Store = (*Memory)(nil)

// allProperties are the sortable properties the design names.
var allProperties = []string{
	"basePrice", "beginEnrollmentDateTime", "beginEventDateTime", "closeEnrollmentDateTime",
	"description", "endEventDateTime", "eventStatus", "free", "id", "limitOfEnrollment",
	"location", "maxPrice", "name", "offline",
}

// refCompare compares two events by one property, written independently of
// the store's own comparators. Ties are not broken here.
func refCompare(t testing.TB, prop string, a, b Event) int {
	boolInt := func(v bool) int {
		if v {
			return 1
		}
		return 0
	}
	switch prop {
	case "id":
		return 0
	case "name":
		return strings.Compare(a.Name, b.Name)
	case "description":
		return strings.Compare(a.Description, b.Description)
	case "location":
		return strings.Compare(a.Location, b.Location)
	case "beginEnrollmentDateTime":
		return a.BeginEnrollmentDateTime.Compare(b.BeginEnrollmentDateTime)
	case "closeEnrollmentDateTime":
		return a.CloseEnrollmentDateTime.Compare(b.CloseEnrollmentDateTime)
	case "beginEventDateTime":
		return a.BeginEventDateTime.Compare(b.BeginEventDateTime)
	case "endEventDateTime":
		return a.EndEventDateTime.Compare(b.EndEventDateTime)
	case "basePrice":
		return a.BasePrice - b.BasePrice
	case "maxPrice":
		return a.MaxPrice - b.MaxPrice
	case "limitOfEnrollment":
		return a.LimitOfEnrollment - b.LimitOfEnrollment
	case "offline":
		return boolInt(a.Offline) - boolInt(b.Offline)
	case "free":
		return boolInt(a.Free) - boolInt(b.Free)
	case "eventStatus":
		return strings.Compare(string(a.Status), string(b.Status))
	}
	t.Fatalf("no reference order for property %q", prop)
	return 0
}

// reference is the naive listing: every event, sorted by the property then
// by ID, reversed for a descending order.
func reference(t testing.TB, model map[int64]Event, prop string, desc bool) []Event {
	all := make([]Event, 0, len(model))
	for _, e := range model {
		all = append(all, e)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	sort.SliceStable(all, func(i, j int) bool { return refCompare(t, prop, all[i], all[j]) < 0 })
	if desc {
		slices.Reverse(all)
	}
	return all
}

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

func mustList(t testing.TB, m *Memory, q Query) Page {
	t.Helper()
	p, err := m.List(q)
	if err != nil {
		t.Fatalf("List(%+v) = %v", q, err)
	}
	return p
}

// checkPages compares every page of every given order with the reference.
func checkPages(t *testing.T, m *Memory, model map[int64]Event, props []string, sizes []int) {
	t.Helper()
	for _, prop := range props {
		for _, desc := range []bool{false, true} {
			want := reference(t, model, prop, desc)
			for _, size := range sizes {
				lastPage := (len(want) + size - 1) / size // the first empty page
				for page := 0; page <= lastPage; page++ {
					got := mustList(t, m, Query{Page: page, Size: size, Sort: prop, Desc: desc})
					if got.Total != len(want) {
						t.Fatalf("sort %s desc=%v size %d page %d: total %d, want %d", prop, desc, size, page, got.Total, len(want))
					}
					wantPage := want[min(page*size, len(want)):min(page*size+size, len(want))]
					if !slices.Equal(got.Events, wantPage) {
						t.Fatalf("sort %s desc=%v size %d page %d:\ngot  %v\nwant %v", prop, desc, size, page, ids(got.Events), ids(wantPage))
					}
				}
			}
		}
	}
}

func ids(events []Event) []int64 {
	out := make([]int64, len(events))
	for i, e := range events {
		out[i] = e.ID
	}
	return out
}

func TestSortableProperties(t *testing.T) {
	got := SortableProperties()
	if !slices.Equal(got, allProperties) {
		t.Fatalf("SortableProperties() = %v, want %v", got, allProperties)
	}
	for _, p := range allProperties {
		if !Sortable(p) {
			t.Errorf("Sortable(%q) = false", p)
		}
	}
	for _, p := range []string{"", "manager", "Name", "managerId", "status", "name,desc"} {
		if Sortable(p) {
			t.Errorf("Sortable(%q) = true", p)
		}
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

func TestMemoryListOrders(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	m := NewMemory()
	model := map[int64]Event{}
	create := func(n int) {
		for range n {
			in := randomEvent(r)
			got, err := m.Create(in)
			if err != nil {
				t.Fatal(err)
			}
			want := withComputed(in)
			want.ID = got.ID
			if got != want {
				t.Fatalf("Create = %+v, want %+v", got, want)
			}
			model[got.ID] = want
		}
	}
	update := func(n int) {
		for range n {
			id := r.Int64N(int64(len(model))) + 1
			change := randomChange(r)
			fail := r.IntN(10) == 0
			errChange := errors.New("refused")
			got, err := m.Update(id, func(e *Event) error {
				change(e)
				if fail {
					return errChange
				}
				return nil
			})
			if fail {
				if err != errChange {
					t.Fatalf("Update with a failing change: error %v", err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("Update(%d): %v", id, err)
			}
			want := model[id]
			change(&want)
			want.ID = id
			want = withComputed(want)
			if got != want {
				t.Fatalf("Update(%d) =\n%+v\nwant\n%+v", id, got, want)
			}
			model[id] = want
		}
	}
	sizes := []int{7, 1000}

	create(500)
	// Build half of the indexes now; the rest are built after the updates.
	var half []string
	for i, p := range SortableProperties() {
		if i%2 == 0 {
			half = append(half, p)
		}
	}
	checkPages(t, m, model, half, sizes)
	checkPages(t, m, model, []string{"name"}, []int{1})

	update(300)
	checkPages(t, m, model, SortableProperties(), sizes)

	create(100)
	checkPages(t, m, model, SortableProperties(), sizes)

	update(200)
	checkPages(t, m, model, SortableProperties(), sizes)

	// An empty Sort is the ID order.
	want := reference(t, model, "id", false)
	if p := mustList(t, m, Query{Page: 2, Size: 50}); !slices.Equal(p.Events, want[100:150]) {
		t.Errorf("default sort page 2: %v, want %v", ids(p.Events), ids(want[100:150]))
	}
	if p := mustList(t, m, Query{Page: 0, Size: 3, Desc: true}); !slices.Equal(ids(p.Events), []int64{600, 599, 598}) {
		t.Errorf("default sort desc: %v, want [600 599 598]", ids(p.Events))
	}
}

func TestMemoryListPaging(t *testing.T) {
	empty := NewMemory()
	for _, q := range []Query{{Size: 20}, {Page: 3, Size: 1, Sort: "name"}, {Page: math.MaxInt, Size: math.MaxInt}} {
		p := mustList(t, empty, q)
		if p.Total != 0 || len(p.Events) != 0 {
			t.Errorf("empty store %+v: %d events, total %d", q, len(p.Events), p.Total)
		}
	}

	m := NewMemory()
	r := rand.New(rand.NewPCG(4, 4))
	for range 10 {
		if _, err := m.Create(randomEvent(r)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		q    Query
		want []int64
	}{
		{Query{Page: 0, Size: 3}, []int64{1, 2, 3}},
		{Query{Page: 3, Size: 3}, []int64{10}},
		{Query{Page: 3, Size: 3, Desc: true}, []int64{1}},
		{Query{Page: 4, Size: 3}, nil},
		{Query{Page: 1, Size: 10}, nil},
		{Query{Page: 100, Size: 3, Sort: "name"}, nil},
		{Query{Page: 0, Size: 10}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{Query{Page: 0, Size: 11, Desc: true}, []int64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}},
		{Query{Page: math.MaxInt32, Size: 1000}, nil},
		{Query{Page: math.MaxInt32, Size: 1000, Sort: "name", Desc: true}, nil},
		{Query{Page: math.MaxInt, Size: 2}, nil},
		{Query{Page: math.MaxInt / 2, Size: 3}, nil},
		{Query{Page: 1 << 62, Size: 4}, nil},
		{Query{Page: math.MaxInt, Size: math.MaxInt}, nil},
		{Query{Page: 1, Size: math.MaxInt}, nil},
		{Query{Page: 0, Size: math.MaxInt, Sort: "basePrice"}, nil}, // all ten, checked by length below
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%+v", tt.q), func(t *testing.T) {
			p := mustList(t, m, tt.q)
			if p.Total != 10 {
				t.Errorf("total = %d, want 10", p.Total)
			}
			if tt.q.Size == math.MaxInt && tt.q.Page == 0 {
				if len(p.Events) != 10 {
					t.Errorf("%d events, want 10", len(p.Events))
				}
				return
			}
			if !slices.Equal(ids(p.Events), tt.want) {
				t.Errorf("ids = %v, want %v", ids(p.Events), tt.want)
			}
		})
	}

	for _, q := range []Query{
		{Size: 20, Sort: "unknown"}, {Size: 20, Sort: "manager"}, {Size: 20, Sort: "Name"},
		{Size: 0}, {Size: -1}, {Size: 0, Sort: "name"}, {Page: -1, Size: 20}, {Page: math.MinInt, Size: 20},
	} {
		if p, err := m.List(q); err == nil {
			t.Errorf("List(%+v) = %d events, want an error", q, len(p.Events))
		}
	}
}

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
				switch {
				case err == nil:
					created.Add(1)
				case errors.Is(err, ErrLimitReached):
					refused.Add(1)
				default:
					t.Errorf("CreateLimited: %v", err)
				}
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
