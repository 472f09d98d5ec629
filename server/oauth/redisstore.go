package oauth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/redis/go-redis/v9"

	"eventsvc/server/backend"
	"eventsvc/server/clock"
)

// RedisBackend names the Redis of the tokens in errors and reports.
const RedisBackend = "redis (tokens)"

// DefaultRedisTimeout bounds each operation of a RedisStore.
const DefaultRedisTimeout = 2 * time.Second

// RedisStore is a TokenStore in Redis, shared by every replica of the
// server: a token issued by one is honoured by all, and a refresh on one
// revokes the replaced access token for all. Tokens are keyed by their
// SHA-256 digest, as in Store, and the values hold the grant and digests
// only: a dump of the Redis holds no usable token. Each token expires in
// Redis (a TTL) when it does; validity itself is checked against the
// injected clock, as Store does.
//
// Keys: Prefix+"a:"+digest (an access token), Prefix+"r:"+digest (a
// refresh token, with the digest of the access token it last issued).
type RedisStore struct {
	client          redis.UniversalClient
	prefix          string
	clock           clock.Clock
	random          io.Reader
	timeout         time.Duration
	access, refresh time.Duration // lifetimes
}

// RedisOptions configure a RedisStore.
type RedisOptions struct {
	// Prefix starts every key, so that several servers or tests can share
	// one Redis. Default: "eventsvc:".
	Prefix string
	// Timeout bounds each operation. Zero: DefaultRedisTimeout.
	Timeout time.Duration
	// AccessTTL and RefreshTTL are the lifetimes of the tokens it issues.
	// Zero: AccessTokenValidity and RefreshTokenValidity (spec CLI-5,
	// CLI-6).
	AccessTTL, RefreshTTL time.Duration
}

// NewRedisStore returns a RedisStore on client that reads the time from c
// and draws tokens from crypto/rand.
func NewRedisStore(client redis.UniversalClient, c clock.Clock, o RedisOptions) *RedisStore {
	if o.Prefix == "" {
		o.Prefix = "eventsvc:"
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultRedisTimeout
	}
	if o.AccessTTL <= 0 {
		o.AccessTTL = AccessTokenValidity
	}
	if o.RefreshTTL <= 0 {
		o.RefreshTTL = RefreshTokenValidity
	}
	return &RedisStore{client: client, prefix: o.Prefix, clock: c, random: rand.Reader, timeout: o.Timeout,
		access: o.AccessTTL, refresh: o.RefreshTTL}
}

var _ TokenStore = (*RedisStore)(nil)

// Lifetimes returns the lifetimes of the tokens s issues.
func (s *RedisStore) Lifetimes() Lifetimes { return Lifetimes{Access: s.access, Refresh: s.refresh} }

// redisToken is the value of a token's key.
type redisToken struct {
	ClientID    string   `json:"c"`
	AccountID   int64    `json:"a"`
	Username    string   `json:"u"`
	Scopes      []string `json:"s"`
	ResourceIDs []string `json:"r"`
	ExpiresAt   int64    `json:"e"`           // Unix nanoseconds
	AccessKey   string   `json:"k,omitempty"` // refresh tokens: the digest of the access token last issued
}

func newRedisToken(g Grant, expiresAt time.Time) redisToken {
	return redisToken{ClientID: g.ClientID, AccountID: g.AccountID, Username: g.Username,
		Scopes: g.Scopes, ResourceIDs: g.ResourceIDs, ExpiresAt: expiresAt.UnixNano()}
}

func (t redisToken) grant() Grant {
	return Grant{ClientID: t.ClientID, AccountID: t.AccountID, Username: t.Username, Scopes: t.Scopes, ResourceIDs: t.ResourceIDs}
}

func (t redisToken) expiresAt() time.Time { return time.Unix(0, t.ExpiresAt) }

func (t redisToken) encode() string {
	b, _ := json.Marshal(t) // strings, numbers and lists of strings only
	return string(b)
}

// ttl is how long Redis keeps a key that expires at t: at least 1 ms.
func ttl(now, t time.Time) time.Duration { return max(t.Sub(now), time.Millisecond) }

// Issue implements TokenStore.
func (s *RedisStore) Issue(g Grant) (Issued, error) {
	now := s.clock.Now()
	refresh, refreshKey, err := drawToken(s.random)
	if err != nil {
		return Issued{}, err
	}
	access, accessKey, err := drawToken(s.random)
	if err != nil {
		return Issued{}, err
	}
	a := newRedisToken(g, now.Add(s.access))
	r := newRedisToken(g, now.Add(s.refresh))
	r.AccessKey = accessKey
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	_, err = s.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, s.prefix+"a:"+accessKey, a.encode(), s.access)
		p.Set(ctx, s.prefix+"r:"+refreshKey, r.encode(), s.refresh)
		return nil
	})
	if err != nil {
		return Issued{}, backend.Unavailable(RedisBackend, "store tokens", err)
	}
	return Issued{AccessToken: access, RefreshToken: refresh, ExpiresIn: int64(s.access / time.Second), Scopes: g.Scopes}, nil
}

