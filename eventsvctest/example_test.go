package eventsvctest_test

// This file is what a client developer writes: a small client of the Event
// Service, then its tests against the reference server that package
// eventsvctest runs in the test's process. Only the tests use
// eventsvctest; the client knows nothing of it.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"eventsvc/eventsvctest"
)

// errLoginRequired is what the client returns when its tokens are no
// longer good and it cannot refresh them: the user must log in again.
var errLoginRequired = errors.New("eventclient: the session has ended: log in again")

// eventClient is a client of the Event Service. It logs in with the
// password grant (RFC 6749 §4.3), finds the events from the API's root by
// its links (and where to create from the list's create-new-event link,
// offered with a valid token), refreshes its access token once when the
// API answers 401 or the list offers no creation
// (RFC 6749 §6), and retries a request once when the API answers 503,
// after the wait its Retry-After asks (RFC 9110 §10.2.3).
type eventClient struct {
	root                   string // the API's root, .../api
	clientID, clientSecret string
	http                   *http.Client
	// wait waits d before a retry; nil: it sleeps, or returns when ctx
	// is done.
	wait func(ctx context.Context, d time.Duration) error

	access, refresh string
}

// tokenAnswer is the token endpoint's answer (RFC 6749 §5.1, §5.2).
type tokenAnswer struct {
	AccessToken      string `json:"access_token"`
	RefreshToken     string `json:"refresh_token"`
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

// login gets tokens for user with the password grant.
func (c *eventClient) login(ctx context.Context, user, password string) error {
	return c.token(ctx, url.Values{"grant_type": {"password"}, "username": {user}, "password": {password}})
}

// refreshTokens trades the refresh token for new tokens; a refusal
// (invalid_grant: revoked or expired) ends the session.
func (c *eventClient) refreshTokens(ctx context.Context) error {
	if c.refresh == "" {
		return errLoginRequired
	}
	err := c.token(ctx, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {c.refresh}})
	var refused *tokenRefused
	if errors.As(err, &refused) {
		c.access, c.refresh = "", ""
		return fmt.Errorf("%w (%s)", errLoginRequired, refused.code)
	}
	return err
}

// tokenRefused is an error answer of the token endpoint.
type tokenRefused struct{ code, description string }

func (e *tokenRefused) Error() string {
	return "eventclient: token request refused: " + e.code + ": " + e.description
}

func (c *eventClient) token(ctx context.Context, form url.Values) error {
	endpoint := strings.TrimSuffix(c.root, "/api") + "/oauth/token"
	resp, body, err := c.send(ctx, http.MethodPost, endpoint, "application/x-www-form-urlencoded", []byte(form.Encode()), false)
	if err != nil {
		return err
	}
	var t tokenAnswer
	if err := json.Unmarshal(body, &t); err != nil {
		return fmt.Errorf("eventclient: token answer %s: %w", resp.Status, err)
	}
	if resp.StatusCode != http.StatusOK {
		return &tokenRefused{code: t.Error, description: t.ErrorDescription}
	}
	c.access, c.refresh = t.AccessToken, t.RefreshToken
	return nil
}

// do sends a request to the API with the access token, if there is one.
// On 401 it refreshes the tokens once and sends the request again.
func (c *eventClient) do(ctx context.Context, method, target string, body []byte) (*http.Response, []byte, error) {
	resp, answer, err := c.send(ctx, method, target, "application/json", body, true)
	if err != nil || resp.StatusCode != http.StatusUnauthorized || c.access == "" {
		return resp, answer, err
	}
	if err := c.refreshTokens(ctx); err != nil {
		return nil, nil, err
	}
	return c.send(ctx, method, target, "application/json", body, true)
}

