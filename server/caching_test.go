package server

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// tokenFor is an access token of the demo client for the account email
// with password.
func tokenFor(tb testing.TB, addr, email, password string) string {
	tb.Helper()
	form := url.Values{"grant_type": {"password"}, "username": {email}, "password": {password}}
	a, err := postToken(http.DefaultClient, addr, "myApp", "pass", form, nil)
	if err != nil {
		tb.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal([]byte(a.body), &tok); err != nil || a.status != http.StatusOK || tok.AccessToken == "" {
		tb.Fatalf("token for %s: %d %s", email, a.status, a.body)
	}
	return tok.AccessToken
}

// varies reports whether the answer's Vary names header.
func varies(resp *http.Response, header string) bool {
	for _, v := range resp.Header.Values("Vary") {
		for _, name := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(name), header) {
				return true
			}
		}
	}
	return false
}

// TestAPIAnswersVaryOnAuthorizationAndSayHowToCache: the links of /api/**
// answers depend on the caller, so every one of them, success or error,
// anonymous or not, has Vary: Authorization and an explicit Cache-Control:
// no-store for a caller with a valid token, no-cache for an anonymous one
// (RFC 9111 §5.2.2.4: a cache must check with the server before reusing
// it). The public files depend on nobody and stay cacheable.
func TestAPIAnswersVaryOnAuthorizationAndSayHowToCache(t *testing.T) {
	addr, _ := listenWith(t, Options{CORSOrigin: "http://localhost:3000"})
	token := tokenFor(t, addr, "user@email.com", "user")
	bearer := "Bearer " + token
	event := `{"name":"n","description":"d","beginEnrollmentDateTime":"2026-11-01T10:00:00","closeEnrollmentDateTime":"2026-11-02T10:00:00","beginEventDateTime":"2026-11-03T10:00:00","endEventDateTime":"2026-11-04T10:00:00"}`
	for _, tt := range []struct {
		method, target, auth, body string
		status                     int
		cacheControl               string
	}{
		{"POST", "/api/events", bearer, event, 201, "no-store"},
		{"GET", "/api", "", "", 200, "no-cache"},
		{"GET", "/api", bearer, "", 200, "no-store"},
		{"GET", "/api/events", "", "", 200, "no-cache"},
		{"GET", "/api/events", bearer, "", 200, "no-store"},
		{"GET", "/api/events", "Bearer not-a-token", "", 200, "no-cache"},
		{"GET", "/api/events/1", "", "", 200, "no-cache"},
		{"GET", "/api/events/1", bearer, "", 200, "no-store"},
		{"HEAD", "/api/events/1", "", "", 200, "no-cache"},
		{"GET", "/api/events?size=0", "", "", 400, "no-cache"},
		{"GET", "/api/events/999", "", "", 404, "no-cache"},
		{"GET", "/api/events/999", bearer, "", 404, "no-store"},
		{"PUT", "/api/events/1", "", event, 401, "no-cache"},
		{"PUT", "/api/events/1", bearer, event, 200, "no-store"},
		{"GET", "/nowhere", "", "", 401, "no-cache"},
	} {
		h := map[string]string{"Content-Type": "application/json"}
		if tt.auth != "" {
			h["Authorization"] = tt.auth
		}
		resp, body := rawRequest(t, addr, tt.method, tt.target, h, tt.body)
		name := tt.method + " " + tt.target
		switch tt.auth {
		case bearer:
			name += " with a valid token"
		case "":
		default:
			name += " with an invalid token"
		}
		if resp.StatusCode != tt.status {
			t.Errorf("%s: status %d, want %d: %s", name, resp.StatusCode, tt.status, body)
		}
		if !varies(resp, "Authorization") {
			t.Errorf("%s: Vary %q does not name Authorization", name, resp.Header.Values("Vary"))
		}
		if cc := resp.Header.Get("Cache-Control"); cc != tt.cacheControl {
			t.Errorf("%s: Cache-Control %q, want %q", name, cc, tt.cacheControl)
		}
	}
	resp, _ := rawRequest(t, addr, "GET", "/api", map[string]string{"Origin": "http://localhost:3000"}, "")
	if !varies(resp, "Origin") || !varies(resp, "Authorization") {
		t.Errorf("with CORS on: Vary %q, want Origin and Authorization", resp.Header.Values("Vary"))
	}
	resp, _ = rawRequest(t, addr, "GET", "/docs/index.html", map[string]string{"Authorization": bearer}, "")
	if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=300" || varies(resp, "Authorization") {
		t.Errorf("a public file: Cache-Control %q, Vary %q", cc, resp.Header.Values("Vary"))
	}
	resp, _ = rawRequest(t, addr, "POST", "/oauth/token", map[string]string{"Authorization": basicHeader("myApp:pass")}, "")
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("the token endpoint: Cache-Control %q", cc)
	}
}
