package event

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// Sentinel errors, for errors.Is.
var (
	// ErrNotFound reports an event that does not exist.
	ErrNotFound = errors.New("event not found")
	// ErrLimitReached reports a create refused because the manager already
	// manages as many events as allowed.
	ErrLimitReached = errors.New("the manager manages as many events as allowed")
)

// Store keeps events. Implementations are safe for concurrent use.
type Store interface {
	// Create stores e as a new event with a fresh ID and returns it.
	Create(e Event) (Event, error)
	// CreateLimited is Create, refused with ErrLimitReached when e's
	// manager already manages limit events or more, as one step: however
	// many creates run at once, none goes past the limit. A limit of 0 or
	// less is no limit.
	CreateLimited(e Event, limit int) (Event, error)
	// Get returns the event with the ID, or ErrNotFound.
	Get(id int64) (Event, error)
	// Update applies change to the event with the ID as one step: no other
	// change to it runs in between. When change returns an error, nothing
	// changes and that error is returned. ErrNotFound when there is no such
	// event.
	Update(id int64, change func(*Event) error) (Event, error)
	// List returns one page of the events in the query's order.
	List(q Query) (Page, error)
}

// Query selects a page of events.
type Query struct {
	Page int    // 0-based
	Size int    // at least 1
	Sort string // a sortable property (see Sortable); empty: "id"
	Desc bool
}

// Page is one page of events and the number of events in all pages.
type Page struct {
	Events []Event
	Total  int
}

// sortKeys compares two events by one property; ties are broken by ID.
var sortKeys = map[string]func(a, b *Event) int{
	"id":                      func(a, b *Event) int { return 0 },
	"name":                    func(a, b *Event) int { return strings.Compare(a.Name, b.Name) },
	"description":             func(a, b *Event) int { return strings.Compare(a.Description, b.Description) },
	"location":                func(a, b *Event) int { return strings.Compare(a.Location, b.Location) },
	"beginEnrollmentDateTime": func(a, b *Event) int { return a.BeginEnrollmentDateTime.Compare(b.BeginEnrollmentDateTime) },
	"closeEnrollmentDateTime": func(a, b *Event) int { return a.CloseEnrollmentDateTime.Compare(b.CloseEnrollmentDateTime) },
	"beginEventDateTime":      func(a, b *Event) int { return a.BeginEventDateTime.Compare(b.BeginEventDateTime) },
	"endEventDateTime":        func(a, b *Event) int { return a.EndEventDateTime.Compare(b.EndEventDateTime) },
	"basePrice":               func(a, b *Event) int { return a.BasePrice - b.BasePrice },
	"maxPrice":                func(a, b *Event) int { return a.MaxPrice - b.MaxPrice },
	"limitOfEnrollment":       func(a, b *Event) int { return a.LimitOfEnrollment - b.LimitOfEnrollment },
	"offline":                 func(a, b *Event) int { return boolCompare(a.Offline, b.Offline) },
	"free":                    func(a, b *Event) int { return boolCompare(a.Free, b.Free) },
	"eventStatus":             func(a, b *Event) int { return strings.Compare(string(a.Status), string(b.Status)) },
}

// Sortable reports whether events can be sorted by the property.
func Sortable(property string) bool {
	_, ok := sortKeys[property]
	return ok
}

