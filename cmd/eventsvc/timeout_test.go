package main

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"eventsvc/server/servertest"
)

// TestServeClosesSlowAndIdleConnectionsAfterItsTimeouts: with
// -read-timeout 1s and -idle-timeout 1s (the defaults are 10s and 60s), a
// client that sends half a header and one idle after a request are both
// closed within a few seconds.
func TestServeClosesSlowAndIdleConnectionsAfterItsTimeouts(t *testing.T) {
	out, errs := &servertest.Log{}, &servertest.Log{}
	stop := make(chan os.Signal, 1)
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"serve", "-addr", "127.0.0.1:0", "-quiet", "-read-timeout", "1s", "-idle-timeout", "1s"}, nil, out, errs, stop)
	}()
	t.Cleanup(func() {
		stop <- syscall.SIGTERM
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Error("serve did not stop")
		}
	})
	listening := regexp.MustCompile(`listening on http://(127\.0\.0\.1:\d+)`)
	var addr string
	for deadline := time.Now().Add(20 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := listening.FindStringSubmatch(out.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatalf("no address in the banner: %q (stderr %q)", out.String(), errs.String())
	}
	expectSlowAndIdleClosed(t, addr, "/api")
}

// expectSlowAndIdleClosed checks that the listener at addr closes, within
// 5 seconds, a connection that sent half a header and one idle after a
// request for path.
func expectSlowAndIdleClosed(t *testing.T, addr, path string) {
	t.Helper()
	for name, send := range map[string]string{
		"half a header":        "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ",
		"idle after a request": "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
	} {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, send); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err = io.Copy(io.Discard, c) // until the server closes
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("%s %s: %s: the connection is still open after 5s", addr, path, strings.TrimSpace(name))
		}
	}
}

// TestLocalListenersCloseSlowAndIdleConnections: the control API and the
// metrics have the public listener's timeouts.
func TestLocalListenersCloseSlowAndIdleConnections(t *testing.T) {
	s := startServe(t, "-control", "127.0.0.1:0", "-metrics", "127.0.0.1:0", "-read-timeout", "1s", "-idle-timeout", "1s")
	expectSlowAndIdleClosed(t, strings.TrimPrefix(s.control, "http://"), "/")
	expectSlowAndIdleClosed(t, strings.TrimPrefix(s.metrics, "http://"), "/metrics")
}

// TestMetricsRefuseWebPages: the metrics on loopback refuse a rebinding
// Host and a request a web page makes, and answer Prometheus.
func TestMetricsRefuseWebPages(t *testing.T) {
	s := startServe(t, "-metrics", "127.0.0.1:0")
	for _, c := range []struct {
		name, host, origin string
		want               int
	}{
		{"prometheus", "", "", http.StatusOK},
		{"a rebinding host", "rebind.evil.example:9100", "", http.StatusForbidden},
		{"a page", "", "http://evil.example", http.StatusForbidden},
	} {
		req, _ := http.NewRequest(http.MethodGet, s.metrics+"/metrics", nil)
		if c.host != "" {
			req.Host = c.host
		}
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: %d %.200s, want %d", c.name, resp.StatusCode, b, c.want)
		}
	}
}
