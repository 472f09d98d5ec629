package server

import (
	"net"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"eventsvc/server/clientcheck"
	"eventsvc/server/clock"
	"eventsvc/server/event"
	"eventsvc/server/journal"
)

// BenchmarkHandler is the work of the Fiber application for one request,
// without the network: the middleware, the handler and the body, for the
// requests make bench loads, against a bare Fiber handler that sends the
// same bytes.
func BenchmarkHandler(b *testing.B) {
	addr, s := listenWith(b, Options{Events: demoStore(b)})
	token := tokenFor(b, addr, "user@email.com", "user")
	bare := fiber.New(fiber.Config{DisableStartupMessage: true})
	body := []byte(`{"_links":{"events":{"href":"http://localhost:8080/api/events"},"profile":{"href":"http://localhost:8080/docs/index.html#resources-index-access"}}}`)
	bare.Use(func(c *fiber.Ctx) error {
		c.Response().Header.Set("Content-Type", "application/hal+json")
		c.Response().Header.Set("Vary", "Authorization")
		c.Response().Header.Set("Cache-Control", "no-cache")
		c.Response().Header.Set("X-Content-Type-Options", "nosniff")
		return c.Send(body)
	})
	run := loadRequest
	h := s.App().Handler()
	b.Run("bare", func(b *testing.B) { run(b, bare.Handler(), "/api", "") })
	b.Run("index", func(b *testing.B) { run(b, h, "/api", "") })
	b.Run("event", func(b *testing.B) { run(b, h, "/api/events/1", "") })
	b.Run("event-token", func(b *testing.B) { run(b, h, "/api/events/1", "Bearer "+token) })
	b.Run("list", func(b *testing.B) { run(b, h, "/api/events?size=20", "") })
}

// demoStore is an event store with the 25 demo events of two managers.
func demoStore(b *testing.B) *event.Memory {
	b.Helper()
	store := event.NewMemory()
	for _, e := range event.Demo(25, []int64{1, 2}, time.Now()) {
		if _, err := store.Create(e); err != nil {
			b.Fatal(err)
		}
	}
	return store
}

// loadRequest sends GET target, with the Authorization auth when given,
// to h for each round of b, without the network, and fails b on an
// answer but 200.
func loadRequest(b *testing.B, h fasthttp.RequestHandler, target, auth string) {
	var ctx fasthttp.RequestCtx
	var req fasthttp.Request
	req.SetRequestURI(target)
	req.Header.SetHost("localhost:8080")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}, nil)
	for b.Loop() {
		ctx.Response.Reset()
		h(&ctx)
		if ctx.Response.StatusCode() != 200 {
			b.Fatalf("%s: %d %s", target, ctx.Response.StatusCode(), ctx.Response.Body())
		}
	}
}

// BenchmarkClientChecks is the read path's cost of the client checks: the
// requests of BenchmarkHandler against a server without the control
// API's parts, one with its journal (the control API before the checks),
// and one with the journal and the checks (the control API now). Read
// the ratios of one run: `go test -run '^$' -bench ClientChecks ./server`.
func BenchmarkClientChecks(b *testing.B) {
	store := demoStore(b)
	servers := []struct {
		name string
		opts Options
	}{
		{"off", Options{Events: store}},
		{"journal", Options{Events: store, Journal: journal.New(500, clock.System{})}},
		{"journal+checks", Options{Events: store, Journal: journal.New(500, clock.System{}), ClientChecks: clientcheck.New(clock.System{})}},
	}
	for _, srv := range servers {
		addr, s := listenWith(b, srv.opts)
		token := tokenFor(b, addr, "user@email.com", "user")
		h := s.App().Handler()
		for _, r := range []struct{ name, target, auth string }{
			{"event", "/api/events/1", ""},
			{"event-token", "/api/events/1", "Bearer " + token},
			{"list-token", "/api/events?size=20", "Bearer " + token},
		} {
			b.Run(srv.name+"/"+r.name, func(b *testing.B) { loadRequest(b, h, r.target, r.auth) })
		}
	}
}
