package main

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/redis/go-redis/v9"

	"eventsvc/server/backend"
	"eventsvc/server/clock"
	"eventsvc/server/event"
	"eventsvc/server/oauth"
	"eventsvc/server/throttle"
)

// keyPrefix starts every key the server writes to Redis.
const keyPrefix = "eventsvc:"

// backendFlags are serve's flags about where state lives.
type backendFlags struct {
	redisURL, databaseURL string
	timeout               time.Duration
	// lifetimes are those of the tokens a Redis store issues.
	lifetimes oauth.Lifetimes
	// lockout are the limits of the lockout; Failures below 1: none.
	lockout throttle.Limits
}

// backends are where the server keeps its state: in memory by default,
// in Redis and PostgreSQL when the flags say so. A nil tokens or lockout
// lets server.New build its own in memory.
type backends struct {
	flags    backendFlags
	events   event.Store
	postgres *event.Postgres
	redis    *redis.Client
	tokens   oauth.TokenStore
	lockout  throttle.Guard
	checkers []backend.Checker
}

// openBackends connects to the backends the flags name and checks that
// they answer: a server that starts is one that can serve.
func openBackends(f backendFlags) (*backends, error) {
	b := &backends{flags: f, events: event.NewMemory()}
	if f.redisURL != "" {
		client, err := backend.OpenRedis(f.redisURL, f.timeout)
		if err != nil {
			return nil, fmt.Errorf("-redis: %w", err)
		}
		b.redis = client
		store := oauth.NewRedisStore(client, clock.System{}, oauth.RedisOptions{Prefix: keyPrefix, Timeout: f.timeout, AccessTTL: f.lifetimes.Access, RefreshTTL: f.lifetimes.Refresh})
		ctx, cancel := context.WithTimeout(context.Background(), f.timeout)
		err = store.Ping(ctx)
		cancel()
		if err != nil {
			b.close()
			return nil, fmt.Errorf("-redis %s: %w", redact(f.redisURL), err)
		}
		b.tokens = store
		if f.lockout.Failures > 0 {
			b.lockout = throttle.NewRedisGuard(client, keyPrefix, f.lockout, clock.System{}, f.timeout)
		}
		b.checkers = append(b.checkers, store)
	}
	if f.databaseURL != "" {
		ctx, cancel := context.WithTimeout(context.Background(), max(f.timeout, 30*time.Second))
		pg, err := event.OpenPostgres(ctx, f.databaseURL, f.timeout)
		cancel()
		if err != nil {
			b.close()
			return nil, fmt.Errorf("-database %s: %w", redact(f.databaseURL), err)
		}
		b.postgres, b.events = pg, pg
		b.checkers = append(b.checkers, pg)
	}
	return b, nil
}

// describe says where the state lives, for the banner.
func (b *backends) describe() []string {
	var out []string
	if b.redis != nil {
		out = append(out, "tokens, revocations and lockouts in Redis "+redact(b.flags.redisURL)+", shared with every replica on it")
	}
	if b.postgres != nil {
		out = append(out, "events in PostgreSQL "+redact(b.flags.databaseURL)+", kept across restarts")
	}
	return out
}

// close closes the connections.
func (b *backends) close() {
	if b.postgres != nil {
		b.postgres.Close()
	}
	if b.redis != nil {
		_ = b.redis.Close()
	}
}

// redact is a backend URL without its password, to print.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an address that does not parse)"
	}
	return u.Redacted()
}
