package oauth

import (
	"context"
	"strings"
	"time"

	"eventsvc/server/backend"
)

// LiveTokens returns how many access tokens are issued and neither
// expired nor revoked, for the metrics. It costs one pass over the store.
func (s *Store) LiveTokens() (int, error) {
	now := s.clock.Now()
	n := 0
	for k, item := range s.cache.Items() {
		if e, ok := item.Object.(accessEntry); ok && strings.HasPrefix(k, "a:") && now.Before(e.expiresAt) {
			n++
		}
	}
	return n, nil
}

// LiveTokens returns how many access tokens are in Redis (each expires
// with its token, and a revoked one is deleted), for the metrics. It
// scans the keys of the prefix: one pass over the Redis, in steps.
func (s *RedisStore) LiveTokens() (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), max(s.timeout, 5*time.Second))
	defer cancel()
	n := 0
	iter := s.client.Scan(ctx, 0, s.prefix+"a:*", 1000).Iterator()
	for iter.Next(ctx) {
		n++
	}
	if err := iter.Err(); err != nil {
		return 0, backend.Unavailable(RedisBackend, "count tokens", err)
	}
	return n, nil
}
