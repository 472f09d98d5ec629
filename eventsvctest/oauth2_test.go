package eventsvctest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"eventsvc/eventsvctest"
)

// oauth2Config is golang.org/x/oauth2's configuration for srv's demo
// client, with the given authentication style at the token endpoint.
func oauth2Config(srv *eventsvctest.Server, secret string, style oauth2.AuthStyle) *oauth2.Config {
	return &oauth2.Config{ClientID: eventsvctest.ClientID, ClientSecret: secret,
		Endpoint: oauth2.Endpoint{TokenURL: srv.URL + "/oauth/token", AuthStyle: style}}
}

// follow reads the JSON answer at address with client and returns the
// href of its link rel.
func follow(t *testing.T, client *http.Client, address, rel string) string {
	t.Helper()
	resp, err := client.Get(address)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var answer map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		t.Fatal(err)
	}
	return href(t, answer, rel)
}

// TestGolangOAuth2InHeaderStyleLeavesNoFinding: golang.org/x/oauth2
// with AuthStyleInHeader, as its documentation says for a server that
// takes HTTP Basic, logs in with the password grant, refreshes an expired
// token through its TokenSource, and reads the API with its http.Client,
// following links: no finding.
func TestGolangOAuth2InHeaderStyleLeavesNoFinding(t *testing.T) {
	srv := eventsvctest.NewServer(t, eventsvctest.Options{FailOnClientFindings: true})
	conf := oauth2Config(srv, eventsvctest.ClientSecret, oauth2.AuthStyleInHeader)
	tok, err := conf.PasswordCredentialsToken(t.Context(), eventsvctest.User, eventsvctest.UserPassword)
	if err != nil {
		t.Fatal(err)
	}
	tok.Expiry = time.Now().Add(-time.Minute) // the next request refreshes it
	client := conf.Client(t.Context(), tok)
	events := follow(t, client, srv.URL+"/api", "events")
	follow(t, client, events, "create-new-event")
	if n := srv.JournalCount(t, eventsvctest.JournalFilter{GrantType: "refresh_token", Status: "200"}); n != 1 {
		t.Errorf("%d refreshes, want the one of the expired token", n)
	}
}

// TestGolangOAuth2AutoDetectIsToldItsSetting: x/oauth2's default,
// AuthStyleAutoDetect, sends a refused grant again with the client's
// credentials in the body; the finding (TOK-1) names the setting that
// avoids it.
func TestGolangOAuth2AutoDetectIsToldItsSetting(t *testing.T) {
	srv := eventsvctest.NewServer(t, eventsvctest.Options{})
	conf := oauth2Config(srv, "not-the-secret", oauth2.AuthStyleAutoDetect)
	if _, err := conf.PasswordCredentialsToken(t.Context(), eventsvctest.User, eventsvctest.UserPassword); err == nil {
		t.Fatal("a wrong client secret got a token")
	}
	findings := srv.ClientFindings(t)
	if got := rules(findings); len(got) != 1 || got[0] != "TOK-1" || !strings.Contains(findings[0].Message, "oauth2.AuthStyleInHeader") {
		t.Errorf("findings %v, want TOK-1 naming AuthStyleInHeader", findings)
	}
	if strings.Contains(findings[0].String(), "not-the-secret") {
		t.Errorf("the finding shows the secret: %s", findings[0])
	}
}