// send sends one request, and once more after the wait Retry-After asks
// when the answer is 503.
func (c *eventClient) send(ctx context.Context, method, target, contentType string, body []byte, bearer bool) (*http.Response, []byte, error) {
	for attempt := 1; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, method, target, bytes.NewReader(body))
		if err != nil {
			return nil, nil, fmt.Errorf("eventclient: %w", err)
		}
		if body != nil {
			req.Header.Set("Content-Type", contentType)
		}
		if bearer && c.access != "" {
			req.Header.Set("Authorization", "Bearer "+c.access)
		} else if !bearer {
			req.SetBasicAuth(url.QueryEscape(c.clientID), url.QueryEscape(c.clientSecret)) // RFC 6749 §2.3.1
		}
		resp, err := c.http.Do(req)
		if err != nil {
			return nil, nil, fmt.Errorf("eventclient: %s %s: %w", method, req.URL.Path, err)
		}
		answer, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("eventclient: %s %s: %w", method, req.URL.Path, err)
		}
		if resp.StatusCode != http.StatusServiceUnavailable || attempt == 2 {
			return resp, answer, nil
		}
		if err := c.waitFor(ctx, retryAfter(resp.Header.Get("Retry-After"))); err != nil {
			return nil, nil, err
		}
	}
}

func (c *eventClient) waitFor(ctx context.Context, d time.Duration) error {
	if c.wait != nil {
		return c.wait(ctx, d)
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retryAfter reads a Retry-After header, delay-seconds or an HTTP-date
// (RFC 9110 §10.2.3); without one, or past a minute, it waits a second.
func retryAfter(v string) time.Duration {
	d := time.Second
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = time.Until(t)
	}
	if d < 0 || d > time.Minute {
		return time.Second
	}
	return d
}

// eventsLink follows the API's root to the events: its
// _links.events.href.
func (c *eventClient) eventsLink(ctx context.Context) (string, error) {
	resp, body, err := c.do(ctx, http.MethodGet, c.root, nil)
	if err != nil {
		return "", err
	}
	var root struct {
		Links struct {
			Events struct {
				Href string `json:"href"`
			} `json:"events"`
		} `json:"_links"`
	}
	if err := json.Unmarshal(body, &root); err != nil || resp.StatusCode != http.StatusOK || root.Links.Events.Href == "" {
		return "", fmt.Errorf("eventclient: GET %s: %s, no events link", c.root, resp.Status)
	}
	return root.Links.Events.Href, nil
}

// listEvents returns the names of the first page of events.
func (c *eventClient) listEvents(ctx context.Context) ([]string, error) {
	href, err := c.eventsLink(ctx)
	if err != nil {
		return nil, err
	}
	resp, body, err := c.do(ctx, http.MethodGet, href, nil)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("eventclient: GET %s: %s", href, resp.Status)
	}
	var page struct {
		Embedded struct {
			Events []struct {
				Name string `json:"name"`
			} `json:"eventList"`
		} `json:"_embedded"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		return nil, fmt.Errorf("eventclient: GET %s: %w", href, err)
	}
	var names []string
	for _, e := range page.Embedded.Events {
		names = append(names, e.Name)
	}
	return names, nil
}

// createLink reads the list with the access token and returns its
// create-new-event link, which the API offers only to a caller with a
// valid token (spec API-4). A list without it, to a client that holds a
// token, says that the token is no longer good (a read with it is served
// as anonymous): the client refreshes once and reads the list again.
func (c *eventClient) createLink(ctx context.Context) (string, error) {
	for attempt := 1; ; attempt++ {
		href, err := c.eventsLink(ctx)
		if err != nil {
			return "", err
		}
		resp, body, err := c.do(ctx, http.MethodGet, href, nil)
		if err != nil {
			return "", err
		}
		var list struct {
			Links struct {
				Create struct {
					Href string `json:"href"`
				} `json:"create-new-event"`
			} `json:"_links"`
		}
		if err := json.Unmarshal(body, &list); err != nil || resp.StatusCode != http.StatusOK {
			return "", fmt.Errorf("eventclient: GET %s: %s", href, resp.Status)
		}
		if list.Links.Create.Href != "" {
			return list.Links.Create.Href, nil
		}
		if attempt == 2 || c.access == "" {
			return "", errLoginRequired
		}
		if err := c.refreshTokens(ctx); err != nil {
			return "", err
		}
	}
}

// createEvent creates an event (a JSON object) where the list's
// create-new-event link says, and returns its id.
func (c *eventClient) createEvent(ctx context.Context, event map[string]any) (int64, error) {
	href, err := c.createLink(ctx)
	if err != nil {
		return 0, err
	}
	body, err := json.Marshal(event)
	if err != nil {
		return 0, fmt.Errorf("eventclient: %w", err)
	}
	resp, answer, err := c.do(ctx, http.MethodPost, href, body)
	if err != nil {
		return 0, err
	}
	var created struct {
		ID int64 `json:"id"`
	}
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(answer, &created) != nil {
		return 0, fmt.Errorf("eventclient: POST %s: %s", href, resp.Status)
	}
	return created.ID, nil
}

// The client's tests.

// newTestClient is a client of srv logged in as the demo user; its waits
// are recorded in waits rather than slept.
func newTestClient(t *testing.T, srv *eventsvctest.Server, waits *[]time.Duration) *eventClient {
	t.Helper()
	c := &eventClient{
		root: srv.URL + "/api", clientID: eventsvctest.ClientID, clientSecret: eventsvctest.ClientSecret,
		http: &http.Client{Timeout: 10 * time.Second},
		wait: func(_ context.Context, d time.Duration) error { *waits = append(*waits, d); return nil },
	}
	t.Cleanup(c.http.CloseIdleConnections)
	if err := c.login(t.Context(), eventsvctest.User, eventsvctest.UserPassword); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestClientRetriesOnceOn503AfterRetryAfter(t *testing.T) {
	srv := eventsvctest.NewServer(t, eventsvctest.Options{FailOnClientFindings: true})
	var waits []time.Duration
	c := newTestClient(t, srv, &waits)
	srv.AddFault(t, eventsvctest.Fault{Method: "GET", Path: "/api/events", Times: 1,
		Answer: eventsvctest.Answer{Status: 503, Headers: map[string]string{"Retry-After": "1"}}})

	names, err := c.listEvents(t.Context())
	if err != nil {
		t.Fatalf("listEvents: %v", err)
	}
	if len(names) != 20 || names[0] != "Go meetup #1" {
		t.Fatalf("listEvents = %q, want the first page of the demo events", names)
	}
	if len(waits) != 1 || waits[0] != time.Second {
		t.Fatalf("the client waited %v, want once 1s as Retry-After asked", waits)
	}
	if n := srv.JournalCount(t, eventsvctest.JournalFilter{Method: "GET", Path: "/api/events"}); n != 2 {
		t.Fatalf("the client sent GET /api/events %d times, want 2: the 503 and one retry", n)
	}
	if n := srv.JournalCount(t, eventsvctest.JournalFilter{Fault: eventsvctest.AnyFault}); n != 1 {
		t.Fatalf("%d requests met the fault, want 1", n)
	}
}

func TestClientGivesUpAfterOneRetry(t *testing.T) {
	srv := eventsvctest.NewServer(t, eventsvctest.Options{FailOnClientFindings: true})
	var waits []time.Duration
	c := newTestClient(t, srv, &waits)
	srv.AddFault(t, eventsvctest.Fault{Method: "GET", Path: "/api/events", Times: 2, Answer: eventsvctest.Answer{Status: 503}})

	if _, err := c.listEvents(t.Context()); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("listEvents = %v, want the second 503 reported", err)
	}
	if n := srv.JournalCount(t, eventsvctest.JournalFilter{Method: "GET", Path: "/api/events"}); n != 2 {
		t.Fatalf("the client sent GET /api/events %d times, want 2", n)
	}
}

// meetup is an event the client creates.
var meetup = map[string]any{
	"name": "Go meetup", "description": "Talks and pizza",
	"beginEnrollmentDateTime": "2026-11-01T09:00:00", "closeEnrollmentDateTime": "2026-11-10T17:00:00",
	"beginEventDateTime": "2026-11-20T18:00:00", "endEventDateTime": "2026-11-20T21:00:00",
}

// TestClientRefreshesARevokedAccessToken: once the user's access token is
// revoked, the list the client reads with it is served as anonymous,
// without create-new-event; the client trades its refresh token for new
// tokens, once, reads the list again, and creates where its link says,
// sending no write with the revoked token.
func TestClientRefreshesARevokedAccessToken(t *testing.T) {
	srv := eventsvctest.NewServer(t, eventsvctest.Options{FailOnClientFindings: true})
	var waits []time.Duration
	c := newTestClient(t, srv, &waits)
	srv.RevokeTokens(t, eventsvctest.TokenSelector{User: eventsvctest.User, Kind: "access"})

	id, err := c.createEvent(t.Context(), meetup)
	if err != nil {
		t.Fatalf("createEvent: %v", err)
	}
	if id != eventsvctest.DemoEvents+1 {
		t.Fatalf("created event %d, want %d", id, eventsvctest.DemoEvents+1)
	}
	if n := srv.JournalCount(t, eventsvctest.JournalFilter{Method: "POST", Path: "/api/events", Status: "401"}); n != 0 {
		t.Fatalf("%d writes got 401, want none: the list told the client its token was no longer good", n)
	}
	if n := srv.JournalCount(t, eventsvctest.JournalFilter{GrantType: "refresh_token", Status: "200"}); n != 1 {
		t.Fatalf("%d refreshes answered 200, want the one", n)
	}
	if n := srv.JournalCount(t, eventsvctest.JournalFilter{Method: "POST", Path: "/api/events", Status: "201"}); n != 1 {
		t.Fatalf("%d writes were created, want 1", n)
	}
}

// TestClientRefreshesOnceWhenAWriteGets401: a write the API refuses with
// 401 (a token revoked between the client's read and its write) makes
// the client refresh once and send the write again.
func TestClientRefreshesOnceWhenAWriteGets401(t *testing.T) {
	srv := eventsvctest.NewServer(t, eventsvctest.Options{FailOnClientFindings: true})
	var waits []time.Duration
	c := newTestClient(t, srv, &waits)
	srv.AddFault(t, eventsvctest.Fault{Method: "POST", Path: "/api/events", Times: 1, Answer: eventsvctest.Answer{Status: 401,
		Headers: map[string]string{"WWW-Authenticate": `Bearer realm="event", error="invalid_token"`}}})

	if _, err := c.createEvent(t.Context(), meetup); err != nil {
		t.Fatalf("createEvent: %v", err)
	}
	if n := srv.JournalCount(t, eventsvctest.JournalFilter{Method: "POST", Path: "/oauth/token", GrantType: "refresh_token"}); n != 1 {
		t.Fatalf("%d refreshes after the 401, want 1", n)
	}
	if n := srv.JournalCount(t, eventsvctest.JournalFilter{Method: "POST", Path: "/api/events"}); n != 2 {
		t.Fatalf("the write was sent %d times, want twice: the 401 and once more", n)
	}
}

// TestClientAsksForALoginWhenItCannotRefresh: with its refresh token
// revoked too, the client refreshes once, is refused, and says the user
// must log in again, without sending the write.
func TestClientAsksForALoginWhenItCannotRefresh(t *testing.T) {
	srv := eventsvctest.NewServer(t, eventsvctest.Options{FailOnClientFindings: true})
	var waits []time.Duration
	c := newTestClient(t, srv, &waits)
	srv.RevokeTokens(t, eventsvctest.TokenSelector{User: eventsvctest.User})
	srv.ClearJournal(t)

	if _, err := c.createEvent(t.Context(), meetup); !errors.Is(err, errLoginRequired) {
		t.Fatalf("createEvent = %v, want errLoginRequired", err)
	}
	if n := srv.JournalCount(t, eventsvctest.JournalFilter{Method: "POST", Path: "/oauth/token", GrantType: "refresh_token", Status: "400"}); n != 1 {
		t.Fatalf("%d refused refreshes, want 1", n)
	}
	if n := srv.JournalCount(t, eventsvctest.JournalFilter{Method: "POST", Path: "/api/events"}); n != 0 {
		t.Fatalf("the write was sent %d times, want none", n)
	}
	if n := srv.State(t).Events; n != eventsvctest.DemoEvents {
		t.Fatalf("%d events, want the %d demo events alone", n, eventsvctest.DemoEvents)
	}
}
