package main

import (
	"errors"
	"eventsvc/server/servertest"
	"io"
	"net"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
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
	for deadline := time.Now().Add(5 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := listening.FindStringSubmatch(out.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatalf("no address in the banner: %q (stderr %q)", out.String(), errs.String())
	}
	for name, send := range map[string]string{
		"half a header":        "GET /api HTTP/1.1\r\nHost: x\r\nX-Slow: ",
		"idle after a request": "GET /api HTTP/1.1\r\nHost: x\r\n\r\n",
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
			t.Errorf("%s: the connection is still open after 5s", strings.TrimSpace(name))
		}
	}
}
