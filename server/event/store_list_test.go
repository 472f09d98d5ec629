package event

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

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
