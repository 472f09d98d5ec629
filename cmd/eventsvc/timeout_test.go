package main

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// TestServeClosesSlowAndIdleConnectionsAfterItsTimeouts: with
// -read-timeout 1s and -idle-timeout 1s (the defaults are 10s and 60s), a
// client that sends half a header and one idle after a request are both
// closed within a few seconds.
func TestServeClosesSlowAndIdleConnectionsAfterItsTimeouts(t *testing.T) {
	s := startServe(t, "-read-timeout", "1s", "-idle-timeout", "1s")
	expectSlowAndIdleClosed(t, strings.TrimPrefix(s.base, "http://"), "/api")
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
