package secret

import (
	"fmt"
	"sync/atomic"
)

// Kind says how a Registry checks, names and indexes what it holds, each
// a holder of a stored secret (an account, a client). Its methods belong to
// a value that holds nothing, such as a struct{}: a Registry calls them on
// the zero K.
type Kind[T any] interface {
	// Noun names a holder in errors: "account", "client".
	Noun() string
	// DummySecret is the plain secret of the registry's Dummy, one no
	// holder has.
	DummySecret() string
	// Check validates a copy of the holder at 1-based position pos and
	// returns it as the registry keeps it.
	Check(h T, pos int) (T, error)
	// Label names the holder in errors, after its position: its email,
	// its id.
	Label(h T) string
	// Keys are what the holder is looked up by, first the one it
	// authenticates with; no two holders may share a key.
	Keys(h T) []any
	// Repeated is the error of a key of h another holder has.
	Repeated(h T, key any) error
	// Stored is the holder's stored secret.
	Stored(h T) string
	// Clone returns a copy of the holder that shares no memory with it.
	Clone(h T) T
}

// Registry holds the holders of stored secrets of a Kind, in the order
// given, and looks them up by key. Its set is replaced whole (Replace),
// never changed in place: each lookup reads one set, before or after a
// replacement, with one atomic load and no lock. Its zero value holds
// nothing and is ready to use; it is safe for concurrent use. A lookup
// returns a copy of a holder, never the one kept.
type Registry[T any, K Kind[T]] struct {
	set atomic.Pointer[holders[T]]
}

// holders is one immutable set of a Registry.
type holders[T any] struct {
	list  []T
	byKey map[any]int // index in list
	dummy Dummy
}

// Replace checks each holder with the Kind's Check and, when all pass and
// no two share a key, makes copies of them the registry's set in one step:
// a lookup sees either the old holders or the new ones, never a mix. When
// they do not pass, the registry keeps its set, and the error names the
// first holder that failed by 1-based position and Label.
func (r *Registry[T, K]) Replace(list []T) error {
	var k K
	old := r.load()
	s := &holders[T]{list: make([]T, 0, len(list)), byKey: make(map[any]int, len(list))}
	stored := make([]string, 0, len(list))
	for i, h := range list {
		pos := i + 1
		h, err := k.Check(k.Clone(h), pos)
		if err != nil {
			return fmt.Errorf("%s %d %q: %w", k.Noun(), pos, k.Label(h), err)
		}
		keys := k.Keys(h)
		for _, key := range keys {
			if j, dup := s.byKey[key]; dup {
				return fmt.Errorf("%s %d %q: %w, same as %s %d", k.Noun(), pos, k.Label(h), k.Repeated(h, key), k.Noun(), j+1)
			}
		}
		for _, key := range keys {
			s.byKey[key] = i
		}
		s.list = append(s.list, h)
		stored = append(stored, k.Stored(h))
	}
	var err error
	// The dummy costs as much as the dearest holder, so that an unknown
	// key takes as long as any holder's wrong secret, never less; old's
	// is kept when it has that cost.
	if s.dummy, err = NewDummy(k.DummySecret(), stored, old.dummy); err != nil {
		return fmt.Errorf("%s registry: %w", k.Noun(), err)
	}
	r.set.Store(s)
	return nil
}

// load is the registry's set; empty for a zero Registry.
func (r *Registry[T, K]) load() *holders[T] {
	if s := r.set.Load(); s != nil {
		return s
	}
	return &holders[T]{}
}

// Authenticate returns the holder with the given key whose secret is
// plain. An unknown key and a wrong secret both report false, after the
// same bcrypt work.
func (r *Registry[T, K]) Authenticate(key any, plain string) (T, bool) {
	var k K
	var zero T
	s := r.load()
	i, ok := s.byKey[key]
	if !ok {
		_ = Check(s.dummy.Stored, plain) // equal timing; the result does not matter
		return zero, false
	}
	if err := Check(k.Stored(s.list[i]), plain); err != nil {
		return zero, false
	}
	return k.Clone(s.list[i]), true
}

// Lookup returns the holder with the given key.
func (r *Registry[T, K]) Lookup(key any) (T, bool) {
	var k K
	s := r.load()
	i, ok := s.byKey[key]
	if !ok {
		var zero T
		return zero, false
	}
	return k.Clone(s.list[i]), true
}

// Len returns the number of holders.
func (r *Registry[T, K]) Len() int {
	return len(r.load().list)
}

// All returns the holders, in the order they were given.
func (r *Registry[T, K]) All() []T {
	var k K
	s := r.load()
	out := make([]T, len(s.list))
	for i, h := range s.list {
		out[i] = k.Clone(h)
	}
	return out
}

// First returns the first holder, in the order they were given, if there
// is one.
func (r *Registry[T, K]) First() (T, bool) {
	var k K
	s := r.load()
	if len(s.list) == 0 {
		var zero T
		return zero, false
	}
	return k.Clone(s.list[0]), true
}

// Dummy returns the Dummy an unknown key is checked against.
func (r *Registry[T, K]) Dummy() Dummy {
	return r.load().dummy
}
