package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"eventsvc/server/throttle"
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

// tokenAnswer is what the token endpoint answered postToken.
type tokenAnswer struct {
	status int
	header http.Header
	body   string
}

// postToken posts form to the token endpoint at addr from c, with the
// Basic credentials of clientID and secret and the extra header fields;
// it may run outside the test's goroutine.
func postToken(c *http.Client, addr, clientID, secret string, form url.Values, header map[string]string) (tokenAnswer, error) {
	req, err := http.NewRequest("POST", "http://"+addr+"/oauth/token", strings.NewReader(form.Encode()))
	if err != nil {
		return tokenAnswer{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(clientID, secret)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		return tokenAnswer{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return tokenAnswer{resp.StatusCode, resp.Header, string(body)}, err
}

// unknownLogin is a password grant for a user that does not exist.
var unknownLogin = url.Values{"grant_type": {"password"}, "username": {"u"}, "password": {"p"}}

// unknownClientLogin posts unknownLogin to the token endpoint at addr from
// c as client-i, a client that does not exist either.
func unknownClientLogin(t *testing.T, c *http.Client, addr string, i int) tokenAnswer {
	t.Helper()
	a, err := postToken(c, addr, "client-"+strconv.Itoa(i), "secret", unknownLogin, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// userLogin is the form of a password grant for user@email.com.
func userLogin(password string) url.Values {
	return url.Values{"grant_type": {"password"}, "username": {"user@email.com"}, "password": {password}}
}

// grant is a password grant for user@email.com through client myApp.
func grant(t *testing.T, c *http.Client, addr, clientSecret, password string) (int, http.Header, string) {
	t.Helper()
	a, err := postToken(c, addr, "myApp", clientSecret, userLogin(password), nil)
	if err != nil {
		t.Fatal(err)
	}
	return a.status, a.header, a.body
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
		grant(t, user, addr, "pass", "wrong-"+strconv.Itoa(i))
	}
	grant(t, user, addr, "pass", "user")
	for i := 0; i < 9; i++ {
		grant(t, user, addr, "pass", "wrong-"+strconv.Itoa(i))
	}
	if code, _, body := grant(t, user, addr, "pass", "user"); code != http.StatusOK {
		t.Fatalf("after a success and 9 more failures: %d %s", code, body)
	}
}

func TestRepeatedWrongClientSecretsAreRefused(t *testing.T) {
	addr := listen(t)
	c := clientFrom("127.0.0.3")
	for i := 0; i < 10; i++ {
		if code, _, _ := grant(t, c, addr, "wrong-"+strconv.Itoa(i), "user"); code != http.StatusUnauthorized {
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

// grantStatus is the status of a password grant for user@email.com, or 0
// when the request fails; it may run outside the test's goroutine.
func grantStatus(c *http.Client, addr, clientSecret, password string) int {
	a, err := postToken(c, addr, "myApp", clientSecret, userLogin(password), nil)
	if err != nil {
		return 0
	}
	return a.status
}

// flood sends n requests at once, each on its own connection from
// 127.0.0.1, made by send, and returns their statuses as they come. The
// channel is closed when all are answered.
func flood(t *testing.T, n int, send func(c *http.Client, i int) int) <-chan int {
	t.Helper()
	statuses := make(chan int, n)
	start := make(chan struct{})
	var clients []*http.Client
	for i := 0; i < n; i++ {
		clients = append(clients, clientFrom("127.0.0.1"))
	}
	t.Cleanup(func() {
		for _, c := range clients {
			c.CloseIdleConnections()
		}
	})
	done := make(chan struct{})
	for i, c := range clients {
		go func() {
			defer func() { done <- struct{}{} }()
			<-start
			statuses <- send(c, i)
		}()
	}
	go func() {
		for range clients {
			<-done
		}
		close(statuses)
	}()
	close(start)
	return statuses
}

// checkFlood reads the statuses of a flood of wrong credentials until the
// first 429 (or the end), sends the right credentials with right while the
// rest of the flood may still be in flight, and then checks that at most
// allowed of the flood were checked (checked is their status when they
// were) and that the right credentials got 429.
func checkFlood(t *testing.T, statuses <-chan int, allowed, checked int, right func() (int, string)) {
	t.Helper()
	counts := map[int]int{}
	for code := range statuses {
		counts[code]++
		if code == http.StatusTooManyRequests {
			break
		}
	}
	rightCode, rightBody := right()
	for code := range statuses {
		counts[code]++
	}
	if counts[checked] > allowed {
		t.Errorf("%d wrong guesses sent at once were checked (status %d), want at most %d (all: %v)", counts[checked], checked, allowed, counts)
	}
	if rightCode != http.StatusTooManyRequests {
		t.Errorf("the right credentials sent after the flood: %d %s, want 429", rightCode, rightBody)
	}
}

// TestConcurrentWrongPasswordsAreCheckedAtMostTheAllowedNumberOfTimes sends
// 199 wrong passwords for one user at once, each on its own connection,
// and then the right one: at most 10 reach bcrypt, the rest get 429 at
// once, and so does the right password.
func TestConcurrentWrongPasswordsAreCheckedAtMostTheAllowedNumberOfTimes(t *testing.T) {
	addr := listen(t)
	// The client's secret is checked once and remembered, as on a server
	// in use, so that every 429 of the flood is the user's.
	if code, _, body := grant(t, clientFrom("127.0.0.1"), addr, "pass", "user"); code != http.StatusOK {
		t.Fatalf("first login: %d %s", code, body)
	}
	statuses := flood(t, 199, func(c *http.Client, i int) int {
		return grantStatus(c, addr, "pass", "wrong-"+strconv.Itoa(i))
	})
	checkFlood(t, statuses, 10, http.StatusBadRequest, func() (int, string) {
		code, _, body := grant(t, clientFrom("127.0.0.1"), addr, "pass", "user")
		return code, body
	})
}

// TestConcurrentWrongClientSecretsAreCheckedAtMostTheAllowedNumberOfTimes
// is the same for the secret of one client.
func TestConcurrentWrongClientSecretsAreCheckedAtMostTheAllowedNumberOfTimes(t *testing.T) {
	addr := listen(t)
	statuses := flood(t, 199, func(c *http.Client, i int) int {
		return grantStatus(c, addr, "wrong-"+strconv.Itoa(i), "user")
	})
	checkFlood(t, statuses, 10, http.StatusUnauthorized, func() (int, string) {
		code, _, body := grant(t, clientFrom("127.0.0.1"), addr, "pass", "user")
		return code, body
	})
}

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestHugeUsernamesDoNotGrowTheServer sends 16 failed logins with unique
// usernames of 900 KB each: they are refused before the lockout looks them
// up, so the heap does not keep them (14 MB in all; the bound is 7 MB).
func TestHugeUsernamesDoNotGrowTheServer(t *testing.T) {
	addr := listen(t)
	c := clientFrom("127.0.0.1")
	defer c.CloseIdleConnections()
	name := []byte(strings.Repeat("u", 900_000) + "@email.com")
	before := heapInUse()
	for i := 0; i < 16; i++ {
		copy(name, fmt.Sprintf("%08d", i))
		form := url.Values{"grant_type": {"password"}, "username": {string(name)}, "password": {"x"}}
		a, err := postToken(c, addr, "myApp", "pass", form, nil)
		if err != nil {
			t.Fatal(err)
		}
		if a.status != http.StatusBadRequest {
			t.Fatalf("a 900 KB username: status %d, want 400", a.status)
		}
	}
	after := heapInUse()
	if grown := int64(after) - int64(before); grown > 7<<20 {
		t.Errorf("16 failed logins with 900 KB usernames grew the heap by %d MB, want at most 7 MB", grown>>20)
	}
}

// TestTheLockoutRemembersAtMostLoginKeys fails 80 unique client ids from
// one address against a lockout that remembers 20 keys.
func TestTheLockoutRemembersAtMostLoginKeys(t *testing.T) {
	addr, s := listenWith(t, Options{LoginKeys: 20, TokenRate: -1})
	c := clientFrom("127.0.0.1")
	defer c.CloseIdleConnections()
	for i := 0; i < 80; i++ {
		a := unknownClientLogin(t, c, addr, i)
		if a.status != http.StatusUnauthorized {
			t.Fatalf("unknown client %d: status %d, want 401", i, a.status)
		}
	}
	if n := s.token.Guard.(*throttle.Throttle).Len(); n != 20 {
		t.Fatalf("the lockout remembers %d keys, want 20", n)
	}
}

// TestOverlongCredentialsAreRefusedBeforeAnyLookup: a username, password,
// client id or secret too long to match anything gets its own error and
// leaves nothing in the lockout.
func TestOverlongCredentialsAreRefusedBeforeAnyLookup(t *testing.T) {
	addr, s := listenWith(t, Options{})
	long := strings.Repeat("x", 300)
	for _, tt := range []struct {
		id, secret, username, password string
		status                         int
		says                           string
	}{
		{"myApp", "pass", long + "@email.com", "p", http.StatusBadRequest, "username is longer than 254 bytes"},
		{"myApp", "pass", "user@email.com", long[:73], http.StatusBadRequest, "password is longer than 72 bytes"},
		{long[:257], "pass", "user@email.com", "user", http.StatusUnauthorized, "client id is longer than 256 bytes"},
		{"myApp", long[:73], "user@email.com", "user", http.StatusUnauthorized, "client secret is longer than 72 bytes"},
	} {
		form := url.Values{"grant_type": {"password"}, "username": {tt.username}, "password": {tt.password}}
		header := map[string]string{"Authorization": basicHeader(tt.id + ":" + tt.secret), "Content-Type": "application/x-www-form-urlencoded"}
		resp, body := rawRequest(t, addr, "POST", "/oauth/token", header, form.Encode())
		if resp.StatusCode != tt.status || !strings.Contains(body, tt.says) {
			t.Errorf("%s: %d %s, want %d saying %q", tt.says, resp.StatusCode, body, tt.status, tt.says)
		}
	}
	if n := s.token.Guard.(*throttle.Throttle).Len(); n != 0 {
		t.Errorf("the lockout remembers %d keys, want none", n)
	}
}

// TestConcurrentRightPasswordsLockNothingOut sends 50 right passwords for
// one user at once from one address: those that find 10 already in
// progress are asked to wait a second (429), none fails, and once they are
// done the user logs in from that address at once.
func TestConcurrentRightPasswordsLockNothingOut(t *testing.T) {
	// The budget per address (tested on its own) is off: 51 requests
	// would pass its burst of 50 unless it refilled meanwhile.
	addr, _ := listenWith(t, Options{TokenRate: -1})
	counts := map[int]int{}
	for code := range flood(t, 50, func(c *http.Client, i int) int {
		return grantStatus(c, addr, "pass", "user")
	}) {
		counts[code]++
	}
	if counts[http.StatusOK] == 0 || counts[http.StatusOK]+counts[http.StatusTooManyRequests] != 50 {
		t.Fatalf("50 right passwords at once: %v, want 200 and 429 only", counts)
	}
	if code, h, body := grant(t, clientFrom("127.0.0.1"), addr, "pass", "user"); code != http.StatusOK {
		t.Fatalf("a login after them: %d %s (Retry-After %q)", code, body, h.Get("Retry-After"))
	}
}

// TestEveryTokenRequestSpendsTheBudgetOfItsAddress: whatever client id or
// user they name, the requests of one address spend one budget; past it,
// 429 with Retry-After, before any bcrypt; another address is not
// affected. Names changed at every request do not dodge it.
func TestEveryTokenRequestSpendsTheBudgetOfItsAddress(t *testing.T) {
	addr, _ := listenWith(t, Options{TokenRate: 0.1, TokenBurst: 5})
	c := clientFrom("127.0.0.1")
	defer c.CloseIdleConnections()
	for i := 0; i < 6; i++ {
		a := unknownClientLogin(t, c, addr, i)
		want := http.StatusUnauthorized
		if i == 5 {
			want = http.StatusTooManyRequests
		}
		if a.status != want {
			t.Fatalf("request %d: %d %s, want %d", i+1, a.status, a.body, want)
		}
		if i == 5 && (a.header.Get("Retry-After") != "10" || !strings.Contains(a.body, "from this address")) {
			t.Fatalf("past the budget: Retry-After %q, body %s", a.header.Get("Retry-After"), a.body)
		}
	}
	if code, _, body := grant(t, clientFrom("127.0.0.2"), addr, "pass", "user"); code != http.StatusOK {
		t.Fatalf("from another address: %d %s", code, body)
	}
}

// TestAClientsSuccessClearsItsFailures: a client whose right secret was
// checked once already (and is not checked by bcrypt again) still clears
// its count of failures with each success, as a user's login does: wrong
// and right secrets in turn never lock it out.
func TestAClientsSuccessClearsItsFailures(t *testing.T) {
	addr, _ := listenWith(t, Options{TokenRate: -1})
	c := clientFrom("127.0.0.2")
	for i := range 15 {
		if status, _, body := grant(t, c, addr, "wrong-secret", "user"); status != http.StatusUnauthorized {
			t.Fatalf("round %d, a wrong secret: %d %s, want 401", i+1, status, body)
		}
		if status, _, body := grant(t, c, addr, "pass", "user"); status != http.StatusOK {
			t.Fatalf("round %d, the right secret: %d %s, want 200: a success clears the count", i+1, status, body)
		}
	}
	for i := range 10 {
		grant(t, c, addr, "wrong-secret-"+strconv.Itoa(i), "user")
	}
	if status, _, _ := grant(t, c, addr, "pass", "user"); status != http.StatusTooManyRequests {
		t.Fatalf("the right secret after ten wrong ones in a row: %d, want 429", status)
	}
}
