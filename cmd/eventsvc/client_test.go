package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// These tests take a client developer's view: a real OAuth 2.0 client,
// golang.org/x/oauth2, against `eventsvc serve` with a short access token
// lifetime and the control API.

// demoClient is the demo client's oauth2 configuration for s.
func demoClient(s *served) *oauth2.Config {
	return &oauth2.Config{
		ClientID: "myApp", ClientSecret: "pass",
		Endpoint: oauth2.Endpoint{TokenURL: s.base + "/oauth/token", AuthStyle: oauth2.AuthStyleInHeader},
		Scopes:   []string{"read", "write"},
	}
}

// clientFor logs the demo user in and returns an HTTP client whose token
// source refreshes the access token once it is within margin of its
// expiry (x/oauth2's default margin, 10 s, is longer than the 2 s
// lifetimes used here), and the first token.
func clientFor(t *testing.T, s *served, margin time.Duration) (*http.Client, oauth2.TokenSource, *oauth2.Token) {
	t.Helper()
	ctx := context.Background()
	conf := demoClient(s)
	tok, err := conf.PasswordCredentialsToken(ctx, "user@email.com", "user")
	if err != nil {
		t.Fatal(err)
	}
	src := oauth2.ReuseTokenSourceWithExpiry(tok, conf.TokenSource(ctx, tok), margin)
	return oauth2.NewClient(ctx, src), src, tok
}

// listEvents GETs the event list with client, and returns the status and
// whether the answer offers create-new-event, which only a caller with a
// valid token gets.
func listEvents(ctx context.Context, client *http.Client, s *served) (int, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/api/events", nil)
	if err != nil {
		return 0, false, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, false, err
	}
	defer resp.Body.Close()
	var body struct {
		Links map[string]any `json:"_links"`
	}
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &body)
	_, create := body.Links["create-new-event"]
	return resp.StatusCode, create, nil
}

// controlCall sends a request to the control API and fails the test
// unless it answers 2xx.
func controlCall(t *testing.T, s *served, method, path, body string) []byte {
	t.Helper()
	req, err := http.NewRequest(method, s.control+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return b
}

// waitPast sleeps until the token has expired by the server's clock too.
func waitPast(tok *oauth2.Token) {
	time.Sleep(time.Until(tok.Expiry) + 200*time.Millisecond)
}

func TestAnOAuth2ClientRefreshesItsAccessToken(t *testing.T) {
	s := startServe(t, "-access-ttl", "2s", "-control", "127.0.0.1:0")
	client, src, first := clientFor(t, s, 500*time.Millisecond)
	if got := first.Extra("expires_in"); got != float64(2) {
		t.Fatalf("expires_in = %v, want 2", got)
	}
	if status, create, err := listEvents(context.Background(), client, s); err != nil || status != 200 || !create {
		t.Fatalf("with the first token: %d, create-new-event %v, %v", status, create, err)
	}
	waitPast(first)

	// The first access token is dead for the server...
	req, _ := http.NewRequest(http.MethodPost, s.base+"/api/events", strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer "+first.AccessToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the first access token after its 2 s: %d, want 401", resp.StatusCode)
	}
	// ...and the client does not notice: its token source refreshes.
	if status, create, err := listEvents(context.Background(), client, s); err != nil || status != 200 || !create {
		t.Fatalf("after the expiry: %d, create-new-event %v, %v", status, create, err)
	}
	now, err := src.Token()
	if err != nil {
		t.Fatal(err)
	}
	if now.AccessToken == first.AccessToken || now.RefreshToken != first.RefreshToken {
		t.Fatal("the token source did not refresh the access token with the same refresh token")
	}
	journal := string(controlCall(t, s, http.MethodGet, "/journal", ""))
	if !strings.Contains(journal, "grant_type=refresh_token") {
		t.Fatalf("the journal shows no refresh grant: %s", journal)
	}
	if strings.Contains(journal, first.AccessToken) || strings.Contains(journal, now.AccessToken) || strings.Contains(journal, first.RefreshToken) {
		t.Fatal("the journal shows a token")
	}
}

