package server

import (
	"net"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"eventsvc/server/clientcheck"
	"eventsvc/server/clock"
	"eventsvc/server/event"
	"eventsvc/server/journal"
)

// BenchmarkClientChecks is the read path's cost of the client checks: the
// requests of BenchmarkHandler against a server without the control
// API's parts, one with its journal (the control API before the checks),
// and one with the journal and the checks (the control API now). Read
// the ratios of one run: `go test -run '^$' -bench ClientChecks ./server`.
func BenchmarkClientChecks(b *testing.B) {
	store := event.NewMemory()
	for _, e := range event.Demo(25, []int64{1, 2}, time.Now()) {
		if _, err := store.Create(e); err != nil {
			b.Fatal(err)
		}
	}
	servers := []struct {
		name string
		opts Options
	}{
		{"off", Options{Events: store}},
		{"journal", Options{Events: store, Journal: journal.New(500, clock.System{})}},
		{"journal+checks", Options{Events: store, Journal: journal.New(500, clock.System{}), ClientChecks: clientcheck.New(clock.System{})}},
	}
	remote := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}
	for _, srv := range servers {
		addr, s := listenWith(b, srv.opts)
		token := tokenFor(b, addr, "user@email.com", "user")
		h := s.App().Handler()
		for _, r := range []struct{ name, target, auth string }{
			{"event", "/api/events/1", ""},
			{"event-token", "/api/events/1", "Bearer " + token},
			{"list-token", "/api/events?size=20", "Bearer " + token},
		} {
			b.Run(srv.name+"/"+r.name, func(b *testing.B) {
				var ctx fasthttp.RequestCtx
				var req fasthttp.Request
				req.SetRequestURI(r.target)
				req.Header.SetHost("localhost:8080")
				if r.auth != "" {
					req.Header.Set("Authorization", r.auth)
				}
				ctx.Init(&req, remote, nil)
				for b.Loop() {
					ctx.Response.Reset()
					h(&ctx)
					if ctx.Response.StatusCode() != 200 {
						b.Fatalf("%s: %d", r.target, ctx.Response.StatusCode())
					}
				}
			})
		}
	}
}
