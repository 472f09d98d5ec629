package server

import (
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"eventsvc/server/clock"
	"eventsvc/server/fault"
	"eventsvc/server/journal"
)

// TestInjectedFaultsKeepTheSecurityAndCORSHeaders: a front end in a
// browser must see the injected status, not a CORS error, and the answer
// keeps nosniff; the journal records it.
func TestInjectedFaultsKeepTheSecurityAndCORSHeaders(t *testing.T) {
	set := fault.NewSet(func() float64 { return 0 })
	j := journal.New(10, clock.System{})
	addr, _ := listenWith(t, Options{CORSOrigin: "http://localhost:3000", Faults: set, Journal: j})
	if _, err := set.Add(fault.Rule{Method: "GET", Path: "/api/events", Answer: fault.Answer{Status: 503}, Fraction: 1}); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/api/events", nil)
	req.Header.Set("Origin", "http://localhost:3000")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("status %d, want the injected 503", resp.StatusCode)
	}
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "http://localhost:3000" {
		t.Errorf("Access-Control-Allow-Origin = %q", got)
	}
	if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options = %q", got)
	}
	if e := j.Last(1); len(e) != 1 || e[0].Status != 503 || e[0].Fault != 1 {
		t.Errorf("journal %+v", e)
	}
}

// TestADroppedConnectionIsReset: the drop fault resets the connection,
// as docs/control-api.md promises and a client's retry logic expects of a
// crashed upstream, rather than closing it gracefully as the server
// closes its connections otherwise.
func TestADroppedConnectionIsReset(t *testing.T) {
	set := fault.NewSet(func() float64 { return 0 })
	addr, _ := listenWith(t, Options{Faults: set})
	if _, err := set.Add(fault.Rule{Path: "/api/events", Answer: fault.Answer{Drop: true}, Fraction: 1}); err != nil {
		t.Fatal(err)
	}
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := c.Read(make([]byte, 1024))
	if n != 0 || !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("read %d bytes, %v; want the connection reset", n, err)
	}
}
