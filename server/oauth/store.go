package oauth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/patrickmn/go-cache"

	"eventsvc/server/clock"
)

// Validity of the tokens the reference server issues (spec CLI-5, CLI-6).
const (
	AccessTokenValidity  = 600 * time.Second
	RefreshTokenValidity = 3600 * time.Second
)

// tokenBytes is the number of random bytes in a token: 256 bits.
const tokenBytes = 32

// Grant is what a token stands for: which client obtained it, for which
// account, with which scopes and for which resources.
type Grant struct {
	ClientID    string
	AccountID   int64
	Username    string
	Scopes      []string
	ResourceIDs []string
}

// HasScope reports whether the grant includes scope.
func (g Grant) HasScope(scope string) bool { return slices.Contains(g.Scopes, scope) }

// HasResource reports whether the grant is valid for the resource id.
func (g Grant) HasResource(id string) bool { return slices.Contains(g.ResourceIDs, id) }

// AccessToken is a valid access token as the resource server sees it.
type AccessToken struct {
	Grant
	ExpiresAt time.Time
}

// Issued is the outcome of a grant: the two opaque tokens and what they allow.
type Issued struct {
	AccessToken  string
	RefreshToken string
	// ExpiresIn is the whole number of seconds the access token has left.
	ExpiresIn int64
	Scopes    []string
}

type accessEntry struct {
	grant     Grant
	expiresAt time.Time
	issuedAt  time.Time
	hint      string // the token's first characters, for Live
}

type refreshEntry struct {
	grant     Grant
	expiresAt time.Time
	accessKey string // the access token this refresh token last issued
	issuedAt  time.Time
	hint      string
}

// Store holds the issued tokens in memory (go-cache), keyed by their SHA-256
// digest so that a dump of the store holds no usable token. Validity is
// checked against the injected clock; go-cache's own expiry only frees the
// memory of tokens that are long dead. Store is safe for concurrent use.
type Store struct {
	cache     *cache.Cache
	clock     clock.Clock
	random    io.Reader
	lifetimes Lifetimes
	mu        sync.Mutex // makes a refresh (revoke old, issue new) one step
}

// NewStore returns an empty Store that reads the time from c, draws tokens
// from crypto/rand and issues them with DefaultLifetimes.
func NewStore(c clock.Clock) *Store {
	return &Store{
		cache:     cache.New(cache.NoExpiration, time.Minute),
		clock:     c,
		random:    rand.Reader,
		lifetimes: DefaultLifetimes(),
	}
}

// Issue creates a new access token and refresh token for g.
func (s *Store) Issue(g Grant) (Issued, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	refresh, refreshKey, err := s.newToken()
	if err != nil {
		return Issued{}, err
	}
	access, accessKey, err := s.newToken()
	if err != nil {
		return Issued{}, err
	}
	l := s.lifetimes
	s.cache.Set("a:"+accessKey, accessEntry{grant: g, expiresAt: now.Add(l.Access), issuedAt: now, hint: hint(access)}, l.Access)
	s.cache.Set("r:"+refreshKey, refreshEntry{grant: g, expiresAt: now.Add(l.Refresh), accessKey: accessKey, issuedAt: now, hint: hint(refresh)}, l.Refresh)
	return Issued{AccessToken: access, RefreshToken: refresh, ExpiresIn: int64(l.Access / time.Second), Scopes: g.Scopes}, nil
}

// Refresh exchanges a refresh token of clientID for a new access token. The
// access token it issued before is revoked; the refresh token stays the same
// and keeps its original expiry. scopes, when not empty, narrows the grant
// (RFC 6749 §6) and must be a subset of it.
func (s *Store) Refresh(refreshToken, clientID string, scopes []string) (Issued, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	refreshKey := digest(refreshToken)
	v, ok := s.cache.Get("r:" + refreshKey)
	if !ok {
		return Issued{}, ErrInvalidGrant.WithDescription("the refresh token is not valid")
	}
	r := v.(refreshEntry)
	if !now.Before(r.expiresAt) {
		s.cache.Delete("r:" + refreshKey)
		return Issued{}, ErrInvalidGrant.WithDescription("the refresh token has expired")
	}
	if r.grant.ClientID != clientID {
		return Issued{}, ErrInvalidGrant.WithDescription("the refresh token was issued to another client")
	}
	g := r.grant
	if len(scopes) > 0 {
		for _, sc := range scopes {
			if !g.HasScope(sc) {
				return Issued{}, ErrInvalidScope.WithDescription("scope %q was not granted to the refresh token", sc)
			}
		}
		g.Scopes = scopes
	}
	access, accessKey, err := s.newToken()
	if err != nil {
		return Issued{}, err
	}
	s.cache.Delete("a:" + r.accessKey)
	l := s.lifetimes
	s.cache.Set("a:"+accessKey, accessEntry{grant: g, expiresAt: now.Add(l.Access), issuedAt: now, hint: hint(access)}, l.Access)
	r.accessKey = accessKey
	s.cache.Set("r:"+refreshKey, r, r.expiresAt.Sub(now))
	return Issued{AccessToken: access, RefreshToken: refreshToken, ExpiresIn: int64(l.Access / time.Second), Scopes: g.Scopes}, nil
}

// Access returns the grant behind a valid access token, or ErrInvalidToken
// (described, never echoing the token) when it is unknown, revoked or
// expired.
func (s *Store) Access(token string) (AccessToken, error) {
	v, ok := s.cache.Get(accessKey(token))
	if !ok {
		return AccessToken{}, ErrInvalidToken.WithDescription("the access token is not valid")
	}
	e := v.(accessEntry)
	if !s.clock.Now().Before(e.expiresAt) {
		return AccessToken{}, ErrInvalidToken.WithDescription("the access token has expired")
	}
	return AccessToken{Grant: e.grant, ExpiresAt: e.expiresAt}, nil
}

// IsRefresh reports whether token is a live refresh token, changing
// nothing: for the client checks, which tell a client that sends one to
// the resource server (spec TOK-13).
func (s *Store) IsRefresh(token string) bool {
	v, ok := s.cache.Get("r:" + digest(token))
	return ok && s.clock.Now().Before(v.(refreshEntry).expiresAt)
}

func (s *Store) newToken() (token, key string, err error) {
	b := make([]byte, tokenBytes)
	if _, err := io.ReadFull(s.random, b); err != nil {
		return "", "", fmt.Errorf("draw token: %w", err)
	}
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, digest(token), nil
}

func digest(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// accessKey is "a:" + digest(token), the cache key of an access token,
// made with one allocation: it is computed on every request that carries
// a token.
func accessKey(token string) string {
	var in [64]byte // a token of ours fits; a longer one is hashed from the heap
	var sum [sha256.Size]byte
	if len(token) <= len(in) {
		sum = sha256.Sum256(append(in[:0], token...))
	} else {
		sum = sha256.Sum256([]byte(token))
	}
	var key [2 + 2*sha256.Size]byte
	copy(key[:], "a:")
	hex.Encode(key[2:], sum[:])
	return string(key[:])
}
