package server

import (
	"testing"

	"eventsvc/server/clientcheck"
	"eventsvc/server/clock"
	"eventsvc/server/journal"
)

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
