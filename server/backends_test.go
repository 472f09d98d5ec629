package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"eventsvc/server/backend"
	"eventsvc/server/backendtest"
	"eventsvc/server/clock"
	"eventsvc/server/event"
	"eventsvc/server/oauth"
	"eventsvc/server/servertest"
	"eventsvc/server/throttle"
)

// backendTimeout is the timeout of the backends in these tests.
const backendTimeout = 500 * time.Millisecond

// sharedServer is a server whose tokens and lockout are in the test
// binary's Redis and whose events are in its PostgreSQL, each reached
// through a backendtest.Proxy that the test can cut.
type sharedServer struct {
	addr            string
	redis, postgres *backendtest.Proxy
	log             *servertest.Log
}

func startShared(t *testing.T) *sharedServer {
	t.Helper()
	rs, pg := backendtest.Redis(t), backendtest.Postgres(t)
	dbURL := pg.Database(t)
	sh := &sharedServer{redis: backendtest.NewProxy(t, rs.Addr), postgres: backendtest.NewProxy(t, pg.Addr), log: &servertest.Log{}}
	client, err := backend.OpenRedis("redis://"+sh.redis.Addr, backendTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	events, err := event.OpenPostgres(context.Background(), strings.Replace(dbURL, pg.Addr, sh.postgres.Addr, 1), backendTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(events.Close)
	prefix := rs.Prefix(t)
	tokens := oauth.NewRedisStore(client, clock.System{}, oauth.RedisOptions{Prefix: prefix, Timeout: backendTimeout})
	lockout := throttle.NewRedisGuard(client, prefix, throttle.Limits{Failures: 10, Window: time.Minute, Lockout: time.Minute}, clock.System{}, backendTimeout)
	sh.addr, _ = listenWith(t, Options{
		Events: events, Tokens: tokens, Lockout: lockout,
		Backends: []backend.Checker{tokens, events},
		Logger:   slog.New(slog.NewTextHandler(sh.log, nil)),
	})
	return sh
}

// call sends one request and returns its status, Retry-After and body;
// it fails the test when the answer takes longer than the backends'
// timeout allows.
func (sh *sharedServer) call(t *testing.T, method, path, token, body string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(method, "http://"+sh.addr+path, strings.NewReader(body))
	switch {
	case strings.HasPrefix(body, "grant_type"):
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth("myApp", "pass")
	case body != "":
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	start := time.Now()
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if d := time.Since(start); d > 4*backendTimeout+time.Second {
		t.Errorf("%s %s took %v: longer than the backend timeout allows", method, path, d)
	}
	return resp.StatusCode, resp.Header.Get("Retry-After"), string(b)
}

const passwordForm = "grant_type=password&username=user%40email.com&password=user"

func (sh *sharedServer) token(t *testing.T) string {
	t.Helper()
	status, _, body := sh.call(t, "POST", "/oauth/token", "", passwordForm)
	if status != http.StatusOK {
		t.Fatalf("token: %d %s", status, body)
	}
	var tr oauth.TokenResponse
	if err := json.Unmarshal([]byte(body), &tr); err != nil {
		t.Fatal(err)
	}
	return tr.AccessToken
}

// until polls check until it holds, for at most 10 seconds.
func until(t *testing.T, what string, check func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !check() {
		if time.Now().After(deadline) {
			t.Fatalf("still not %s after 10s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// wantUnavailable checks a 503 that names the backend down, with
// Retry-After.
func wantUnavailable(t *testing.T, what string, status int, retry, body, backendName string) {
	t.Helper()
	if status != http.StatusServiceUnavailable || retry == "" || !strings.Contains(body, "temporarily_unavailable") || !strings.Contains(body, backendName) {
		t.Errorf("%s: %d (Retry-After %q) %s; want 503 naming %s", what, status, retry, body, backendName)
	}
}

const newEvent = `{"name":"kept","description":"d","beginEnrollmentDateTime":"2026-11-01T10:00:00","closeEnrollmentDateTime":"2026-11-02T10:00:00","beginEventDateTime":"2026-11-03T10:00:00","endEventDateTime":"2026-11-04T10:00:00"}`

// TestABackendDownGets503AndTheServerRecovers: while Redis, then
// PostgreSQL, cannot be reached, every request that needs it gets 503
// with a body naming it (never a 500, never a wait past the timeout), the
// API root says which backend is down, requests that need neither are
// served; once it is back, everything works again without a restart, and
// nothing written before is lost.
func TestABackendDownGets503AndTheServerRecovers(t *testing.T) {
	sh := startShared(t)
	tok := sh.token(t)
	if status, _, body := sh.call(t, "POST", "/api/events", tok, newEvent); status != http.StatusCreated {
		t.Fatalf("create: %d %s", status, body)
	}

	sh.redis.Cut()
	status, retry, body := sh.call(t, "POST", "/oauth/token", "", passwordForm)
	wantUnavailable(t, "token request, Redis cut", status, retry, body, "redis")
	status, retry, body = sh.call(t, "GET", "/api/events", tok, "")
	wantUnavailable(t, "list with a token, Redis cut", status, retry, body, "redis (tokens)")
	status, retry, body = sh.call(t, "POST", "/api/events", tok, newEvent)
	wantUnavailable(t, "create, Redis cut", status, retry, body, "redis (tokens)")
	if status, _, body := sh.call(t, "GET", "/api/events", "", ""); status != http.StatusOK {
		t.Errorf("anonymous list needs no Redis: %d %s", status, body)
	}
	until(t, "reported by /api", func() bool {
		status, _, body := sh.call(t, "GET", "/api", "", "")
		return status == http.StatusServiceUnavailable && strings.Contains(body, "redis (tokens)") && !strings.Contains(body, "postgresql")
	})
	sh.redis.Stall()
	status, retry, body = sh.call(t, "GET", "/api/events", tok, "")
	wantUnavailable(t, "list with a token, Redis silent", status, retry, body, "redis (tokens)")

	sh.redis.Restore()
	until(t, "served again once Redis is back", func() bool {
		status, _, _ := sh.call(t, "GET", "/api/events", tok, "")
		return status == http.StatusOK
	})

	sh.postgres.Cut()
	status, retry, body = sh.call(t, "GET", "/api/events", "", "")
	wantUnavailable(t, "list, PostgreSQL cut", status, retry, body, "postgresql (events)")
	status, retry, body = sh.call(t, "GET", "/api/events/1", tok, "")
	wantUnavailable(t, "read, PostgreSQL cut", status, retry, body, "postgresql (events)")
	status, retry, body = sh.call(t, "PUT", "/api/events/1", tok, newEvent)
	wantUnavailable(t, "update, PostgreSQL cut", status, retry, body, "postgresql (events)")
	if status, _, body := sh.call(t, "POST", "/oauth/token", "", passwordForm); status != http.StatusOK {
		t.Errorf("a token needs no PostgreSQL: %d %s", status, body)
	}
	until(t, "reported by /api", func() bool {
		status, _, body := sh.call(t, "GET", "/api", "", "")
		return status == http.StatusServiceUnavailable && strings.Contains(body, "postgresql (events)") && !strings.Contains(body, "redis")
	})

	sh.postgres.Restore()
	until(t, "served again once PostgreSQL is back", func() bool {
		status, _, body := sh.call(t, "GET", "/api/events/1", tok, "")
		return status == http.StatusOK && strings.Contains(body, `"kept"`)
	})
	until(t, "the API root served again", func() bool {
		status, _, _ := sh.call(t, "GET", "/api", "", "")
		return status == http.StatusOK
	})
	if strings.Contains(sh.log.String(), "status=500") {
		t.Errorf("a backend down gave a 500:\n%s", sh.log.String())
	}
	if !strings.Contains(sh.log.String(), "status=503") {
		t.Errorf("the 503s are not logged:\n%s", sh.log.String())
	}
}

// TestTheLockoutIsSharedByServersOnOneRedis: wrong passwords spread over
// two servers on one Redis lock the user out of both after ten in all, and
// a token issued by one is honoured by the other.
func TestTheLockoutIsSharedByServersOnOneRedis(t *testing.T) {
	rs := backendtest.Redis(t)
	client, err := backend.OpenRedis(rs.URL, backendTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	prefix := rs.Prefix(t)
	var servers []*sharedServer
	for range 2 {
		tokens := oauth.NewRedisStore(client, clock.System{}, oauth.RedisOptions{Prefix: prefix, Timeout: backendTimeout})
		lockout := throttle.NewRedisGuard(client, prefix, throttle.Limits{Failures: 10, Window: time.Minute, Lockout: time.Minute}, clock.System{}, backendTimeout)
		addr, _ := listenWith(t, Options{Tokens: tokens, Lockout: lockout, TokenRate: -1})
		servers = append(servers, &sharedServer{addr: addr})
	}
	tok := servers[0].token(t)
	if status, _, body := servers[1].call(t, "GET", "/api/events", tok, ""); status != http.StatusOK || !strings.Contains(body, "create-new-event") {
		t.Fatalf("a token of server A on server B: %d %s", status, body)
	}
	for i := range 10 {
		wrong := url.Values{"grant_type": {"password"}, "username": {"user@email.com"}, "password": {"wrong-" + strconv.Itoa(i)}}.Encode()
		if status, _, body := servers[i%2].call(t, "POST", "/oauth/token", "", wrong); status != http.StatusBadRequest {
			t.Fatalf("wrong password %d: %d %s", i+1, status, body)
		}
	}
	for i, sh := range servers {
		status, retry, body := sh.call(t, "POST", "/oauth/token", "", passwordForm)
		if status != http.StatusTooManyRequests || retry == "" {
			t.Fatalf("server %d, the right password after 10 wrong over both: %d %s, want 429", i, status, body)
		}
	}
}

// TestANULIsRefusedAlikeOnEveryStore: U+0000 in an event's text, which
// PostgreSQL cannot store, is refused with 400 by a server on either
// store, on create and on update, so that replicas never disagree; the
// event is unchanged.
func TestANULIsRefusedAlikeOnEveryStore(t *testing.T) {
	memory, _ := listenWith(t, Options{})
	for name, sh := range map[string]*sharedServer{"memory": {addr: memory}, "postgres": startShared(t)} {
		tok := sh.token(t)
		status, _, body := sh.call(t, "POST", "/api/events", tok, newEvent)
		if status != http.StatusCreated {
			t.Fatalf("%s: create: %d %s", name, status, body)
		}
		var created struct {
			ID    int64                            `json:"id"`
			Links map[string]struct{ Href string } `json:"_links"`
		}
		json.Unmarshal([]byte(body), &created)
		for _, field := range []string{"name", "description", "location"} {
			var fields map[string]any
			json.Unmarshal([]byte(newEvent), &fields)
			fields[field] = "a\u0000b"
			raw, _ := json.Marshal(fields)
			bad := string(raw)
			for _, req := range []struct{ method, path string }{{"POST", "/api/events"}, {"PUT", "/api/events/" + strconv.FormatInt(created.ID, 10)}} {
				status, _, body := sh.call(t, req.method, req.path, tok, bad)
				if status != http.StatusBadRequest || !strings.Contains(body, `"field":"`+field+`"`) || !strings.Contains(body, event.CodeInvalidCharacter) {
					t.Errorf("%s: %s %s with U+0000 in %s: %d %s, want 400 naming the field", name, req.method, req.path, field, status, body)
				}
			}
		}
		if status, _, body := sh.call(t, "GET", "/api/events/"+strconv.FormatInt(created.ID, 10), "", ""); status != http.StatusOK || !strings.Contains(body, `"name":"kept"`) {
			t.Errorf("%s: the event after refused updates: %d %s", name, status, body)
		}
	}
}