func TestAnOAuth2ClientSurvivesInjectedFaults(t *testing.T) {
	s := startServe(t, "-access-ttl", "2s", "-control", "127.0.0.1:0")
	// The client refreshes when its token has less than 1.5 s left, so
	// that a token it sends outlives the latency below by 1 s at least.
	const margin = 1500 * time.Millisecond
	client, src, _ := clientFor(t, s, margin)
	ctx := context.Background()

	// A 503 on the list reaches the client as a 503; the next request,
	// once the fault is gone, works with the same token source.
	controlCall(t, s, http.MethodPost, "/faults", `{"method": "GET", "path": "/api/events", "status": 503}`)
	if status, _, err := listEvents(ctx, client, s); err != nil || status != http.StatusServiceUnavailable {
		t.Fatalf("with a 503 fault: %d, %v", status, err)
	}
	controlCall(t, s, http.MethodDelete, "/faults", "")
	if status, create, err := listEvents(ctx, client, s); err != nil || status != 200 || !create {
		t.Fatalf("after the 503: %d, create-new-event %v, %v", status, create, err)
	}

	// A slow list: a caller that waits 200 ms gives up; one that waits
	// gets the answer.
	controlCall(t, s, http.MethodPost, "/faults", `{"method": "GET", "path": "/api/**", "latency": "500ms"}`)
	impatient, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, _, err := listEvents(impatient, client, s); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("with 500 ms of latency and a 100 ms deadline: %v, want the deadline exceeded", err)
	}
	if status, create, err := listEvents(ctx, client, s); err != nil || status != 200 || !create {
		t.Fatalf("with 500 ms of latency and no deadline: %d, create-new-event %v, %v", status, create, err)
	}
	controlCall(t, s, http.MethodDelete, "/faults", "")

	// A 503 from the token endpoint when the client must refresh: the
	// token source reports it, and refreshes once the service is back.
	current, err := src.Token()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(current.Expiry.Add(-margin)) + 100*time.Millisecond)
	controlCall(t, s, http.MethodPost, "/faults", `{"method": "POST", "path": "/oauth/token", "status": 503}`)
	_, _, err = listEvents(ctx, client, s)
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.Response.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a refresh answered 503: %v, want an oauth2.RetrieveError with status 503", err)
	}
	controlCall(t, s, http.MethodDelete, "/faults", "")
	if status, create, err := listEvents(ctx, client, s); err != nil || status != 200 || !create {
		t.Fatalf("after the token endpoint is back: %d, create-new-event %v, %v", status, create, err)
	}
}

// TestAUserAndAClientAddedAtRunTime: `eventsvc serve -control` takes a
// new client and a new account, with plain secrets it hashes, and an
// OAuth 2.0 client logs in with them at once; once removed, its token is
// refused at once; the control API's log on standard error holds neither
// secret.
func TestAUserAndAClientAddedAtRunTime(t *testing.T) {
	s := startServe(t, "-control", "127.0.0.1:0")
	const password, clientSecret = "a-plain-password-for-dev", "a-plain-client-secret"
	controlCall(t, s, http.MethodPost, "/clients", `{"clientId": "frontEnd", "clientSecret": "`+clientSecret+`",
	  "authorizedGrantTypes": ["password", "refresh_token"], "scopes": ["read", "write"], "resourceIds": ["event"]}`)
	controlCall(t, s, http.MethodPost, "/users", `{"email": "dev@example.com", "password": "`+password+`", "roles": ["USER"]}`)
	conf := demoClient(s)
	conf.ClientID, conf.ClientSecret = "frontEnd", clientSecret
	tok, err := conf.PasswordCredentialsToken(context.Background(), "dev@example.com", password)
	if err != nil {
		t.Fatalf("the new client and account log in: %v", err)
	}
	client := conf.Client(context.Background(), tok)
	if status, create, err := listEvents(context.Background(), client, s); err != nil || status != http.StatusOK || !create {
		t.Fatalf("with the new account's token: %d, create-new-event %v, %v", status, create, err)
	}
	users := string(controlCall(t, s, http.MethodGet, "/users", ""))
	if !strings.Contains(users, `"email":"dev@example.com"`) || strings.Contains(users, password) || strings.Contains(users, "bcrypt") {
		t.Fatalf("GET /users = %s", users)
	}
	controlCall(t, s, http.MethodDelete, "/users/dev@example.com", "")
	if status, create, err := listEvents(context.Background(), client, s); err != nil || create { // a token the server does not know reads the list as anyone
		t.Fatalf("the removed account's token still counts: %d, create-new-event %v, %v", status, create, err)
	}
	if _, err := conf.PasswordCredentialsToken(context.Background(), "dev@example.com", password); err == nil {
		t.Fatal("the removed account logs in")
	}
	controlCall(t, s, http.MethodDelete, "/clients/frontEnd", "")
	if _, err := demoClient(s).PasswordCredentialsToken(context.Background(), "user@email.com", "user"); err != nil {
		t.Fatalf("the demo client and account after the removals: %v", err)
	}
	logged := s.errs.String()
	if !strings.Contains(logged, "users: added account 3 dev@example.com") || strings.Contains(logged, password) || strings.Contains(logged, clientSecret) {
		t.Fatalf("the control API's log: %s", logged)
	}
}
