package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"eventsvc/server/backend"
	"eventsvc/server/backendtest"
	"eventsvc/server/clock"
	"eventsvc/server/event"
	"eventsvc/server/oauth"
	"eventsvc/server/throttle"
)

// benchServer starts a server with the given backends ("memory", "redis"
// for tokens and lockout, "postgres" for events, or both) holding 100
// events, and returns its base URL.
func benchServer(b *testing.B, backends string) string {
	b.Helper()
	opts := Options{TokenRate: -1}
	if strings.Contains(backends, "redis") {
		rs := backendtest.Redis(b)
		client, err := backend.OpenRedis(rs.URL, backend.DefaultTimeout)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { client.Close() })
		prefix := rs.Prefix(b)
		opts.Tokens = oauth.NewRedisStore(client, clock.System{}, oauth.RedisOptions{Prefix: prefix})
		opts.Lockout = throttle.NewRedisGuard(client, prefix, throttle.Limits{Failures: 10, Window: time.Minute, Lockout: time.Minute}, clock.System{}, backend.DefaultTimeout)
	}
	var events event.Store = event.NewMemory()
	if strings.Contains(backends, "postgres") {
		pg, err := event.OpenPostgres(context.Background(), backendtest.Postgres(b).Database(b), backend.DefaultTimeout)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(pg.Close)
		events = pg
	}
	for _, e := range event.Demo(100, []int64{1, 2}, time.Now()) {
		if _, err := events.Create(e); err != nil {
			b.Fatal(err)
		}
	}
	opts.Events = events
	addr, _ := listenWith(b, opts)
	return "http://" + addr
}

// BenchmarkBackends is one request through a server on loopback with each
// of its backends: in memory, tokens and lockout in Redis, events in
// PostgreSQL, both. "read" is GET /api/events/1 with a bearer token,
// "list" a page of 20 with one, "grant" a password grant (bcrypt at its
// lowest cost, so that the backends show). make bench-backends prints
// each as a ratio to the in-memory server of the same run.
func BenchmarkBackends(b *testing.B) {
	for _, op := range []string{"read", "list", "grant"} {
		for _, backends := range []string{"memory", "redis", "postgres", "redis+postgres"} {
			b.Run(op+"/"+backends, func(b *testing.B) {
				base := benchServer(b, backends)
				c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
				defer c.CloseIdleConnections()
				do := func(req *http.Request) []byte {
					resp, err := c.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Fatalf("%s %s: %d %s", req.Method, req.URL, resp.StatusCode, body)
					}
					return body
				}
				grant := func() *http.Request {
					req, _ := http.NewRequest("POST", base+"/oauth/token", strings.NewReader(passwordForm))
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
					req.SetBasicAuth("myApp", "pass")
					return req
				}
				var tr oauth.TokenResponse
				if err := json.Unmarshal(do(grant()), &tr); err != nil {
					b.Fatal(err)
				}
				path := map[string]string{"read": "/api/events/1", "list": "/api/events?size=20&sort=name,desc"}[op]
				for b.Loop() {
					if op == "grant" {
						do(grant())
						continue
					}
					req, _ := http.NewRequest("GET", base+path, nil)
					req.Header.Set("Authorization", "Bearer "+tr.AccessToken)
					do(req)
				}
			})
		}
	}
}