// SortableProperties lists the properties events can be sorted by.
func SortableProperties() []string {
	var out []string
	for p := range sortKeys {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func boolCompare(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// Memory is the in-memory Store. It keeps, for each property events have
// been sorted by, an index sorted by that property and then by ID, built on
// the first such query and kept in order on every change. A page is then a
// slice of an index: listing costs O(page size), not O(events), however many
// events there are. A change costs O(log n) to find and O(n) pointer moves
// per index.
type Memory struct {
	mu      sync.RWMutex
	nextID  int64
	byID    map[int64]*Event
	managed map[int64]int       // manager ID → number of events
	indexes map[string][]*Event // "id" always exists
}

// NewMemory returns an empty Memory store.
func NewMemory() *Memory {
	return &Memory{byID: map[int64]*Event{}, managed: map[int64]int{}, indexes: map[string][]*Event{"id": nil}}
}

// Create implements Store.
func (m *Memory) Create(e Event) (Event, error) {
	return m.CreateLimited(e, 0)
}

// CreateLimited implements Store.
func (m *Memory) CreateLimited(e Event, limit int) (Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if limit > 0 && m.managed[e.ManagerID] >= limit {
		return Event{}, fmt.Errorf("manager %d: %w (%d)", e.ManagerID, ErrLimitReached, limit)
	}
	m.managed[e.ManagerID]++
	m.nextID++
	e.ID = m.nextID
	e.compute()
	stored := &e
	m.byID[e.ID] = stored
	for prop := range m.indexes {
		m.insert(prop, stored)
	}
	return e, nil
}

// Get implements Store.
func (m *Memory) Get(id int64) (Event, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	e, ok := m.byID[id]
	if !ok {
		return Event{}, ErrNotFound
	}
	return *e, nil
}

// Update implements Store. Stored events are never changed in place: the
// change is made on a copy that then replaces the original in every index.
func (m *Memory) Update(id int64, change func(*Event) error) (Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old, ok := m.byID[id]
	if !ok {
		return Event{}, ErrNotFound
	}
	next := *old
	if err := change(&next); err != nil {
		return Event{}, err
	}
	next.ID = id
	next.compute()
	if next.ManagerID != old.ManagerID {
		m.managed[old.ManagerID]--
		m.managed[next.ManagerID]++
	}
	for prop := range m.indexes {
		if sortKeys[prop](old, &next) == 0 {
			m.replace(prop, old, &next) // same place in this order
			continue
		}
		m.remove(prop, old)
		m.insert(prop, &next)
	}
	m.byID[id] = &next
	return next, nil
}

// List implements Store.
func (m *Memory) List(q Query) (Page, error) {
	if q.Sort == "" {
		q.Sort = "id"
	}
	if !Sortable(q.Sort) {
		return Page{}, fmt.Errorf("events cannot be sorted by %q", q.Sort)
	}
	if q.Page < 0 || q.Size < 1 {
		return Page{}, fmt.Errorf("page %d of size %d does not exist", q.Page, q.Size)
	}
	m.mu.RLock()
	index, ok := m.indexes[q.Sort]
	m.mu.RUnlock()
	if !ok {
		m.build(q.Sort)
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	index = m.indexes[q.Sort]
	n := len(index)
	p := Page{Total: n}
	if q.Page > n/q.Size { // also keeps Page*Size from overflowing
		return p, nil
	}
	start := q.Page * q.Size
	if start >= n {
		return p, nil
	}
	end := min(start+q.Size, n)
	p.Events = make([]Event, 0, end-start)
	for i := start; i < end; i++ {
		if q.Desc {
			p.Events = append(p.Events, *index[n-1-i])
		} else {
			p.Events = append(p.Events, *index[i])
		}
	}
	return p, nil
}

// build creates the index of a property, once.
func (m *Memory) build(prop string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.indexes[prop]; ok {
		return
	}
	index := append([]*Event(nil), m.indexes["id"]...)
	compare := sortKeys[prop]
	sortIndex(index, func(a, b *Event) int {
		if c := compare(a, b); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	}, runtime.GOMAXPROCS(0))
	m.indexes[prop] = index
}

func (m *Memory) less(prop string) func(a, b *Event) bool {
	cmp := sortKeys[prop]
	return func(a, b *Event) bool {
		if c := cmp(a, b); c != 0 {
			return c < 0
		}
		return a.ID < b.ID
	}
}

func (m *Memory) insert(prop string, e *Event) {
	index, less := m.indexes[prop], m.less(prop)
	i := sort.Search(len(index), func(i int) bool { return less(e, index[i]) })
	index = append(index, nil)
	copy(index[i+1:], index[i:])
	index[i] = e
	m.indexes[prop] = index
}

// position finds e in the index of prop, or returns -1.
func (m *Memory) position(prop string, e *Event) int {
	index, less := m.indexes[prop], m.less(prop)
	i := sort.Search(len(index), func(i int) bool { return !less(index[i], e) })
	if i < len(index) && index[i] == e {
		return i
	}
	return -1
}

func (m *Memory) replace(prop string, old, next *Event) {
	if i := m.position(prop, old); i >= 0 {
		m.indexes[prop][i] = next
	}
}

func (m *Memory) remove(prop string, e *Event) {
	if i := m.position(prop, e); i >= 0 {
		m.indexes[prop] = append(m.indexes[prop][:i], m.indexes[prop][i+1:]...)
	}
}