// refreshScript replaces the access token of a refresh token in one step,
// if the refresh token's value is still the one read (KEYS: the refresh
// token, the access token replaced, the new access token; ARGV: the value
// read, the new value and its TTL in ms, the new access token's value and
// its TTL in ms). It returns 1, or 0 when another refresh came first.
var refreshScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[2])
redis.call('SET', KEYS[3], ARGV[4], 'PX', ARGV[5])
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`)

// Refresh implements TokenStore. The revocation of the access token
// replaced and the issue of the new one are one step in Redis (a Lua
// script that checks the refresh token did not change meanwhile): two
// replicas refreshing the same token at once each revoke what the other
// issued, and no access token of it is left alive but the last.
//
// A refresh that finds another came first reads the token again. Every
// round of such a race has a winner, so n refreshes at once all finish
// within n rounds; they are bounded by the store's timeout as a whole,
// not by a count of rounds, which a burst of parallel refreshes from one
// client (a mobile app's requests on a token that just expired) would
// exhaust.
func (s *RedisStore) Refresh(refreshToken, clientID string, scopes []string) (Issued, error) {
	refreshKey := s.prefix + "r:" + digest(refreshToken)
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	for {
		issued, retry, err := s.refreshOnce(ctx, refreshKey, refreshToken, clientID, scopes)
		if !retry {
			return issued, err
		}
		if ctx.Err() != nil {
			return Issued{}, backend.Unavailable(RedisBackend, "refresh", fmt.Errorf("the refresh token changed on every try for %v: %w", s.timeout, ctx.Err()))
		}
	}
}

// refreshOnce is one try of Refresh; retry says another refresh came
// first.
func (s *RedisStore) refreshOnce(ctx context.Context, refreshKey, refreshToken, clientID string, scopes []string) (_ Issued, retry bool, _ error) {
	now := s.clock.Now()
	read, err := s.client.Get(ctx, refreshKey).Result()
	if errors.Is(err, redis.Nil) {
		return Issued{}, false, ErrInvalidGrant.WithDescription("the refresh token is not valid")
	} else if err != nil {
		return Issued{}, false, backend.Unavailable(RedisBackend, "read refresh token", err)
	}
	var r redisToken
	if err := json.Unmarshal([]byte(read), &r); err != nil {
		return Issued{}, false, fmt.Errorf("decode refresh token entry: %w", err)
	}
	if !now.Before(r.expiresAt()) {
		return Issued{}, false, ErrInvalidGrant.WithDescription("the refresh token has expired")
	}
	if r.ClientID != clientID {
		return Issued{}, false, ErrInvalidGrant.WithDescription("the refresh token was issued to another client")
	}
	g := r.grant()
	if len(scopes) > 0 {
		for _, sc := range scopes {
			if !g.HasScope(sc) {
				return Issued{}, false, ErrInvalidScope.WithDescription("scope %q was not granted to the refresh token", sc)
			}
		}
		g.Scopes = scopes
	}
	access, accessKey, err := drawToken(s.random)
	if err != nil {
		return Issued{}, false, err
	}
	oldAccess := r.AccessKey
	r.AccessKey = accessKey
	a := newRedisToken(g, now.Add(s.access))
	done, err := refreshScript.Run(ctx, s.client,
		[]string{refreshKey, s.prefix + "a:" + oldAccess, s.prefix + "a:" + accessKey},
		read, r.encode(), ttl(now, r.expiresAt()).Milliseconds(), a.encode(), s.access.Milliseconds(),
	).Int()
	if err != nil {
		return Issued{}, false, backend.Unavailable(RedisBackend, "refresh", err)
	}
	if done == 0 {
		return Issued{}, true, nil
	}
	return Issued{AccessToken: access, RefreshToken: refreshToken, ExpiresIn: int64(s.access / time.Second), Scopes: g.Scopes}, false, nil
}

// Access implements TokenStore.
func (s *RedisStore) Access(token string) (AccessToken, error) {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	v, err := s.client.Get(ctx, s.prefix+"a:"+digest(token)).Result()
	if errors.Is(err, redis.Nil) {
		return AccessToken{}, ErrInvalidToken.WithDescription("the access token is not valid")
	} else if err != nil {
		return AccessToken{}, backend.Unavailable(RedisBackend, "read access token", err)
	}
	var a redisToken
	if err := json.Unmarshal([]byte(v), &a); err != nil {
		return AccessToken{}, fmt.Errorf("decode access token entry: %w", err)
	}
	if !s.clock.Now().Before(a.expiresAt()) {
		return AccessToken{}, ErrInvalidToken.WithDescription("the access token has expired")
	}
	return AccessToken{Grant: a.grant(), ExpiresAt: a.expiresAt()}, nil
}

// Name implements backend.Checker.
func (s *RedisStore) Name() string { return RedisBackend }

// Ping implements backend.Checker.
func (s *RedisStore) Ping(ctx context.Context) error {
	if err := s.client.Ping(ctx).Err(); err != nil {
		return backend.Unavailable(RedisBackend, "ping", err)
	}
	return nil
}

// drawToken draws a new token from random, and returns it with its digest.
func drawToken(random io.Reader) (token, key string, err error) {
	b := make([]byte, tokenBytes)
	if _, err := io.ReadFull(random, b); err != nil {
		return "", "", fmt.Errorf("draw token: %w", err)
	}
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, digest(token), nil
}
