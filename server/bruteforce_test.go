package server

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clientFrom is an HTTP client whose connections come from the loopback
// address local, such as 127.0.0.2.
func clientFrom(local string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
	}}
}

func grant(t *testing.T, c *http.Client, addr, clientSecret, password string) (int, http.Header, string) {
	t.Helper()
	form := url.Values{"grant_type": {"password"}, "username": {"user@email.com"}, "password": {password}}
	req, _ := http.NewRequest("POST", "http://"+addr+"/oauth/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("myApp", clientSecret)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(body)
}

// TestRepeatedWrongPasswordsAreRefusedFromThatAddressOnly is the check of
// RFC 6749 §4.3.2's protection: after 10 wrong passwords for one user from
// one address, that address gets 429 with Retry-After, even with the right
// password, while the user still logs in from another address; a success
// clears the count.
func TestRepeatedWrongPasswordsAreRefusedFromThatAddressOnly(t *testing.T) {
	addr := listen(t) // demo configuration, default limits
	attacker, user := clientFrom("127.0.0.1"), clientFrom("127.0.0.2")

	var statuses []int
	var retryAfter string
	for i := 0; i < 20; i++ {
		code, h, body := grant(t, attacker, addr, "pass", "wrong-"+strconv.Itoa(i))
		statuses = append(statuses, code)
		if code == http.StatusTooManyRequests {
			retryAfter = h.Get("Retry-After")
			var e struct{ Error, ErrorDescription string }
			_ = json.Unmarshal([]byte(body), &e)
			if !strings.Contains(body, `"too_many_attempts"`) {
				t.Fatalf("429 body %s", body)
			}
		}
	}
	for i, code := range statuses {
		want := http.StatusBadRequest
		if i >= 10 {
			want = http.StatusTooManyRequests
		}
		if code != want {
			t.Fatalf("attempt %d: status %d, want %d (all: %v)", i+1, code, want, statuses)
		}
	}
	if secs, err := strconv.Atoi(retryAfter); err != nil || secs < 1 || secs > 300 {
		t.Fatalf("Retry-After %q", retryAfter)
	}
	if code, _, body := grant(t, attacker, addr, "pass", "user"); code != http.StatusTooManyRequests {
		t.Fatalf("the right password from the locked address: %d %s", code, body)
	}
	if code, _, body := grant(t, user, addr, "pass", "user"); code != http.StatusOK {
		t.Fatalf("the right password from another address: %d %s", code, body)
	}
	// A success clears the count: 9 failures, a success, 9 failures, no lock.
	for i := 0; i < 9; i++ {
		grant(t, user, addr, "pass", "wrong")
	}
	grant(t, user, addr, "pass", "user")
	for i := 0; i < 9; i++ {
		grant(t, user, addr, "pass", "wrong")
	}
	if code, _, body := grant(t, user, addr, "pass", "user"); code != http.StatusOK {
		t.Fatalf("after a success and 9 more failures: %d %s", code, body)
	}
}

func TestRepeatedWrongClientSecretsAreRefused(t *testing.T) {
	addr := listen(t)
	c := clientFrom("127.0.0.3")
	for i := 0; i < 10; i++ {
		if code, _, _ := grant(t, c, addr, "wrong", "user"); code != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d", i+1, code)
		}
	}
	code, h, body := grant(t, c, addr, "pass", "user")
	if code != http.StatusTooManyRequests || h.Get("Retry-After") == "" {
		t.Fatalf("the right secret after 10 wrong ones: %d %s", code, body)
	}
	if code, _, _ := grant(t, clientFrom("127.0.0.4"), addr, "pass", "user"); code != http.StatusOK {
		t.Fatalf("from another address: %d", code)
	}
}
