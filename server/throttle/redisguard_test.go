package throttle

import (
	"context"
	"errors"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"eventsvc/server/backend"
	"eventsvc/server/backendtest"
	"eventsvc/server/clock"
)

// redisGuards returns n RedisGuards on one real Redis with a prefix of
// their own: the lockout of n replicas.
func redisGuards(t *testing.T, l Limits, c clock.Clock, n int) ([]*RedisGuard, *redis.Client, string) {
	t.Helper()
	r := backendtest.Redis(t)
	client, err := backend.OpenRedis(r.URL, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	prefix := r.Prefix(t)
	var gs []*RedisGuard
	for range n {
		gs = append(gs, NewRedisGuard(client, prefix, l, c, 2*time.Second))
	}
	return gs, client, prefix
}

// failOn makes one attempt of key on g that fails with a new wrong
// secret, and reports whether it was let through.
func failOn(t *testing.T, g Guard, key Key) bool {
	t.Helper()
	return failWith(t, g, key, guess())
}

// failWith makes one attempt of key on g that fails with the secret
// wrong, and reports whether it was let through.
func failWith(t *testing.T, g Guard, key Key, wrong string) bool {
	t.Helper()
	_, ok, err := g.Begin(key)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return false
	}
	if _, err := g.End(key, false, wrong); err != nil {
		t.Fatal(err)
	}
	return true
}

