package throttle

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"eventsvc/server/clock"
)

func limits(failures int, window, lockout time.Duration) Limits {
	return Limits{Failures: failures, Window: window, Lockout: lockout, MaxKeys: DefaultMaxKeys}
}

// guesses numbers the wrong secrets of the tests, each a new guess.
var guesses atomic.Int64

// guess is a wrong secret not tried before.
func guess() string { return fmt.Sprintf("guess-%d", guesses.Add(1)) }

// fail makes one attempt of key that fails, with a new wrong secret, and
// reports whether it was let through.
func fail(th *Throttle, key Key) bool {
	if _, ok := th.Reserve(key); !ok {
		return false
	}
	th.Failed(key, guess())
	return true
}

func TestLocksAfterTooManyFailuresAndOpensAgain(t *testing.T) {
	c := clock.NewManual(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	th := New(limits(3, time.Minute, 5*time.Minute), c)
	a := KeyOf("a")
	for i := 0; i < 3; i++ {
		if !fail(th, a) {
			t.Fatalf("attempt %d refused", i+1)
		}
	}
	left, ok := th.Reserve(a)
	if ok || left != 5*time.Minute {
		t.Fatalf("after 3 failures: allowed %v, %v left, want refused for 5m", ok, left)
	}
	if left, ok := th.Check(a); ok || left != 5*time.Minute {
		t.Fatalf("Check after 3 failures: allowed %v, %v left", ok, left)
	}
	if _, ok := th.Reserve(KeyOf("b")); !ok {
		t.Fatal("another key is refused")
	}
	c.Advance(5*time.Minute - time.Second)
	if left, ok := th.Reserve(a); ok || left != time.Second {
		t.Fatalf("just before the end: allowed %v, %v left", ok, left)
	}
	c.Advance(time.Second)
	if _, ok := th.Reserve(a); !ok {
		t.Fatal("still refused after the lockout")
	}
}

func TestFailuresOutsideTheWindowDoNotAddUp(t *testing.T) {
	c := clock.NewManual(time.Unix(0, 0))
	th := New(limits(3, time.Minute, time.Hour), c)
	a := KeyOf("a")
	fail(th, a)
	fail(th, a)
	c.Advance(2 * time.Minute)
	fail(th, a)
	fail(th, a)
	if !fail(th, a) {
		t.Fatal("failures of an old window counted")
	}
}

func TestASuccessForgetsTheFailures(t *testing.T) {
	th := New(limits(3, time.Minute, time.Hour), clock.System{})
	a := KeyOf("a")
	fail(th, a)
	fail(th, a)
	th.Reserve(a)
	th.Succeeded(a)
	if th.Len() != 0 {
		t.Fatalf("Len %d after a success, want 0", th.Len())
	}
	fail(th, a)
	fail(th, a)
	if !fail(th, a) {
		t.Fatal("a failure before the success counted")
	}
}

func TestNilThrottleRefusesNothing(t *testing.T) {
	var th *Throttle
	for i := 0; i < 100; i++ {
		if !fail(th, KeyOf("a")) {
			t.Fatal("a nil throttle refused")
		}
	}
	th.Succeeded(KeyOf("a"))
	if _, ok := th.Check(KeyOf("a")); !ok || th.Len() != 0 {
		t.Fatal("a nil throttle remembers keys")
	}
}

// Attempts in progress count against the limit: however many arrive at
// once, exactly the allowed number are let through, the decision and the
// count being one step; the others are asked to wait a moment, not locked
// out, since none has failed yet.
func TestConcurrentAttemptsAreLetThroughAtMostTheAllowedNumberOfTimes(t *testing.T) {
	th := New(limits(10, time.Hour, time.Hour), clock.System{})
	var allowed atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < 500; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if _, ok := th.Reserve(KeyOf("shared")); ok {
				allowed.Add(1)
			}
			th.Reserve(KeyOf(fmt.Sprint("own", i)))
		}()
	}
	close(start)
	wg.Wait()
	if n := allowed.Load(); n != 10 {
		t.Fatalf("%d of 500 concurrent attempts were let through, want 10", n)
	}
	if left, ok := th.Check(KeyOf("shared")); ok || left != Busy {
		t.Fatalf("with 10 attempts in progress: allowed %v, %v left, want refused for %v", ok, left, Busy)
	}
	for i := 0; i < 10; i++ {
		th.Failed(KeyOf("shared"), guess())
	}
	if left, ok := th.Check(KeyOf("shared")); ok || left <= Busy {
		t.Fatalf("after they failed: allowed %v, %v left, want locked for about 1h", ok, left)
	}
}

