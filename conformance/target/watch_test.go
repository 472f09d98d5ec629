package target

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestWatchWaitsOutAShortRetryAfterAndNotesALongOne(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/short" && calls.Add(1) == 1:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
		case r.URL.Path == "/long":
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			w.WriteHeader(http.StatusOK)
		}
	}))
	defer srv.Close()
	var w Watch
	client := &http.Client{Transport: w.Transport(nil)}
	resp, err := client.Get(srv.URL + "/short")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("short Retry-After: %v %v", resp, err)
	}
	resp.Body.Close()
	if n, d := w.SlowedDown(); n != 1 || d != time.Second || w.Throttled() != nil {
		t.Fatalf("after a short wait: %d waits of %s, throttled %v", n, d, w.Throttled())
	}
	before := time.Now()
	resp, err = client.Get(srv.URL + "/long")
	if err != nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("long Retry-After: %v %v", resp, err)
	}
	resp.Body.Close()
	if th := w.Throttled(); th == nil || th.Path != "/long" || th.RetryAfter != "3600" || !w.ThrottledSince(before) {
		t.Fatalf("a lockout is not noted: %v", th)
	}
}

func TestWatchNotesATargetThatStopsAnswering(t *testing.T) {
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		w.Write([]byte("<html>upstream down</html>"))
	}))
	defer gateway.Close()
	var w Watch
	client := &http.Client{Transport: w.Transport(nil)}
	before := time.Now()
	if resp, err := client.Get(gateway.URL + "/api"); err == nil {
		resp.Body.Close()
	}
	down := w.Unreachable()
	if down == nil || down.Path != "/api" || !w.DownSince(before) {
		t.Fatalf("a gateway's 502 is not noted as the target being down: %v", down)
	}
	if got := down.Error(); got != "the target did not answer GET /api: it answered 502 Bad Gateway: <html>upstream down</html>" {
		t.Errorf("Error() = %q", got)
	}
}

// TestWatchDoesNotReadAnEndless429: the answer of a 429 it waits out is
// read only so far before the request is sent again.
func TestWatchDoesNotReadAnEndless429(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) > 1 {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
		chunk := make([]byte, 32<<10)
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	var w Watch
	client := &http.Client{Transport: w.Transport(nil), Timeout: 10 * time.Second}
	start := time.Now()
	resp, err := client.Get(srv.URL + "/endless")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("after an endless 429: %v %v, after %s", resp, err, time.Since(start))
	}
	resp.Body.Close()
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("waiting out an endless 429 took %s", took)
	}
}

// TestStoppedIsClosedWhenTheTargetThrottlesOrStopsAnswering: what waits
// beside a run learns at once that the target stopped it, a 429 or no
// answer, and not before.
func TestStoppedIsClosedWhenTheTargetThrottlesOrStopsAnswering(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/locked" {
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
		}
	}))
	defer srv.Close()
	stopped := func(w *Watch) bool {
		select {
		case <-w.Stopped():
			return true
		default:
			return false
		}
	}
	for _, path := range []string{"/locked", "/gone"} {
		var w Watch
		client := &http.Client{Transport: w.Transport(nil)}
		if resp, err := client.Get(srv.URL + "/ok"); err == nil {
			resp.Body.Close()
		}
		if stopped(&w) {
			t.Fatalf("%s: stopped after an answer of 200", path)
		}
		target := srv.URL + path
		if path == "/gone" {
			target = "http://127.0.0.1:1/gone" // nothing listens there
		}
		if resp, err := client.Get(target); err == nil {
			resp.Body.Close()
		}
		if !stopped(&w) {
			t.Errorf("%s: not stopped (throttled %v, unreachable %v)", path, w.Throttled(), w.Unreachable())
		}
	}
}

// TestRequestsToAnAddressAskedToSlowDownWaitTogether: after a short 429,
// the run's other requests to the same address wait out the same
// Retry-After before they are sent, rather than meet a 429 of their own
// that prolongs it: a target that answers 429 to anything during its
// cool-down, and starts it again with each, serves both requests once.
func TestRequestsToAnAddressAskedToSlowDownWaitTogether(t *testing.T) {
	var mu sync.Mutex
	var until time.Time
	var refused atomic.Int32
	first := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Path == "/oauth/token" && (refused.Load() == 0 || time.Now().Before(until)) {
			if refused.Add(1) == 1 {
				defer close(first)
			}
			until = time.Now().Add(time.Second)
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	var w Watch
	client := &http.Client{Transport: w.Transport(nil)}
	var wg sync.WaitGroup
	statuses := make([]int, 2)
	for i := range statuses {
		if i == 1 { // the second is sent while the first waits
			<-first
			for n, _ := w.SlowedDown(); n == 0; n, _ = w.SlowedDown() {
				time.Sleep(time.Millisecond)
			}
		}
		wg.Go(func() {
			resp, err := client.Post(srv.URL+"/oauth/token", "application/x-www-form-urlencoded", strings.NewReader("grant_type=password"))
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			statuses[i] = resp.StatusCode
		})
	}
	wg.Wait()
	if statuses[0] != http.StatusOK || statuses[1] != http.StatusOK || w.Throttled() != nil || refused.Load() != 1 {
		t.Errorf("statuses %v, %d refused, throttled %v: want both served after one wait", statuses, refused.Load(), w.Throttled())
	}
}
