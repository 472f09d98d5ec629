package server

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// The size of TestSlowAndIdleClientsAreClosedInTime: hundreds of
// connections of each kind, and short timeouts, so that it takes seconds.
const (
	slowClients   = 200
	idleClients   = 200
	slowTimeout   = time.Second
	normalQueries = 20
)

// TestSlowAndIdleClientsAreClosedInTime holds hundreds of connections that
// send their headers a byte at a time, and hundreds of kept-alive
// connections that send nothing after a first request. Meanwhile, normal
// requests are answered; and every slow connection is closed within a
// generous multiple of the read timeout, every idle one within that of the
// idle timeout.
func TestSlowAndIdleClientsAreClosedInTime(t *testing.T) {
	addr, _ := listenWith(t, Options{ReadTimeout: slowTimeout, IdleTimeout: slowTimeout, WriteTimeout: slowTimeout})
	bound := 3 * slowTimeout
	dial := func() net.Conn {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// closedWithin waits, at most limit, for the server to close c, and
	// reports how long that took, or an error.
	closedWithin := func(c net.Conn, start time.Time, limit time.Duration) (time.Duration, error) {
		_ = c.SetReadDeadline(start.Add(limit))
		buf := make([]byte, 4096)
		for {
			_, err := c.Read(buf)
			switch {
			case err == nil:
				continue // a 408, say: the close follows
			case errors.Is(err, os.ErrDeadlineExceeded):
				return 0, err
			default: // EOF or reset: closed
				return time.Since(start), nil
			}
		}
	}

	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	fail := func(format string, err error) {
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 10 {
			failures = append(failures, format+": "+err.Error())
		}
	}

	// Slow clients: a request line, then a byte of header every 200 ms.
	start := time.Now()
	for range slowClients {
		c := dial()
		wg.Go(func() {
			stop := make(chan struct{})
			defer close(stop)
			go func() {
				if _, err := io.WriteString(c, "GET /api HTTP/1.1\r\n"); err != nil {
					return
				}
				header := "Host: a-slow-client.example\r\nX-Slow: " + strings.Repeat("x", 1000)
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					case <-time.After(200 * time.Millisecond):
					}
					if _, err := c.Write([]byte{header[i%len(header)]}); err != nil {
						return
					}
				}
			}()
			if _, err := closedWithin(c, start, bound+slowTimeout); err != nil {
				fail("a slow client was not closed in time", err)
			}
		})
	}
	// Idle clients: one request answered, then nothing.
	idleStart := time.Now()
	for range idleClients {
		c := dial()
		if _, err := io.WriteString(c, "GET /api HTTP/1.1\r\nHost: an-idle-client.example\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			if _, err := closedWithin(c, idleStart, bound+slowTimeout); err != nil {
				fail("an idle client was not closed in time", err)
			}
		})
	}

	// Normal requests are answered meanwhile.
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for i := range normalQueries {
		resp, err := client.Get("http://" + addr + "/api")
		if err != nil {
			t.Fatalf("normal request %d among slow clients: %v", i+1, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("normal request %d: status %d", i+1, resp.StatusCode)
		}
	}
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	if len(failures) == 0 {
		t.Logf("%d slow and %d idle connections closed within %v of their start", slowClients, idleClients, time.Since(start).Round(100*time.Millisecond))
	}
}
