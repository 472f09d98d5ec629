package oauth

import (
	"errors"
	"strings"
	"testing"
	"time"

	"eventsvc/server/clock"
)

func TestDefaultLifetimesAreTheSpecifications(t *testing.T) {
	l := DefaultLifetimes()
	if l.Access != 600*time.Second || l.Refresh != 3600*time.Second || !l.Conforms() {
		t.Fatalf("DefaultLifetimes() = %+v, Conforms() = %v", l, l.Conforms())
	}
	for _, other := range []Lifetimes{{Access: 30 * time.Second, Refresh: time.Hour}, {Access: 600 * time.Second, Refresh: time.Minute}} {
		if other.Conforms() {
			t.Errorf("%+v conforms", other)
		}
	}
}

func TestLifetimesRefuseWhatExpiresInCannotSay(t *testing.T) {
	for _, bad := range []Lifetimes{
		{Access: 0, Refresh: time.Hour},
		{Access: -time.Second, Refresh: time.Hour},
		{Access: time.Second, Refresh: 0},
		{Access: 1500 * time.Millisecond, Refresh: time.Hour},
		{Access: time.Second, Refresh: 90500 * time.Millisecond},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil", bad)
		}
	}
	if err := (Lifetimes{Access: 2 * time.Second, Refresh: 5 * time.Second}).Validate(); err != nil {
		t.Errorf("2s/5s: %v", err)
	}
}

func TestStoreIssuesWithItsLifetimes(t *testing.T) {
	c := clock.NewManual(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	s := NewStoreWithLifetimes(c, Lifetimes{Access: 30 * time.Second, Refresh: 90 * time.Second})
	issued, err := s.Issue(testGrant)
	if err != nil {
		t.Fatal(err)
	}
	if issued.ExpiresIn != 30 {
		t.Fatalf("ExpiresIn = %d, want 30", issued.ExpiresIn)
	}
	c.Advance(29 * time.Second)
	if _, err := s.Access(issued.AccessToken); err != nil {
		t.Fatalf("after 29 s: %v", err)
	}
	refreshed, err := s.Refresh(issued.RefreshToken, testGrant.ClientID, nil)
	if err != nil || refreshed.ExpiresIn != 30 {
		t.Fatalf("refresh after 29 s: %+v, %v", refreshed, err)
	}
	c.Advance(30 * time.Second)
	if _, err := s.Access(refreshed.AccessToken); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("refreshed access token after its 30 s: %v", err)
	}
	c.Advance(31 * time.Second) // 90 s since issue
	if _, err := s.Refresh(issued.RefreshToken, testGrant.ClientID, nil); !errors.Is(err, ErrInvalidGrant) {
		t.Fatalf("refresh token after its 90 s: %v", err)
	}
	if got := s.Lifetimes(); got.Access != 30*time.Second || got.Refresh != 90*time.Second {
		t.Fatalf("Lifetimes() = %+v", got)
	}
}

func TestLiveListsValidTokensMaskedAndResetForgetsThem(t *testing.T) {
	start := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	c := clock.NewManual(start)
	s := NewStoreWithLifetimes(c, Lifetimes{Access: 60 * time.Second, Refresh: 120 * time.Second})
	issued, err := s.Issue(testGrant)
	if err != nil {
		t.Fatal(err)
	}
	live := s.Live()
	if len(live) != 2 {
		t.Fatalf("Live() = %+v, want an access and a refresh token", live)
	}
	kinds := map[string]TokenInfo{}
	for _, ti := range live {
		kinds[ti.Kind] = ti
		if ti.Username != testGrant.Username || ti.ClientID != testGrant.ClientID || strings.Join(ti.Scopes, " ") != "read write" || !ti.IssuedAt.Equal(start) {
			t.Errorf("token info %+v", ti)
		}
		if strings.Contains(ti.Token, issued.AccessToken) || strings.Contains(ti.Token, issued.RefreshToken) || len(ti.Token) > 12 {
			t.Errorf("token info shows a token: %q", ti.Token)
		}
	}
	if !kinds["access"].ExpiresAt.Equal(start.Add(60*time.Second)) || !kinds["refresh"].ExpiresAt.Equal(start.Add(120*time.Second)) {
		t.Fatalf("expiries: %+v", kinds)
	}
	c.Advance(60 * time.Second)
	if live := s.Live(); len(live) != 1 || live[0].Kind != "refresh" {
		t.Fatalf("after the access token's expiry, Live() = %+v", live)
	}
	s.Reset()
	if live := s.Live(); len(live) != 0 {
		t.Fatalf("after Reset, Live() = %+v", live)
	}
	if _, err := s.Refresh(issued.RefreshToken, testGrant.ClientID, nil); !errors.Is(err, ErrInvalidGrant) {
		t.Fatalf("refresh after Reset: %v", err)
	}
}
