package oauth

import (
	"errors"
	"strings"
	"testing"
	"time"

	"eventsvc/server/clock"
)

func newTestStore() (*Store, *clock.Manual) {
	c := clock.NewManual(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	return NewStore(c), c
}

var testGrant = Grant{ClientID: "app", AccountID: 7, Username: "u@example.com", Scopes: []string{"read", "write"}, ResourceIDs: []string{"event"}}

func TestAccessTokenIsValidUntilItsValidityEnds(t *testing.T) {
	s, c := newTestStore()
	issued, err := s.Issue(testGrant)
	if err != nil {
		t.Fatal(err)
	}
	if issued.ExpiresIn != 600 {
		t.Fatalf("ExpiresIn = %d, want 600", issued.ExpiresIn)
	}
	c.Advance(AccessTokenValidity - time.Nanosecond)
	got, err := s.Access(issued.AccessToken)
	if err != nil {
		t.Fatalf("just before expiry: %v", err)
	}
	if got.AccountID != 7 || !got.HasScope("write") || !got.HasResource("event") {
		t.Fatalf("grant = %+v", got.Grant)
	}
	c.Advance(time.Nanosecond)
	if _, err := s.Access(issued.AccessToken); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("at expiry: err = %v, want invalid_token", err)
	}
}

func TestTokensAreRandomOpaqueAndNeverInErrors(t *testing.T) {
	s, _ := newTestStore()
	a, _ := s.Issue(testGrant)
	b, _ := s.Issue(testGrant)
	if a.AccessToken == b.AccessToken || a.RefreshToken == b.RefreshToken || a.AccessToken == a.RefreshToken {
		t.Fatal("tokens repeat")
	}
	if len(a.AccessToken) != 43 { // 32 bytes, base64url without padding
		t.Fatalf("access token has %d characters, want 43", len(a.AccessToken))
	}
	_, err := s.Access(a.RefreshToken)
	if err == nil || strings.Contains(err.Error(), a.RefreshToken) {
		t.Fatalf("a refresh token used as access token: err = %v", err)
	}
}

func TestRefreshRevokesTheOldAccessTokenAndKeepsItsExpiry(t *testing.T) {
	s, c := newTestStore()
	first, _ := s.Issue(testGrant)
	c.Advance(3000 * time.Second)
	second, err := s.Refresh(first.RefreshToken, "app", nil)
	if err != nil {
		t.Fatal(err)
	}
	if second.RefreshToken != first.RefreshToken {
		t.Fatal("the refresh token changed")
	}
	if _, err := s.Access(first.AccessToken); err == nil {
		t.Fatal("the replaced access token still works")
	}
	if _, err := s.Access(second.AccessToken); err != nil {
		t.Fatalf("the new access token: %v", err)
	}
	c.Advance(600 * time.Second) // 3600 s after the first issue
	if _, err := s.Refresh(first.RefreshToken, "app", nil); !errors.Is(err, ErrInvalidGrant) {
		t.Fatalf("refresh at 3600 s: err = %v, want invalid_grant", err)
	}
}

func TestRefreshBelongsToItsClientAndNarrowsScope(t *testing.T) {
	s, _ := newTestStore()
	issued, _ := s.Issue(testGrant)
	if _, err := s.Refresh(issued.RefreshToken, "other", nil); !errors.Is(err, ErrInvalidGrant) {
		t.Fatalf("another client: err = %v", err)
	}
	if _, err := s.Refresh(issued.RefreshToken, "app", []string{"admin"}); !errors.Is(err, ErrInvalidScope) {
		t.Fatalf("wider scope: err = %v", err)
	}
	narrowed, err := s.Refresh(issued.RefreshToken, "app", []string{"read"})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := s.Access(narrowed.AccessToken)
	if got.HasScope("write") {
		t.Fatal("narrowed token still has write")
	}
}

// accessKey is the key Issue stores an access token under, for a token of
// any length.
func TestAccessKeyIsThePrefixedDigest(t *testing.T) {
	for _, n := range []int{0, 1, 43, 64, 65, 1000} {
		token := strings.Repeat("x", n)
		if got, want := accessKey(token), "a:"+digest(token); got != want {
			t.Errorf("accessKey of %d bytes = %q, want %q", n, got, want)
		}
	}
}
