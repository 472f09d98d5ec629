package oauth

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"eventsvc/server/clock"
)

// Lifetimes are how long the tokens a Store issues stay valid. The
// specification fixes them (DefaultLifetimes); a developer may shorten or
// lengthen them to test a client's refresh logic, and the server then no
// longer conforms.
type Lifetimes struct {
	Access, Refresh time.Duration
}

// DefaultLifetimes returns the lifetimes of the specification: 600 seconds
// for an access token (spec CLI-5), 3600 for a refresh token (spec CLI-6).
func DefaultLifetimes() Lifetimes {
	return Lifetimes{Access: AccessTokenValidity, Refresh: RefreshTokenValidity}
}

// Conforms reports whether l are the specification's lifetimes.
func (l Lifetimes) Conforms() bool { return l == DefaultLifetimes() }

// Validate refuses lifetimes that expires_in cannot tell: each must be a
// whole number of seconds, at least one (RFC 6749 §5.1 gives expires_in in
// seconds).
func (l Lifetimes) Validate() error {
	var errs []error
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"access token", l.Access}, {"refresh token", l.Refresh}} {
		if d.v < time.Second || d.v%time.Second != 0 {
			errs = append(errs, fmt.Errorf("the %s lifetime %v must be a whole number of seconds, at least 1s", d.name, d.v))
		}
	}
	return errors.Join(errs...)
}

// String tells the lifetimes in seconds, as expires_in does.
func (l Lifetimes) String() string {
	return fmt.Sprintf("access tokens %d s, refresh tokens %d s", l.Access/time.Second, l.Refresh/time.Second)
}

// NewStoreWithLifetimes returns an empty Store that reads the time from c,
// draws tokens from crypto/rand and issues them with lifetimes l, which the
// caller has validated.
func NewStoreWithLifetimes(c clock.Clock, l Lifetimes) *Store {
	s := NewStore(c)
	s.lifetimes = l
	return s
}

// Lifetimes returns the lifetimes the store issues tokens with.
func (s *Store) Lifetimes() Lifetimes { return s.lifetimes }

// hintLength is how many characters of a token Live shows: 24 of its 256
// random bits, enough for a developer to tell their tokens apart and far
// too few to use one.
const hintLength = 4

// hint is the masked form of a token that Live shows.
func hint(token string) string {
	if len(token) <= hintLength {
		return "…"
	}
	return token[:hintLength] + "…"
}

// TokenInfo describes one live token, masked: what a developer needs to see
// which tokens a client holds, never the token itself.
type TokenInfo struct {
	// Kind is "access" or "refresh".
	Kind string `json:"kind"`
	// Token is the token's first characters and an ellipsis.
	Token     string    `json:"token"`
	Username  string    `json:"user"`
	ClientID  string    `json:"client"`
	Scopes    []string  `json:"scope"`
	IssuedAt  time.Time `json:"issued"`
	ExpiresAt time.Time `json:"expires"`
}

// Live lists the tokens that are valid now, refresh tokens after access
// tokens, each kind by issue time.
func (s *Store) Live() []TokenInfo {
	now := s.clock.Now()
	var out []TokenInfo
	for _, item := range s.cache.Items() {
		if ti, ok := info(item.Object); ok && now.Before(ti.ExpiresAt) {
			out = append(out, ti)
		}
	}
	sortInfos(out)
	return out
}

// sortInfos sorts tokens as Live lists them: refresh tokens after access
// tokens, each kind by issue time.
func sortInfos(out []TokenInfo) {
	slices.SortFunc(out, func(a, b TokenInfo) int {
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		if c := a.IssuedAt.Compare(b.IssuedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Token, b.Token)
	})
}

// Reset forgets every token: all are invalid from now on.
func (s *Store) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cache.Flush()
}

// Selector picks live tokens: by kind ("access" or "refresh"), by the
// first characters Live shows of them, by user, by client; an empty field
// picks any.
type Selector struct {
	Kind string
	// Token is the start of a token as Live shows it, with or without its
	// ellipsis.
	Token string
	// User is an account's email, in any case.
	User string
	// Client is a client id, exactly.
	Client string
}

// Picks reports whether sel picks the token t describes.
func (sel Selector) Picks(t TokenInfo) bool { return sel.picks(t) }

// picks reports whether sel picks the token t describes.
func (sel Selector) picks(t TokenInfo) bool {
	start := strings.TrimSuffix(sel.Token, "…")
	return (sel.Kind == "" || sel.Kind == t.Kind) &&
		(start == "" || strings.HasPrefix(t.Token, start)) &&
		(sel.User == "" || strings.EqualFold(sel.User, t.Username)) &&
		(sel.Client == "" || sel.Client == t.ClientID)
}

// Revoke forgets the live tokens sel picks, and returns them: from now on
// each is unknown, as a revoked token is.
func (s *Store) Revoke(sel Selector) []TokenInfo {
	return s.change(sel, func(key string, _ any) { s.cache.Delete(key) })
}

// Expire ends the lives of the live tokens sel picks now, and returns
// them: from now on each is expired, as if its time had come.
func (s *Store) Expire(sel Selector) []TokenInfo {
	now := s.clock.Now()
	return s.change(sel, func(key string, v any) {
		switch e := v.(type) {
		case accessEntry:
			e.expiresAt = now
			s.cache.Set(key, e, time.Minute)
		case refreshEntry:
			e.expiresAt = now
			s.cache.Set(key, e, time.Minute)
		}
	})
}

// change applies f to the live tokens sel picks, under the store's lock,
// and returns them as they were.
func (s *Store) change(sel Selector, f func(key string, v any)) []TokenInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	var out []TokenInfo
	for key, item := range s.cache.Items() {
		ti, ok := info(item.Object)
		if !ok || !now.Before(ti.ExpiresAt) || !sel.picks(ti) {
			continue
		}
		f(key, item.Object)
		out = append(out, ti)
	}
	sortInfos(out)
	return out
}

// info describes a cache entry that is a token.
func info(v any) (TokenInfo, bool) {
	switch e := v.(type) {
	case accessEntry:
		return TokenInfo{Kind: "access", Token: e.hint, Username: e.grant.Username, ClientID: e.grant.ClientID, Scopes: e.grant.Scopes, IssuedAt: e.issuedAt, ExpiresAt: e.expiresAt}, true
	case refreshEntry:
		return TokenInfo{Kind: "refresh", Token: e.hint, Username: e.grant.Username, ClientID: e.grant.ClientID, Scopes: e.grant.Scopes, IssuedAt: e.issuedAt, ExpiresAt: e.expiresAt}, true
	}
	return TokenInfo{}, false
}
