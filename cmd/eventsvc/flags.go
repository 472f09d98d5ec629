package main

import (
	"context"
	"net"
	"net/http"
	"strings"
	"time"

	"eventsvc/server"
	"eventsvc/server/local"
)

// stringList is a flag that may be given several times.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// timeouts are those of serve's flags, for every listener.
type timeouts struct{ read, idle, write time.Duration }

// serveMetrics serves the metrics at /metrics on ln until the returned
// function stops it, with the public listener's timeouts and header
// bound. Like the control API, it refuses requests from web pages, and,
// bound to loopback, a Host other than loopback's (local.Policy): a
// rebinding page could otherwise read it.
func serveMetrics(ln net.Listener, metrics http.Handler, t timeouts) (stop func()) {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	host, _, _ := net.SplitHostPort(ln.Addr().String())
	policy := local.Policy{AnyHost: !local.IsLoopback(host)}
	srv := &http.Server{
		Handler:     policy.Handler(mux),
		ReadTimeout: t.read, ReadHeaderTimeout: t.read, IdleTimeout: t.idle, WriteTimeout: t.write,
		MaxHeaderBytes: server.MaxHeaderBytes,
	}
	go func() { _ = srv.Serve(ln) }()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}
}