// Successes in progress hold a place but lock nothing: once they are done,
// the key is free again.
func TestConcurrentSuccessesDoNotLockTheKey(t *testing.T) {
	th := New(limits(3, time.Hour, time.Hour), clock.System{})
	a := KeyOf("a")
	for i := 0; i < 3; i++ {
		th.Reserve(a)
	}
	if _, ok := th.Reserve(a); ok {
		t.Fatal("a fourth attempt in progress was let through")
	}
	for i := 0; i < 3; i++ {
		th.Succeeded(a)
	}
	if _, ok := th.Check(a); !ok || th.Len() != 0 {
		t.Fatalf("after three successes: allowed %v, Len %d", ok, th.Len())
	}
}

func TestTheLeastRecentlyUsedKeyIsForgottenFirst(t *testing.T) {
	th := New(Limits{Failures: 1, Window: time.Hour, Lockout: time.Hour, MaxKeys: 3}, clock.System{})
	for _, k := range []string{"a", "b", "c"} {
		fail(th, KeyOf(k)) // each is locked at once
	}
	th.Reserve(KeyOf("a")) // refused, and now the most recently used
	th.Reserve(KeyOf("d")) // forgets b
	th.Failed(KeyOf("d"), guess())
	if th.Len() != 3 {
		t.Fatalf("Len %d, want 3", th.Len())
	}
	// b last: being new again, it makes another key be forgotten.
	for _, k := range []string{"a", "c", "d"} {
		if _, ok := th.Check(KeyOf(k)); ok {
			t.Errorf("key %s is no longer locked", k)
		}
	}
	if _, ok := th.Reserve(KeyOf("b")); !ok {
		t.Error("key b, the least recently used, is still locked")
	}
}

func TestKeysAreForgottenAfterTheWindowAndTheLockout(t *testing.T) {
	c := clock.NewManual(time.Unix(0, 0))
	th := New(limits(2, time.Minute, 5*time.Minute), c)
	fail(th, KeyOf("a"))
	fail(th, KeyOf("a"))
	c.Advance(6 * time.Minute)
	fail(th, KeyOf("b"))
	if th.Len() != 2 {
		t.Fatalf("Len %d at the end of the lockout, want 2", th.Len())
	}
	c.Advance(time.Second)
	fail(th, KeyOf("c"))
	if th.Len() != 2 {
		t.Fatalf("Len %d, want 2: a is past its window and lockout", th.Len())
	}
}

func TestKeyOfCutsLongPartsAndKeepsPartsApart(t *testing.T) {
	long := strings.Repeat("x", MaxNameLen)
	if KeyOf("user", long+"a") != KeyOf("user", long+"b") {
		t.Error("the bytes past MaxNameLen count")
	}
	if KeyOf("user", long[1:]+"a") == KeyOf("user", long[1:]+"b") {
		t.Error("the last byte within MaxNameLen does not count")
	}
	if KeyOf("ab", "c") == KeyOf("a", "bc") {
		t.Error("parts run into each other")
	}
}

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestAFloodOfHugeUniqueNamesKeepsTheHeapBounded fails 30,000 unique
// names of 16 KB each (480 MB of names) against a table of 10,000 keys:
// the table holds 10,000 digests, and the heap grows by less than 8 MB
// (about 3 MB are expected, some 300 bytes a key).
func TestAFloodOfHugeUniqueNamesKeepsTheHeapBounded(t *testing.T) {
	const maxKeys, names = 10_000, 30_000
	th := New(Limits{Failures: 10, Window: time.Hour, Lockout: time.Hour, MaxKeys: maxKeys}, clock.System{})
	name := []byte(strings.Repeat("n", 16<<10))
	before := heapInUse()
	for i := 0; i < names; i++ {
		copy(name, fmt.Sprintf("%08d", i))
		fail(th, KeyOf("user", "127.0.0.1", string(name)))
	}
	after := heapInUse()
	if th.Len() != maxKeys {
		t.Fatalf("Len %d, want %d", th.Len(), maxKeys)
	}
	grown := int64(after) - int64(before)
	t.Logf("%d keys: heap grew by %d KB, %d bytes a key", maxKeys, grown>>10, grown/maxKeys)
	if grown > 8<<20 {
		t.Errorf("the heap grew by %d MB, want at most 8 MB", grown>>20)
	}
	runtime.KeepAlive(th)
}