func TestRedisGuardLocksAfterFailuresOnAnyReplicaAndOpensAgain(t *testing.T) {
	c := clock.NewManual(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	gs, _, _ := redisGuards(t, limits(10, 15*time.Minute, 5*time.Minute), c, 2)
	a := KeyOf("user", "127.0.0.1", "u@example.com")
	for i := range 10 {
		if !failOn(t, gs[i%2], a) {
			t.Fatalf("attempt %d refused", i+1)
		}
	}
	for _, g := range gs {
		left, ok, err := g.Begin(a)
		if err != nil || ok || left != 5*time.Minute {
			t.Fatalf("after 10 failures over two replicas: allowed %v, %v left, %v; want refused for 5m", ok, left, err)
		}
		if left, ok, _ := g.Pass(a); ok || left != 5*time.Minute {
			t.Fatalf("Pass: allowed %v, %v left", ok, left)
		}
	}
	if _, ok, _ := gs[0].Begin(KeyOf("user", "127.0.0.1", "other")); !ok {
		t.Fatal("another key is refused")
	}
	c.Advance(5*time.Minute - time.Second)
	if left, ok, _ := gs[1].Begin(a); ok || left != time.Second {
		t.Fatalf("just before the end: allowed %v, %v left", ok, left)
	}
	c.Advance(time.Second)
	if _, ok, _ := gs[1].Begin(a); !ok {
		t.Fatal("still refused after the lockout")
	}
}

func TestRedisGuardSuccessForgetsAndOldFailuresDoNotAddUp(t *testing.T) {
	c := clock.NewManual(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	gs, _, _ := redisGuards(t, limits(3, time.Minute, time.Hour), c, 1)
	g, a := gs[0], KeyOf("a")
	failOn(t, g, a)
	failOn(t, g, a)
	if _, ok, _ := g.Begin(a); !ok {
		t.Fatal("refused after 2 of 3")
	}
	if _, err := g.End(a, true, ""); err != nil {
		t.Fatal(err)
	}
	failOn(t, g, a)
	failOn(t, g, a)
	c.Advance(time.Minute + time.Second)
	failOn(t, g, a)
	failOn(t, g, a)
	if _, ok, _ := g.Pass(a); !ok {
		t.Fatal("failures before a success, or outside the window, added up")
	}
}

// TestGuardsPassForgetsTheFailures: a credential known right (Pass) clears
// the failures before it, in memory and in Redis, and is refused while
// its key is locked.
func TestGuardsPassForgetsTheFailures(t *testing.T) {
	c := clock.NewManual(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	l := limits(3, time.Minute, time.Hour)
	gs, _, _ := redisGuards(t, l, c, 1)
	for name, g := range map[string]Guard{"memory": New(l, c), "redis": gs[0]} {
		a := KeyOf(name)
		failOn(t, g, a)
		failOn(t, g, a)
		if _, ok, err := g.Pass(a); !ok || err != nil {
			t.Fatalf("%s: Pass after 2 of 3 failures: %v, %v", name, ok, err)
		}
		failOn(t, g, a)
		failOn(t, g, a)
		if _, ok, _ := g.Begin(a); !ok {
			t.Fatalf("%s: failures before a Pass added up to a lockout", name)
		}
		g.End(a, false, guess())
		if left, ok, _ := g.Pass(a); ok || left != time.Hour {
			t.Fatalf("%s: Pass of a locked key: %v, %v left; want refused for 1h", name, ok, left)
		}
	}
}

// However many attempts reach two replicas at once, at most Failures are
// let through: the reservation is one step in Redis.
func TestRedisGuardReservesAtomicallyAcrossReplicas(t *testing.T) {
	gs, _, _ := redisGuards(t, limits(10, 15*time.Minute, 5*time.Minute), clock.System{}, 2)
	a := KeyOf("user", "10.0.0.1", "victim")
	var through atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, ok, err := gs[i%2].Begin(a)
			if err != nil {
				t.Error(err)
				return
			}
			if ok {
				through.Add(1)
			}
		}()
	}
	close(start)
	wg.Wait()
	if n := through.Load(); n != 10 {
		t.Fatalf("%d of 60 concurrent attempts let through, want 10", n)
	}
}

// An attempt reserved by a replica that stopped before it ended stops
// counting after ReservationTTL.
func TestRedisGuardForgetsAbandonedReservations(t *testing.T) {
	c := clock.NewManual(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	gs, _, _ := redisGuards(t, limits(2, 15*time.Minute, 5*time.Minute), c, 1)
	a := KeyOf("a")
	gs[0].Begin(a)
	gs[0].Begin(a)
	if left, ok, _ := gs[0].Begin(a); ok || left != Busy {
		t.Fatalf("two in progress of two: allowed %v, %v", ok, left)
	}
	c.Advance(ReservationTTL + time.Millisecond)
	if _, ok, _ := gs[0].Begin(a); !ok {
		t.Fatal("abandoned reservations still count")
	}
}

// Redis holds digests only, and every key expires.
func TestRedisGuardKeysAreDigestsThatExpire(t *testing.T) {
	gs, client, prefix := redisGuards(t, limits(10, 15*time.Minute, 5*time.Minute), clock.System{}, 1)
	failOn(t, gs[0], KeyOf("user", "192.0.2.7", "secret-name@example.com"))
	gs[0].Begin(KeyOf("client", "192.0.2.7", "myApp"))
	ctx := context.Background()
	keys, _ := client.Keys(ctx, prefix+"*").Result()
	if len(keys) != 2 { // the failures of one, the attempt in progress of the other
		t.Fatalf("keys %v, want 2", keys)
	}
	digest := regexp.MustCompile(`^` + regexp.QuoteMeta(prefix) + `[lp]:[0-9a-f]{64}$`)
	for _, k := range keys {
		if !digest.MatchString(k) {
			t.Errorf("key %q is not a digest", k)
		}
		if ttl, _ := client.PTTL(ctx, k).Result(); ttl <= 0 || ttl > 20*time.Minute {
			t.Errorf("key %q expires in %v", k, ttl)
		}
	}
}

// A Redis that cannot be reached lets nothing through, and says so.
func TestRedisGuardUnavailableRefuses(t *testing.T) {
	r, proxy, client := backendtest.RedisBehindProxy(t, 300*time.Millisecond)
	g := NewRedisGuard(client, r.Prefix(t), limits(10, time.Minute, time.Minute), clock.System{}, 300*time.Millisecond)
	proxy.Cut()
	if _, ok, err := g.Begin(KeyOf("a")); ok || !errors.Is(err, backend.ErrUnavailable) {
		t.Fatalf("Begin: ok %v, err %v; want refused, unavailable", ok, err)
	}
	if _, ok, err := g.Pass(KeyOf("a")); ok || !errors.Is(err, backend.ErrUnavailable) {
		t.Fatalf("Pass: ok %v, err %v", ok, err)
	}
	if _, err := g.End(KeyOf("a"), false, guess()); !errors.Is(err, backend.ErrUnavailable) {
		t.Fatalf("End: %v", err)
	}
	proxy.Restore()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, ok, err := g.Begin(KeyOf("a")); ok && err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("Redis is back and Begin still fails: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// End tells which failure locked the key, on both Guards.
func TestEndTellsTheFailureThatLocks(t *testing.T) {
	c := clock.NewManual(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	gs, _, _ := redisGuards(t, limits(3, time.Minute, time.Minute), c, 1)
	for name, g := range map[string]Guard{"memory": New(limits(3, time.Minute, time.Minute), c), "redis": gs[0]} {
		a := KeyOf("a")
		for i := 1; i <= 3; i++ {
			if _, ok, err := g.Begin(a); !ok || err != nil {
				t.Fatalf("%s: attempt %d refused: %v", name, i, err)
			}
			locked, err := g.End(a, false, guess())
			if err != nil || locked != (i == 3) {
				t.Errorf("%s: failure %d: locked %v, %v; want %v", name, i, locked, err, i == 3)
			}
		}
	}
}

// TestAWrongSecretTriedLatelyCountsOnce: on both Guards, the same wrong
// secret again and again counts as one failure, as long as it is one of
// the key's RecentWrong latest; every new guess counts, and one older
// than those counts again.
func TestAWrongSecretTriedLatelyCountsOnce(t *testing.T) {
	c := clock.NewManual(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	gs, _, _ := redisGuards(t, limits(5, time.Minute, time.Minute), c, 1)
	for name, g := range map[string]Guard{"memory": New(limits(5, time.Minute, time.Minute), c), "redis": gs[0]} {
		try := func(key Key, wrong string) bool {
			t.Helper()
			return failWith(t, g, key, wrong)
		}
		a := KeyOf(name, "a")
		for i := range 50 {
			if !try(a, []string{"stale", "user-wrong", "pass"}[i%3]) {
				t.Fatalf("%s: the same three wrong secrets, attempt %d refused", name, i+1)
			}
		}
		// A new guess is the fourth failure; then "stale", three others
		// after it, is the fifth, which locks the key.
		if !try(a, "new-1") || !try(a, "stale") {
			t.Fatalf("%s: refused before the fifth failure", name)
		}
		if try(a, "pass") {
			t.Errorf("%s: five failures do not lock the key", name)
		}
	}
}
