package eventsvctest_test

import (
	"net/http"
	"strings"
	"testing"

	"eventsvc/eventsvctest"
)

func TestTokensAreListedRevokedAndExpired(t *testing.T) {
	srv := eventsvctest.NewServer(t, eventsvctest.Options{})
	_, user := login(t, srv, eventsvctest.User, eventsvctest.UserPassword)
	_, admin := login(t, srv, eventsvctest.Admin, eventsvctest.AdminPassword)
	userAccess, adminAccess := user["access_token"].(string), admin["access_token"].(string)

	live := srv.Tokens(t)
	if len(live) != 4 {
		t.Fatalf("%d live tokens, want 4: %+v", len(live), live)
	}
	for _, tok := range live {
		if len(tok.Token) > 8 || !strings.HasSuffix(tok.Token, "…") || tok.ClientID != eventsvctest.ClientID {
			t.Errorf("token %+v: want it masked, of the demo client", tok)
		}
	}
	expired := srv.ExpireTokens(t, eventsvctest.TokenSelector{Token: adminAccess[:4], Kind: "access"})
	if len(expired) != 1 || expired[0].Username != eventsvctest.Admin {
		t.Fatalf("ExpireTokens = %+v, want the admin's access token", expired)
	}
	if status, body := create(t, srv, adminAccess, "{}"); status != http.StatusUnauthorized || !strings.Contains(body["error_description"].(string), "expired") {
		t.Fatalf("the expired token: %d %v, want 401 expired", status, body)
	}
	revoked := srv.RevokeTokens(t, eventsvctest.TokenSelector{User: eventsvctest.User})
	if len(revoked) != 2 {
		t.Fatalf("RevokeTokens(user) = %+v, want the user's two tokens", revoked)
	}
	if status, _ := create(t, srv, userAccess, "{}"); status != http.StatusUnauthorized {
		t.Fatalf("the revoked token: %d, want 401", status)
	}
	if left := srv.Tokens(t); len(left) != 1 || left[0].Kind != "refresh" || left[0].Username != eventsvctest.Admin {
		t.Fatalf("live tokens %+v, want the admin's refresh token alone", left)
	}
}
