package oauth

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"eventsvc/server/backendtest"
	"eventsvc/server/clock"
)

// redisStores returns n RedisStores on one real Redis, with one prefix of
// their own: n replicas sharing their tokens. Their clock is c.
func redisStores(t *testing.T, c clock.Clock, n int) ([]*RedisStore, *redis.Client, string) {
	t.Helper()
	r := backendtest.Redis(t)
	client := redis.NewClient(&redis.Options{Addr: r.Addr})
	t.Cleanup(func() { client.Close() })
	prefix := r.Prefix(t)
	var stores []*RedisStore
	for range n {
		stores = append(stores, NewRedisStore(client, c, RedisOptions{Prefix: prefix}))
	}
	return stores, client, prefix
}

func TestRedisStoreSharesTokensBetweenReplicas(t *testing.T) {
	c := clock.NewManual(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	stores, _, _ := redisStores(t, c, 2)
	a, b := stores[0], stores[1]
	issued, err := a.Issue(testGrant)
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Access(issued.AccessToken)
	if err != nil {
		t.Fatalf("a token of replica A on replica B: %v", err)
	}
	if got.AccountID != 7 || got.Username != "u@example.com" || !got.HasScope("write") || !got.HasResource("event") || got.ClientID != "app" {
		t.Fatalf("grant on B = %+v", got.Grant)
	}
	if _, err := b.Access(issued.RefreshToken); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("a refresh token as access token: %v", err)
	}
	c.Advance(AccessTokenValidity - time.Nanosecond)
	if _, err := b.Access(issued.AccessToken); err != nil {
		t.Fatalf("just before expiry: %v", err)
	}
	c.Advance(time.Nanosecond)
	if _, err := b.Access(issued.AccessToken); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("at expiry: %v, want invalid_token", err)
	}
}

func TestRedisStoreRefreshOnOneReplicaRevokesOnTheOther(t *testing.T) {
	c := clock.NewManual(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	stores, _, _ := redisStores(t, c, 2)
	a, b := stores[0], stores[1]
	first, _ := a.Issue(testGrant)
	c.Advance(time.Minute)
	second, err := a.Refresh(first.RefreshToken, "app", nil)
	if err != nil {
		t.Fatal(err)
	}
	if second.RefreshToken != first.RefreshToken || second.AccessToken == first.AccessToken {
		t.Fatalf("refresh gave %+v", second)
	}
	if _, err := b.Access(first.AccessToken); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("the replaced token on B: %v, want invalid_token", err)
	}
	if _, err := b.Access(second.AccessToken); err != nil {
		t.Fatalf("the new token on B: %v", err)
	}
	if _, err := b.Refresh(first.RefreshToken, "other", nil); !errors.Is(err, ErrInvalidGrant) {
		t.Fatalf("refresh by another client: %v", err)
	}
	if _, err := b.Refresh(first.RefreshToken, "app", []string{"delete"}); !errors.Is(err, ErrInvalidScope) {
		t.Fatalf("refresh with a scope not granted: %v", err)
	}
	narrow, err := b.Refresh(first.RefreshToken, "app", []string{"read"})
	if err != nil || strings.Join(narrow.Scopes, " ") != "read" {
		t.Fatalf("narrowed refresh: %+v, %v", narrow, err)
	}
	if got, _ := a.Access(narrow.AccessToken); got.HasScope("write") {
		t.Fatal("the narrowed token has write")
	}
	// The refresh token keeps its original expiry.
	c.Advance(RefreshTokenValidity - time.Minute)
	if _, err := b.Refresh(first.RefreshToken, "app", nil); !errors.Is(err, ErrInvalidGrant) {
		t.Fatalf("after the refresh token's validity: %v", err)
	}
	if _, err := a.Refresh("no-such-token", "app", nil); !errors.Is(err, ErrInvalidGrant) {
		t.Fatalf("an unknown refresh token: %v", err)
	}
}

// Two replicas refreshing one token at once leave exactly one access token
// of it alive: the revocation and the issue are one step in Redis.
func TestRedisStoreConcurrentRefreshesLeaveOneAccessToken(t *testing.T) {
	stores, _, _ := redisStores(t, clock.System{}, 2)
	first, err := stores[0].Issue(testGrant)
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	tokens := make(chan string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			issued, err := stores[i%2].Refresh(first.RefreshToken, "app", nil)
			if err != nil {
				t.Error(err)
				return
			}
			tokens <- issued.AccessToken
		}()
	}
	wg.Wait()
	close(tokens)
	alive := 0
	for tok := range tokens {
		if _, err := stores[0].Access(tok); err == nil {
			alive++
		}
	}
	if _, err := stores[1].Access(first.AccessToken); err == nil {
		alive++
	}
	if alive != 1 {
		t.Fatalf("%d access tokens alive after %d concurrent refreshes, want 1", alive, n)
	}
}

