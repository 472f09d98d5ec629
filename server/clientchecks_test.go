package server

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"eventsvc/server/clientcheck"
	"eventsvc/server/clock"
	"eventsvc/server/event"
	"eventsvc/server/servertest"
)

// TestEachClientFindingIsLoggedOnce: the log writes a finding when an
// exchange starts it, once per rule, caller and shape, whatever the
// exchanges that add to it; a live access token in a cookie is told, and
// never written.
func TestEachClientFindingIsLoggedOnce(t *testing.T) {
	var log servertest.Log
	checks := clientcheck.New(clock.System{})
	addr, _ := listenWith(t, Options{ClientChecks: checks, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	token := tokenFor(t, addr, "user@email.com", "user")
	for _, path := range []string{"/api/events/1", "/api/events/2", "/api/events?size=3", "/api/events/3"} {
		if resp, _ := rawRequest(t, addr, "GET", path, map[string]string{"Cookie": "jwt=" + token}, ""); resp.StatusCode >= 500 {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
	}
	text := log.String()
	if n := strings.Count(text, `msg="client finding"`); n != 3 {
		t.Errorf("%d findings logged, want 3 (API-1 of an event, API-1 of a page, SVC-4):\n%s", n, text)
	}
	if strings.Contains(text, token) {
		t.Errorf("the log shows the token:\n%s", text)
	}
	if f := checks.Findings(clientcheck.Filter{Rule: "SVC-4"}); len(f) != 1 || f[0].Count != 4 || f[0].User != "user@email.com" {
		t.Errorf("SVC-4 findings %v, want one of 4 exchanges, of the token's user", f)
	}
}

// TestAClientThatFollowsLinksBehindAPrefixLeavesNoFinding: whatever path
// a public URL puts the API under (one that starts like it, or is it),
// a client that reads the root, follows the events link, a page link and
// the template, at the paths the server sees, leaves no finding; nor
// does the root read with a trailing slash.
func TestAClientThatFollowsLinksBehindAPrefixLeavesNoFinding(t *testing.T) {
	for _, prefix := range []string{"", "/api-gateway", "/apis", "/api", "/events-service"} {
		t.Run("prefix "+prefix, func(t *testing.T) {
			checks := clientcheck.New(clock.System{})
			store := event.NewMemory()
			store.Replace(event.Demo(25, []int64{1, 2}, time.Now()))
			addr, _ := listenWith(t, Options{Events: store, ClientChecks: checks, PublicURL: "https://public.example" + prefix})
			path := func(href string) string { // what the proxy passes on
				u, err := url.Parse(href)
				if err != nil || !strings.HasPrefix(u.Path, prefix+"/api") {
					t.Fatalf("href %q is not under %s", href, prefix)
				}
				return strings.TrimPrefix(u.RequestURI(), prefix)
			}
			get := func(target string) map[string]any {
				resp, body := rawRequest(t, addr, "GET", target, nil, "")
				var doc map[string]any
				if err := json.Unmarshal([]byte(body), &doc); err != nil || resp.StatusCode != 200 {
					t.Fatalf("GET %s: %d %s", target, resp.StatusCode, body)
				}
				return doc
			}
			link := func(doc map[string]any, rel string) string {
				return doc["_links"].(map[string]any)[rel].(map[string]any)["href"].(string)
			}
			get("/api/")
			list := get(path(link(get("/api"), "events")))
			get(path(link(list, "next")))
			get(path(strings.Replace(link(list, "get-an-event"), "{id}", "3", 1)))
			if f := checks.Findings(clientcheck.Filter{}); len(f) != 0 {
				t.Errorf("findings of a client that followed links: %v", f)
			}
		})
	}
}

// TestAFindingShowsNoSecretOfTheQuery: a query that holds a live refresh
// token, a password under a name of its own, and a live access token as a
// parameter's name and after "Bearer " is shown masked (the values of the
// parameters the API defines alone are kept); the access tokens are
// SVC-4; a long username, the caller of a JSON token request, is cut.
func TestAFindingShowsNoSecretOfTheQuery(t *testing.T) {
	checks := clientcheck.New(clock.System{})
	addr, _ := listenWith(t, Options{ClientChecks: checks})
	form := url.Values{"grant_type": {"password"}, "username": {"user@email.com"}, "password": {"user"}}
	a, err := postToken(http.DefaultClient, addr, "myApp", "pass", form, nil)
	var tok struct{ AccessToken, RefreshToken string }
	if err != nil || json.Unmarshal([]byte(strings.NewReplacer("access_token", "AccessToken", "refresh_token", "RefreshToken").Replace(a.body)), &tok) != nil || tok.RefreshToken == "" {
		t.Fatalf("login: %v %s", err, a.body)
	}
	q := url.Values{"refreshToken": {tok.RefreshToken}, "pwd": {"user"}, "auth": {"Bearer " + tok.AccessToken}, "size": {"3"}}.Encode() + "&" + tok.AccessToken
	rawRequest(t, addr, "GET", "/api/events?"+q, nil, "")
	long := strings.Repeat("é", 2000) + "@email.com"
	rawRequest(t, addr, "POST", "/oauth/token", map[string]string{"Content-Type": "application/json", "Authorization": "Basic bXlBcHA6cGFzcw=="}, `{"grant_type":"password","username":"`+long+`","password":"x"}`)
	findings := checks.Findings(clientcheck.Filter{})
	text, _ := json.Marshal(findings)
	for _, secret := range []string{tok.AccessToken, tok.RefreshToken, "pwd=user", strings.Repeat("é", clientcheck.MaxText)} {
		if strings.Contains(string(text), secret) {
			t.Errorf("a finding shows %.20q…:\n%s", secret, text)
		}
	}
	var rules []string
	for _, f := range findings {
		rules = append(rules, f.Rule)
	}
	if got := strings.Join(rules, " "); got != "SVC-4 SVC-4 API-1 TOK-2" {
		t.Errorf("findings of %s, want SVC-4 twice (the name, and after Bearer), API-1 (a page no link offered), TOK-2:\n%s", got, text)
	}
	if !strings.Contains(string(text), "size=3") {
		t.Errorf("the size the API defines is not shown:\n%s", text)
	}
}

// TestAFindingKeepsTheTextsOfItsExchanges: what a finding keeps of an
// exchange (its path, the media type of a token request) is its own, not
// the request's buffers, which the server reuses for the requests after
// it.
func TestAFindingKeepsTheTextsOfItsExchanges(t *testing.T) {
	checks := clientcheck.New(clock.System{})
	addr, _ := listenWith(t, Options{ClientChecks: checks})
	rawRequest(t, addr, "GET", "/api/events/1", nil, "")
	rawRequest(t, addr, "POST", "/oauth/token", map[string]string{"Content-Type": "application/json"}, `{"grant_type":"password"}`)
	for range 20 {
		rawRequest(t, addr, "POST", "/oauth/token", map[string]string{"Content-Type": "text/plain"}, "grant_type=password")
		rawRequest(t, addr, "GET", "/api/events/2", nil, "")
	}
	for _, f := range checks.Findings(clientcheck.Filter{}) {
		if len(f.Exchanges) == 0 {
			t.Fatalf("finding %s shows no exchange", f.Rule)
		}
		if x := f.Exchanges[0]; f.Rule == "API-1" && x.Path != "/api/events/1" {
			t.Errorf("the first exchange of %s shows the path %q, want /api/events/1", f.Rule, x.Path)
		}
	}
}
