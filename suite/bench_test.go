package suite

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
	"time"

	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
	"eventsvc/server"
	"eventsvc/server/event"
)

// requestDelay is what a nearby staging adds to every request.
const requestDelay = 50 * time.Millisecond

// delayed is a transport that waits before every request.
type delayed struct{ base http.RoundTripper }

func (d delayed) RoundTrip(r *http.Request) (*http.Response, error) {
	time.Sleep(requestDelay)
	return d.base.RoundTrip(r)
}

// behindDelay starts a reference server as `eventsvc serve` does, with 25
// demo events, behind a reverse proxy that adds requestDelay to every
// request, and returns the proxy's address.
func behindDelay(b testing.TB) string {
	target, err := url.Parse(startReference(b, target.ServerConfig{}, func(o *server.Options) {
		o.Events = event.NewMemory()
		var managers []int64
		for id := int64(1); id <= int64(o.Config.Accounts.Len()); id++ {
			managers = append(managers, id)
		}
		for _, e := range event.Demo(25, managers, time.Now()) {
			if _, err := o.Events.Create(e); err != nil {
				b.Fatal(err)
			}
		}
	}))
	if err != nil {
		b.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = delayed{http.DefaultTransport}
	srv := httptest.NewServer(proxy)
	b.Cleanup(srv.Close)
	return srv.URL
}

// timedRun runs a remote run's default selection with the given
// concurrency against a fresh server behind the delay, and its duration.
func timedRun(b *testing.B, concurrency int) time.Duration {
	base := behindDelay(b)
	start := time.Now()
	rep, err := Run(Options{
		Target: target.Target{BaseURL: base, Credentials: target.DemoCredentials, RunID: "bench"},
		Tags:   selection.RemoteTags, DefaultTags: true, Concurrency: concurrency, Output: io.Discard,
	})
	if err != nil {
		b.Fatalf("concurrency %d: %v", concurrency, err)
	}
	if rep.Counts()[report.Passed] == 0 {
		b.Fatal("no rule passed")
	}
	return time.Since(start)
}

// BenchmarkRemoteRunSerialAndConcurrent runs the suite as against a
// deployment (the default remote selection), against the reference server
// (with its 25 demo events) behind a delay of 50 ms per request, serially and with -concurrency 8,
// and reports both times and how many times faster the concurrent run is:
//
//	go test ./suite -run '^$' -bench RemoteRun -benchtime 1x
func BenchmarkRemoteRunSerialAndConcurrent(b *testing.B) {
	var serial, concurrent time.Duration
	for i := 0; i < b.N; i++ {
		serial += timedRun(b, 1)
		concurrent += timedRun(b, 8)
	}
	n := float64(b.N)
	b.ReportMetric(serial.Seconds()/n, "serial-s")
	b.ReportMetric(concurrent.Seconds()/n, "concurrency8-s")
	b.ReportMetric(float64(serial)/float64(concurrent), "speedup")
}