// Redis holds digests and grants, never a token, and every key expires
// with its token.
func TestRedisStoreKeepsNoTokenInClearAndExpiresKeys(t *testing.T) {
	stores, client, prefix := redisStores(t, clock.System{}, 1)
	issued, _ := stores[0].Issue(testGrant)
	ctx := context.Background()
	keys, err := client.Keys(ctx, prefix+"*").Result()
	if err != nil || len(keys) != 2 {
		t.Fatalf("keys %v, %v; want 2", keys, err)
	}
	for _, k := range keys {
		v, _ := client.Get(ctx, k).Result()
		for _, tok := range []string{issued.AccessToken, issued.RefreshToken} {
			if strings.Contains(k, tok) || strings.Contains(v, tok) {
				t.Errorf("key %s or its value holds a token in clear", k)
			}
		}
		ttl, _ := client.PTTL(ctx, k).Result()
		want := AccessTokenValidity
		if strings.HasPrefix(k, prefix+"r:") {
			want = RefreshTokenValidity
		}
		if ttl <= want-time.Minute || ttl > want {
			t.Errorf("key %s expires in %v, want about %v", k, ttl, want)
		}
	}
	if !strings.Contains(strings.Join(keys, " "), prefix+"a:"+digest(issued.AccessToken)) {
		t.Errorf("the access token is not keyed by its digest: %v", keys)
	}
}

// A Redis that is unreachable or silent makes every operation fail with
// backend.ErrUnavailable within the timeout, and once it answers again the
// store works again by itself.
func TestRedisStoreUnavailableThenRecovers(t *testing.T) {
	r, proxy, client := backendtest.RedisBehindProxy(t, 300*time.Millisecond)
	s := NewRedisStore(client, clock.System{}, RedisOptions{Prefix: r.Prefix(t), Timeout: 300 * time.Millisecond})
	issued, err := s.Issue(testGrant)
	if err != nil {
		t.Fatal(err)
	}
	proxy.CheckOutages(t, RedisBackend, 4*time.Second, map[string]func() error{
		"issue":   func() error { _, err := s.Issue(testGrant); return err },
		"access":  func() error { _, err := s.Access(issued.AccessToken); return err },
		"refresh": func() error { _, err := s.Refresh(issued.RefreshToken, "app", nil); return err },
		"ping":    func() error { return s.Ping(context.Background()) },
	}, 5*time.Second, func() error { _, err := s.Access(issued.AccessToken); return err })
}

// Lifetimes other than the specification's are those of the tokens, of
// expires_in and of the keys.
func TestRedisStoreIssuesWithItsLifetimes(t *testing.T) {
	r := backendtest.Redis(t)
	client := redis.NewClient(&redis.Options{Addr: r.Addr})
	defer client.Close()
	c := clock.NewManual(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	prefix := r.Prefix(t)
	s := NewRedisStore(client, c, RedisOptions{Prefix: prefix, AccessTTL: time.Minute, RefreshTTL: 2 * time.Minute})
	issued, err := s.Issue(testGrant)
	if err != nil || issued.ExpiresIn != 60 {
		t.Fatalf("issued %+v, %v; want expires_in 60", issued, err)
	}
	ctx := context.Background()
	if ttl, _ := client.PTTL(ctx, prefix+"a:"+digest(issued.AccessToken)).Result(); ttl <= 50*time.Second || ttl > time.Minute {
		t.Errorf("the access token's key expires in %v, want about 1m", ttl)
	}
	c.Advance(time.Minute)
	if _, err := s.Access(issued.AccessToken); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("after its minute: %v", err)
	}
	refreshed, err := s.Refresh(issued.RefreshToken, "app", nil)
	if err != nil || refreshed.ExpiresIn != 60 {
		t.Fatalf("refresh: %+v, %v", refreshed, err)
	}
	c.Advance(time.Minute)
	if _, err := s.Refresh(issued.RefreshToken, "app", nil); !errors.Is(err, ErrInvalidGrant) {
		t.Fatalf("after its two minutes: %v", err)
	}
}
