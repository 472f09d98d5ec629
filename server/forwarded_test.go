package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"eventsvc/server/servertest"
)

// forwardingProxy is a reverse proxy of the test's own on 127.0.0.1, in
// front of the server at addr: it connects to the server from 127.0.0.1
// and tells the client's address the way a load balancer does, in
// X-Forwarded-For (appended to what the client sent) or, with
// forwarded set, in a Forwarded header (RFC 7239) with proto and host.
func forwardingProxy(t *testing.T, addr string, forwarded string) string {
	t.Helper()
	target, _ := url.Parse("http://" + addr)
	rp := httputil.NewSingleHostReverseProxy(target)
	director := rp.Director
	rp.Director = func(r *http.Request) {
		director(r)
		if forwarded != "" {
			host, _, _ := net.SplitHostPort(r.RemoteAddr)
			r.Header.Set("Forwarded", "for="+host+";"+forwarded)
			r.Header["X-Forwarded-For"] = nil // the proxy sends Forwarded only
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: rp}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	return ln.Addr().String()
}

func trusted(t *testing.T, cidrs ...string) []netip.Prefix {
	t.Helper()
	p, err := ParseTrustedProxies(cidrs)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// grantWith is grant with extra request headers.
func grantWith(t *testing.T, c *http.Client, addr, password string, header map[string]string) int {
	t.Helper()
	a, err := postToken(c, addr, "myApp", "pass", userLogin(password), header)
	if err != nil {
		t.Fatal(err)
	}
	return a.status
}

// eventsHref returns the events link of GET /api at addr, sent with
// header.
func eventsHref(t *testing.T, c *http.Client, addr string, header map[string]string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+addr+"/api", nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Links map[string]struct{ Href string } `json:"_links"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body.Links["events"].Href
}

var forged = map[string]string{
	"X-Forwarded-For":   "203.0.113.9",
	"X-Forwarded-Proto": "https",
	"X-Forwarded-Host":  "evil.example",
	"Forwarded":         `for=203.0.113.9;proto=https;host=evil.example`,
}

// TestForgedForwardingHeadersChangeNothingWithoutATrustedProxy: with no
// trusted proxy, a client that forges every forwarding header, with a new
// address each time, is still locked out after ten wrong passwords, and
// the links it gets name the server as it reached it.
func TestForgedForwardingHeadersChangeNothingWithoutATrustedProxy(t *testing.T) {
	var log servertest.Log
	addr, _ := listenWith(t, Options{TokenRate: -1, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	c := clientFrom("127.0.0.2")
	for i := range 10 {
		h := map[string]string{"X-Forwarded-For": "203.0.113." + string(rune('0'+i)), "Forwarded": "for=198.51.100." + string(rune('0'+i))}
		if status := grantWith(t, c, addr, "wrong-"+strconv.Itoa(i), h); status != http.StatusBadRequest {
			t.Fatalf("wrong password %d: %d", i+1, status)
		}
	}
	if status := grantWith(t, c, addr, "user", forged); status != http.StatusTooManyRequests {
		t.Fatalf("forged headers after ten failures: %d, want 429", status)
	}
	if href := eventsHref(t, c, addr, forged); href != "http://"+addr+"/api/events" {
		t.Fatalf("links with forged headers: %s, want http://%s/api/events", href, addr)
	}
	if strings.Contains(log.String(), "203.0.113") || strings.Contains(log.String(), "198.51.100") {
		t.Errorf("the request log takes a forged address:\n%s", log.String())
	}
}

// TestBehindATrustedProxyEachClientIsItself: behind the test's proxy,
// trusted, two clients are locked out separately, a client cannot escape
// its lockout by forging X-Forwarded-For, and the request log shows each
// client's address.
func TestBehindATrustedProxyEachClientIsItself(t *testing.T) {
	var log servertest.Log
	addr, _ := listenWith(t, Options{TokenRate: -1, TrustedProxies: trusted(t, "127.0.0.1/32"),
		Logger: slog.New(slog.NewTextHandler(&log, nil))})
	proxy := forwardingProxy(t, addr, "")
	one, two := clientFrom("127.0.0.2"), clientFrom("127.0.0.3")
	for i := range 10 {
		if status := grantWith(t, one, proxy, "wrong-"+strconv.Itoa(i), nil); status != http.StatusBadRequest {
			t.Fatalf("wrong password %d: %d", i+1, status)
		}
	}
	if status := grantWith(t, one, proxy, "user", nil); status != http.StatusTooManyRequests {
		t.Fatalf("the client that failed ten times: %d, want 429", status)
	}
	if status := grantWith(t, one, proxy, "user", map[string]string{"X-Forwarded-For": "203.0.113.7"}); status != http.StatusTooManyRequests {
		t.Fatalf("the same client forging X-Forwarded-For: %d, want 429", status)
	}
	if status := grantWith(t, two, proxy, "user", nil); status != http.StatusOK {
		t.Fatalf("another client behind the same proxy: %d, want 200", status)
	}
	for _, want := range []string{"remote=127.0.0.2", "remote=127.0.0.3"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the request log does not show %s:\n%s", want, log.String())
		}
	}
	if strings.Contains(log.String(), "203.0.113.7") {
		t.Errorf("the request log takes a forged address")
	}
}

// TestLinksUseTheSchemeAndHostOfATrustedProxy: with ForwardedHost, through
// a trusted proxy that sends Forwarded (RFC 7239) or X-Forwarded-Proto and
// -Host, the links name the address the client used; a forwarded host
// that cannot stand in a URL is ignored.
func TestLinksUseTheSchemeAndHostOfATrustedProxy(t *testing.T) {
	c := clientFrom("127.0.0.2")
	rfc7239, _ := listenWith(t, Options{TrustedProxies: trusted(t, "127.0.0.1"), ForwardedHeader: HeaderForwarded, ForwardedHost: true})
	viaForwarded := forwardingProxy(t, rfc7239, `proto=https;host="api.example:8443"`)
	if href := eventsHref(t, c, viaForwarded, nil); href != "https://api.example:8443/api/events" {
		t.Errorf("through Forwarded: %s", href)
	}
	addr, _ := listenWith(t, Options{TrustedProxies: trusted(t, "127.0.0.1"), ForwardedHost: true})
	viaXFF := forwardingProxy(t, addr, "")
	if href := eventsHref(t, c, viaXFF, map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "api.example"}); href != "https://api.example/api/events" {
		t.Errorf("through X-Forwarded-Proto and -Host: %s", href)
	}
	if href := eventsHref(t, c, viaXFF, map[string]string{"X-Forwarded-Proto": "javascript", "X-Forwarded-Host": "evil.example/x?"}); !strings.HasPrefix(href, "http://"+viaXFF+"/") {
		t.Errorf("an invalid forwarded scheme and host are used: %s", href)
	}
	// A peer that is not trusted, straight to the server.
	if href := eventsHref(t, c, addr, forged); href != "http://"+addr+"/api/events" {
		t.Errorf("straight from an untrusted peer: %s", href)
	}
}

func TestParseForwarded(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []hop
	}{
		{`for=192.0.2.60;proto=http;by=203.0.113.43`, []hop{{addr: netip.MustParseAddr("192.0.2.60"), proto: "http"}}},
		{`For="[2001:db8:cafe::17]:4711"`, []hop{{addr: netip.MustParseAddr("2001:db8:cafe::17")}}},
		{`for=192.0.2.43, for=198.51.100.17;host="a.example;x"`, []hop{{addr: netip.MustParseAddr("192.0.2.43")}, {addr: netip.MustParseAddr("198.51.100.17"), host: "a.example;x"}}},
		{`for=unknown, for=_hidden`, []hop{{}, {}}},
	} {
		got := parseForwarded(tt.in)
		if len(got) != len(tt.want) {
			t.Errorf("%s: %+v", tt.in, got)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: element %d = %+v, want %+v", tt.in, i, got[i], tt.want[i])
			}
		}
	}
	for host, ok := range map[string]bool{"api.example": true, "api.example:8443": true, "[::1]:80": true, "a.example;x": false, "evil/x": false, "": false, "a b": false, "a:b": false} {
		if validHost(host) != ok {
			t.Errorf("validHost(%q) = %v", host, !ok)
		}
	}
	if _, err := ParseTrustedProxies([]string{"10.0.0.0/8", "192.0.2.1", "::1"}); err != nil {
		t.Error(err)
	}
	if _, err := ParseTrustedProxies([]string{"10.0.0.0/33"}); err == nil {
		t.Error("a bad CIDR is accepted")
	}
}

// An address behind a chain of trusted proxies is the first untrusted one
// from the right; an unknown hop stops the walk at the last proxy known.
func TestTheClientIsTheFirstUntrustedHopFromTheRight(t *testing.T) {
	var log servertest.Log
	logger := slog.New(slog.NewTextHandler(&log, nil))
	xff, _ := listenWith(t, Options{TrustedProxies: trusted(t, "127.0.0.1", "10.0.0.0/8"), Logger: logger})
	rfc7239, _ := listenWith(t, Options{TrustedProxies: trusted(t, "127.0.0.1", "10.0.0.0/8"), ForwardedHeader: HeaderForwarded, Logger: logger})
	c := clientFrom("127.0.0.1")
	for _, tt := range []struct{ header, value, want string }{
		{"X-Forwarded-For", "203.0.113.5, 198.51.100.4, 10.1.2.3", "remote=198.51.100.4"},
		{"Forwarded", "for=203.0.113.5, for=unknown, for=10.9.9.9", "remote=10.9.9.9"},
		{"X-Forwarded-For", "10.0.0.1, 10.0.0.2", "remote=10.0.0.1"},
	} {
		addr := xff
		if tt.header == HeaderForwarded {
			addr = rfc7239
		}
		req, _ := http.NewRequest("GET", "http://"+addr+"/api", nil)
		req.Header.Set(tt.header, tt.value)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		time.Sleep(10 * time.Millisecond)
		lines := strings.Split(strings.TrimSpace(log.String()), "\n")
		if last := lines[len(lines)-1]; !strings.Contains(last, tt.want+" ") && !strings.HasSuffix(last, tt.want) {
			t.Errorf("%s: %s: log %q, want %s", tt.header, tt.value, last, tt.want)
		}
	}
}

// TestAClientsOwnForwardedLosesToTheProxysXForwardedFor: behind a trusted
// proxy that appends X-Forwarded-For and passes Forwarded through
// untouched (nginx, HAProxy, AWS ALB), a client that writes its own
// Forwarded with a new address each time is still one client for the
// token budget, and still locked out after ten wrong passwords.
func TestAClientsOwnForwardedLosesToTheProxysXForwardedFor(t *testing.T) {
	var log servertest.Log
	addr, _ := listenWith(t, Options{TrustedProxies: trusted(t, "127.0.0.1"), TokenBurst: 3, TokenRate: 0.01,
		Logger: slog.New(slog.NewTextHandler(&log, nil))})
	proxy := forwardingProxy(t, addr, "")
	c := clientFrom("127.0.0.2")
	var got []int
	for i := range 6 {
		got = append(got, grantWith(t, c, proxy, "wrong-"+strconv.Itoa(i), map[string]string{"Forwarded": "for=198.51.100." + strconv.Itoa(i)}))
	}
	if want := []int{400, 400, 400, 429, 429, 429}; !slices.Equal(got, want) {
		t.Fatalf("six token requests, each with its own Forwarded: %v, want %v", got, want)
	}
	if strings.Contains(log.String(), "198.51.100") {
		t.Fatalf("the log takes the client's own Forwarded:\n%s", log.String())
	}

	addr, _ = listenWith(t, Options{TrustedProxies: trusted(t, "127.0.0.1"), TokenRate: -1})
	proxy = forwardingProxy(t, addr, "")
	for i := range 10 {
		if status := grantWith(t, c, proxy, "wrong-"+strconv.Itoa(i), map[string]string{"Forwarded": "for=198.51.100." + strconv.Itoa(i)}); status != http.StatusBadRequest {
			t.Fatalf("wrong password %d: %d", i+1, status)
		}
	}
	if status := grantWith(t, c, proxy, "user", map[string]string{"Forwarded": "for=198.51.100.99"}); status != http.StatusTooManyRequests {
		t.Fatalf("after ten wrong passwords, with a new Forwarded: %d, want 429", status)
	}
}

// TestTheLinksTakeTheForwardedHostOnlyWhenAsked: by default the links name
// the Host the proxy passed on; with ForwardedHost, the proxy's
// X-Forwarded-Proto and -Host.
func TestTheLinksTakeTheForwardedHostOnlyWhenAsked(t *testing.T) {
	c := clientFrom("127.0.0.2")
	h := map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "forged.example", "Forwarded": "proto=https;host=forged.example"}
	addr, _ := listenWith(t, Options{TrustedProxies: trusted(t, "127.0.0.1")})
	proxy := forwardingProxy(t, addr, "")
	if href := eventsHref(t, c, proxy, h); href != "http://"+proxy+"/api/events" {
		t.Errorf("without ForwardedHost: %s, want the Host the proxy passed on", href)
	}
	addr, _ = listenWith(t, Options{TrustedProxies: trusted(t, "127.0.0.1"), ForwardedHost: true})
	proxy = forwardingProxy(t, addr, "")
	if href := eventsHref(t, c, proxy, h); href != "https://forged.example/api/events" {
		t.Errorf("with ForwardedHost: %s, want the proxy's X-Forwarded-Proto and -Host", href)
	}
}

// TestForwardedIsReadOnlyWhenChosen: with ForwardedHeader "Forwarded" the
// server reads RFC 7239's header alone, and X-Forwarded-For is ignored.
func TestForwardedIsReadOnlyWhenChosen(t *testing.T) {
	var log servertest.Log
	addr, _ := listenWith(t, Options{TrustedProxies: trusted(t, "127.0.0.1"), ForwardedHeader: "Forwarded",
		Logger: slog.New(slog.NewTextHandler(&log, nil))})
	for _, h := range []map[string]string{
		{"X-Forwarded-For": "203.0.113.5"},
		{"Forwarded": "for=198.51.100.4", "X-Forwarded-For": "203.0.113.6"},
	} {
		req, _ := http.NewRequest("GET", "http://"+addr+"/api", nil)
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := clientFrom("127.0.0.1").Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	time.Sleep(20 * time.Millisecond)
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "remote=127.0.0.1") || !strings.Contains(lines[1], "remote=198.51.100.4") {
		t.Fatalf("with Forwarded chosen, the clients are:\n%s\nwant 127.0.0.1 (X-Forwarded-For ignored), then 198.51.100.4", log.String())
	}
	if err := (Options{ForwardedHeader: "X-Real-IP"}).Validate(); err == nil {
		t.Fatal("Validate accepts a forwarding header the server does not read")
	}
}

// TestIPv6ClientsAreCountedByTheirSlash64: a client that owns a /64 and
// takes a new address of it for each attempt is still locked out after
// ten wrong passwords, and spends one token budget; another /64 is not
// affected.
func TestIPv6ClientsAreCountedByTheirSlash64(t *testing.T) {
	addr, _ := listenWith(t, Options{TrustedProxies: trusted(t, "127.0.0.1"), TokenRate: -1})
	c := clientFrom("127.0.0.1")
	from := func(a string) map[string]string { return map[string]string{"X-Forwarded-For": a} }
	for i := range 10 {
		if status := grantWith(t, c, addr, "wrong-"+strconv.Itoa(i), from(fmt.Sprintf("2001:db8:1:2::%x", i+1))); status != http.StatusBadRequest {
			t.Fatalf("wrong password %d: %d", i+1, status)
		}
	}
	if status := grantWith(t, c, addr, "user", from("2001:db8:1:2:ffff::1")); status != http.StatusTooManyRequests {
		t.Fatalf("another address of the same /64: %d, want 429", status)
	}
	if status := grantWith(t, c, addr, "user", from("2001:db8:1:3::1")); status != http.StatusOK {
		t.Fatalf("an address of another /64: %d, want 200", status)
	}

	addr, _ = listenWith(t, Options{TrustedProxies: trusted(t, "127.0.0.1"), TokenBurst: 3, TokenRate: 0.01})
	var got []int
	for i := range 4 {
		got = append(got, grantWith(t, c, addr, "user", from(fmt.Sprintf("2001:db8:9:9::%x", i+1))))
	}
	if want := []int{200, 200, 200, 429}; !slices.Equal(got, want) {
		t.Fatalf("four token requests from one /64: %v, want %v", got, want)
	}
}
