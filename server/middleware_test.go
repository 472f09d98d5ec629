package server

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"eventsvc/server/servertest"
)

// listenWith starts a server with opts (testConfig unless a Config is set)
// on a loopback port, until the test ends, and checks that it stops cleanly.
// It returns the server's address, 127.0.0.1:PORT.
func listenWith(tb testing.TB, opts Options) (string, *Server) {
	tb.Helper()
	if opts.Config == nil {
		opts.Config = testConfig(tb)
	}
	s := New(opts)
	return servertest.New(tb, s).Addr, s
}

func TestRequestLogTellsWhatHappenedAndNoSecret(t *testing.T) {
	var log servertest.Log
	addr, _ := listenWith(t, Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	form := map[string]string{"Authorization": basicHeader("myApp:pass"), "Content-Type": "application/x-www-form-urlencoded"}
	_, body := rawRequest(t, addr, "POST", "/oauth/token", form, "grant_type=password&username=user%40email.com&password=user")
	token := strings.Split(strings.Split(body, `"access_token":"`)[1], `"`)[0]
	rawRequest(t, addr, "GET", "/api/events?access_token="+token, map[string]string{"Authorization": "Bearer " + token}, "")
	rawRequest(t, addr, "POST", "/api/events", map[string]string{"Authorization": "Bearer wrong-token-123456"}, "{}")

	text := log.String()
	for _, want := range []string{"method=POST path=/oauth/token status=200", "method=GET path=/api/events status=200", "status=401", "latency=", "remote=127.0.0.1"} {
		if !strings.Contains(text, want) {
			t.Errorf("the log lacks %q:\n%s", want, text)
		}
	}
	for _, secret := range []string{token, "pass", "password=user", "wrong-token-123456", basicHeader("myApp:pass")[6:], "Bearer"} {
		if strings.Contains(text, secret) {
			t.Errorf("the log holds %q:\n%s", secret, text)
		}
	}
}

func TestSecurityHeaders(t *testing.T) {
	addr, _ := listenWith(t, Options{})
	form := map[string]string{"Authorization": basicHeader("myApp:pass"), "Content-Type": "application/x-www-form-urlencoded"}
	_, body := rawRequest(t, addr, "POST", "/oauth/token", form, "grant_type=password&username=user%40email.com&password=user")
	token := strings.Split(strings.Split(body, `"access_token":"`)[1], `"`)[0]
	for _, tt := range []struct {
		target, auth string
		noStore      bool
	}{
		{"/api", "", false},
		{"/api/events", "", false},
		{"/api/events", "Bearer " + token, true},
		{"/api/events/999", "Bearer " + token, true},
		{"/docs/index.html", "", false},
		{"/nowhere", "", false},
	} {
		h := map[string]string{}
		if tt.auth != "" {
			h["Authorization"] = tt.auth
		}
		resp, _ := rawRequest(t, addr, "GET", tt.target, h, "")
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no X-Content-Type-Options: nosniff", tt.target)
		}
		if got := resp.Header.Get("Cache-Control") == "no-store"; got != tt.noStore {
			t.Errorf("%s (auth %v): Cache-Control %q", tt.target, tt.auth != "", resp.Header.Get("Cache-Control"))
		}
	}
}

func TestCORSIsOffByDefaultAndExposesTheChallengeWhenOn(t *testing.T) {
	preflight := map[string]string{
		"Origin":                         "http://localhost:3000",
		"Access-Control-Request-Method":  "POST",
		"Access-Control-Request-Headers": "authorization,content-type",
	}
	off, _ := listenWith(t, Options{})
	resp, _ := rawRequest(t, off, "OPTIONS", "/api/events", preflight, "")
	if resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("CORS answered with no origin configured")
	}

	on, _ := listenWith(t, Options{CORSOrigin: "http://localhost:3000"})
	resp, _ = rawRequest(t, on, "OPTIONS", "/api/events", preflight, "")
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" ||
		!strings.Contains(strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers")), "authorization") {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	resp, _ = rawRequest(t, on, "POST", "/api/events", map[string]string{"Origin": "http://localhost:3000", "Content-Type": "application/json"}, "{}")
	expose := resp.Header.Get("Access-Control-Expose-Headers")
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(expose, "WWW-Authenticate") || !strings.Contains(expose, "Location") {
		t.Fatalf("POST without a token: %d, expose %q", resp.StatusCode, expose)
	}
	resp, _ = rawRequest(t, on, "OPTIONS", "/api/events", map[string]string{"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"}, "")
	if resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("another origin was allowed")
	}
}

// TestShutdownFinishesRequestsInFlight sends half a request, shuts the
// server down, sends the rest: the answer still comes.
func TestShutdownFinishesRequestsInFlight(t *testing.T) {
	addr, s := listenWith(t, Options{})
	conn := dialWithin(t, addr, 20*time.Second)
	defer conn.Close()
	body := "grant_type=password&username=user%40email.com&password=user"
	fmt.Fprintf(conn, "POST /oauth/token HTTP/1.1\r\nHost: %s\r\nAuthorization: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n%s",
		addr, basicHeader("myApp:pass"), len(body), body[:10])
	time.Sleep(100 * time.Millisecond) // the server is reading the body

	stopped := make(chan error, 1)
	go func() { stopped <- s.Shutdown() }()
	time.Sleep(200 * time.Millisecond)
	select {
	case err := <-stopped:
		t.Fatalf("Shutdown returned (%v) with a request in flight", err)
	default:
	}
	if _, err := io.WriteString(conn, body[10:]); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the request in flight got no answer: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the request in flight: status %d", resp.StatusCode)
	}
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(ShutdownTimeout + 5*time.Second):
		t.Fatal("Shutdown did not return after the request finished")
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Fatal("the server still accepts connections")
	}
}
