package server

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"eventsvc/server/event"
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

// TestAClientThatDoesNotReadIsClosedAfterTheWriteTimeout: a client that
// asks for more than the connection's buffers hold and reads none of it
// has its connection closed once an answer could not be written within
// the write timeout; it then finds fewer answers than it asked for.
func TestAClientThatDoesNotReadIsClosedAfterTheWriteTimeout(t *testing.T) {
	store := event.NewMemory()
	for _, e := range event.Demo(MaxPageSize, []int64{1, 2}, time.Now()) {
		if _, err := store.Create(e); err != nil {
			t.Fatal(err)
		}
	}
	addr, _ := listenWith(t, Options{Events: store, WriteTimeout: slowTimeout})
	// A small receive buffer, so that the server's writes block soon.
	dialer := net.Dialer{Timeout: 5 * time.Second, Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		return errors.Join(err, serr)
	}}
	c, err := dialer.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Some 50 KB an answer: far more in all than the buffers of a loopback
	// connection hold (a few MB).
	const asked = 400
	req := "GET /api/events?size=" + strconv.Itoa(MaxPageSize) + " HTTP/1.1\r\nHost: x\r\n\r\n"
	go func() { _, _ = io.WriteString(c, strings.Repeat(req, asked)) }()
	time.Sleep(3 * slowTimeout) // reading nothing
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	r := bufio.NewReader(c)
	answered := 0
	for ; answered < asked; answered++ {
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			break
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			break
		}
	}
	if answered == asked {
		t.Fatalf("all %d answers arrived: the connection was not closed after the write timeout", asked)
	}
	t.Logf("%d answers of %d before the connection was closed", answered, asked)
}
