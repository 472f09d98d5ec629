package event

import (
	"cmp"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	benchEvents   = 100_000
	benchPageSize = 20
)

// benchName is a random name, so that the name order has nothing to do with
// the ID order.
func benchName(r *rand.Rand) string {
	var b [12]byte
	for i := range b {
		b[i] = 'a' + byte(r.IntN(26))
	}
	return string(b[:])
}

func benchEvent(r *rand.Rand) Event {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func() time.Time { return base.Add(time.Duration(r.IntN(365*24*60)) * time.Minute) }
	return Event{
		Name:                    benchName(r),
		Description:             benchName(r),
		BeginEnrollmentDateTime: at(),
		CloseEnrollmentDateTime: at(),
		BeginEventDateTime:      at(),
		EndEventDateTime:        at(),
		Location:                benchName(r)[:r.IntN(4)],
		BasePrice:               r.IntN(1000),
		MaxPrice:                r.IntN(2000),
		LimitOfEnrollment:       r.IntN(500),
		Status:                  statuses[r.IntN(len(statuses))],
		ManagerID:               1,
	}
}

// newBenchStore builds a store of benchEvents events with the indexes of the
// given properties built (the "id" one always is).
func newBenchStore(b *testing.B, seed uint64, props ...string) *Memory {
	b.Helper()
	r := rand.New(rand.NewPCG(seed, 42))
	m := NewMemory()
	for range benchEvents {
		if _, err := m.Create(benchEvent(r)); err != nil {
			b.Fatal(err)
		}
	}
	for _, p := range props {
		if _, err := m.List(Query{Size: 1, Sort: p}); err != nil {
			b.Fatal(err)
		}
	}
	return m
}

// lazyStore is a store built once and shared by the benchmarks that use it.
type lazyStore struct {
	once  sync.Once
	m     *Memory
	seed  uint64
	props []string
}

func (l *lazyStore) get(b *testing.B) *Memory {
	l.once.Do(func() {
		l.m = newBenchStore(b, l.seed, l.props...)
		runtime.GC() // not during the first measurement
	})
	if l.m == nil {
		b.Fatal("fixture not built")
	}
	return l.m
}

var (
	// readStore is only read: the List benchmarks.
	readStore = &lazyStore{seed: 1, props: []string{"name"}}
	// writeStore and writeAllStore are changed by Create and Update.
	writeStore    = &lazyStore{seed: 2, props: []string{"name"}}
	writeAllStore = &lazyStore{seed: 3, props: allProperties}
)

func BenchmarkList(b *testing.B) {
	lastPage := (benchEvents - 1) / benchPageSize
	for _, order := range []struct {
		name, sort string
		desc       bool
	}{
		{"id-asc", "id", false},
		{"id-desc", "id", true},
		{"name-asc", "name", false},
		{"name-desc", "name", true},
	} {
		for _, page := range []struct {
			name string
			page int
		}{{"first", 0}, {"last", lastPage}} {
			b.Run(order.name+"/"+page.name, func(b *testing.B) {
				m := readStore.get(b)
				q := Query{Page: page.page, Size: benchPageSize, Sort: order.sort, Desc: order.desc}
				for b.Loop() {
					p, err := m.List(q)
					if err != nil || len(p.Events) != benchPageSize || p.Total != benchEvents {
						b.Fatalf("List(%+v) = %d events, total %d, %v", q, len(p.Events), p.Total, err)
					}
				}
			})
		}
	}
}

// BenchmarkListNaiveSort is what a store without indexes does for one page
// sorted by name: copy every event, sort the copies by name then ID, and
// take the first page.
func BenchmarkListNaiveSort(b *testing.B) {
	byNameThenID := func(a, b *Event) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	}
	b.Run("copy-events", func(b *testing.B) {
		m := readStore.get(b)
		for b.Loop() {
			m.mu.RLock()
			all := make([]Event, 0, len(m.indexes["id"]))
			for _, e := range m.indexes["id"] {
				all = append(all, *e)
			}
			m.mu.RUnlock()
			slices.SortFunc(all, func(x, y Event) int {
				if c := strings.Compare(x.Name, y.Name); c != 0 {
					return c
				}
				return cmp.Compare(x.ID, y.ID)
			})
			page := slices.Clone(all[:benchPageSize])
			if len(page) != benchPageSize {
				b.Fatal("short page")
			}
		}
	})
	b.Run("copy-pointers", func(b *testing.B) {
		m := readStore.get(b)
		for b.Loop() {
			m.mu.RLock()
			all := slices.Clone(m.indexes["id"])
			m.mu.RUnlock()
			slices.SortFunc(all, byNameThenID)
			page := make([]Event, benchPageSize)
			for i := range page {
				page[i] = *all[i]
			}
		}
	})
}

// writeFixtures are the stores the writes are measured on: with the
// indexes a list by name needs, and with every index.
var writeFixtures = []struct {
	name  string
	store *lazyStore
}{{"indexes=id,name", writeStore}, {"indexes=all", writeAllStore}}

// benchWrites measures one write a loop on each of writeFixtures: prepare
// makes the writes' inputs with a generator seeded with seed and returns
// the i-th write, from 0, on a store.
func benchWrites(b *testing.B, seed uint64, prepare func(r *rand.Rand) func(m *Memory, i int) error) {
	for _, fixture := range writeFixtures {
		b.Run(fixture.name, func(b *testing.B) {
			m := fixture.store.get(b)
			write := prepare(rand.New(rand.NewPCG(seed, seed)))
			i := 0
			for b.Loop() {
				if err := write(m, i); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

func BenchmarkCreate(b *testing.B) {
	benchWrites(b, 7, func(r *rand.Rand) func(*Memory, int) error {
		events := make([]Event, 1024)
		for i := range events {
			events[i] = benchEvent(r)
		}
		return func(m *Memory, i int) error {
			_, err := m.Create(events[i%len(events)])
			return err
		}
	})
}

// BenchmarkUpdate renames a random event: its entry moves in the name index
// (and is removed and put back in every other index).
func BenchmarkUpdate(b *testing.B) {
	benchWrites(b, 8, func(r *rand.Rand) func(*Memory, int) error {
		names := make([]string, 1024)
		ids := make([]int64, 1024)
		for i := range names {
			names[i] = benchName(r)
			ids[i] = r.Int64N(benchEvents) + 1
		}
		return func(m *Memory, i int) error {
			name := names[i%len(names)]
			_, err := m.Update(ids[i%len(ids)], func(e *Event) error { e.Name = name; return nil })
			return err
		}
	})
}

// BenchmarkBuildIndex is the first list sorted by a property: the index of
// that property is built from the one by ID.
func BenchmarkBuildIndex(b *testing.B) {
	for _, prop := range []string{"name", "beginEventDateTime", "basePrice"} {
		b.Run(prop, func(b *testing.B) {
			m := newBenchStore(b, 7)
			for b.Loop() {
				delete(m.indexes, prop)
				if _, err := m.List(Query{Size: benchPageSize, Sort: prop}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
