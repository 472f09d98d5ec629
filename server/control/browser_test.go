package control

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// send sends a raw request to the control API, as a browser or an
// attacker's page would, with the headers given, and returns the status
// and the decoded body.
func (r *rig) send(t *testing.T, method, path, body string, headers map[string]string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, r.control+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	return do(t, req)
}

// stateOf is the control API's state without the clock's reading, which
// moves by itself.
func (r *rig) stateOf(t *testing.T) string {
	t.Helper()
	_, s := r.call(t, http.MethodGet, "/", "")
	c := s["clock"].(map[string]any)
	delete(c, "now")
	b, _ := json.Marshal(s)
	return string(b)
}

// TestAWebPageCannotDriveTheControlAPI: the requests a page on any site
// can make without asking (a form, a no-cors fetch with text/plain) and
// those of a page on a DNS name rebound to 127.0.0.1 are refused with a
// 4xx naming what was wrong, and change nothing.
func TestAWebPageCannotDriveTheControlAPI(t *testing.T) {
	r := newRig(t, "")
	_, token := r.login(t, "user")
	r.call(t, http.MethodPost, "/faults", `{"path": "/docs/x", "status": 500}`)
	before := r.stateOf(t)
	users := r.listed(t, "/users") + r.listed(t, "/clients")
	for _, c := range []struct {
		name, method, path, body string
		headers                  map[string]string
		status                   int
		code                     string
	}{
		{"a cross-site form resets", "POST", "/reset", "a=b",
			map[string]string{"Origin": "http://evil.example", "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "cross-site"}, 403, "cross_origin"},
		{"a cross-site form without fetch metadata", "POST", "/reset", "a=b",
			map[string]string{"Origin": "http://evil.example", "Content-Type": "application/x-www-form-urlencoded"}, 403, "cross_origin"},
		{"a no-cors fetch moves the clock", "POST", "/clock", `{"advance":"1s"}`,
			map[string]string{"Origin": "http://evil.example", "Content-Type": "text/plain;charset=UTF-8", "Sec-Fetch-Site": "cross-site"}, 403, "cross_origin"},
		{"text/plain moves the clock", "POST", "/clock", `{"advance":"1s"}`,
			map[string]string{"Content-Type": "text/plain"}, 415, "unsupported_media_type"},
		{"a form adds a fault", "POST", "/faults", `{"path": "/**", "status": 500}`,
			map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415, "unsupported_media_type"},
		{"a Blob without a media type adds a fault", "POST", "/faults", `{"path": "/**", "status": 500}`,
			nil, 415, "unsupported_media_type"},
		{"multipart seeds", "PUT", "/events", `[]`,
			map[string]string{"Content-Type": "multipart/form-data; boundary=x"}, 415, "unsupported_media_type"},
		{"a rebound page reads the tokens", "GET", "/tokens", "",
			map[string]string{"Host": "rebind.evil.example:9090"}, 403, "foreign_host"},
		{"a rebound page reads the journal", "GET", "/journal", "",
			map[string]string{"Host": "rebind.evil.example:9090", "Sec-Fetch-Site": "same-origin"}, 403, "foreign_host"},
		{"a rebound page resets with JSON", "POST", "/reset", "{}",
			map[string]string{"Host": "rebind.evil.example:9090", "Content-Type": "application/json", "Origin": "http://rebind.evil.example:9090"}, 403, "foreign_host"},
		{"a same-site page clears the faults", "DELETE", "/faults", "",
			map[string]string{"Sec-Fetch-Site": "same-site"}, 403, "cross_origin"},
		{"a cross-site form adds a user", "POST", "/users", "email=evil%40evil.example&password=x",
			map[string]string{"Origin": "http://evil.example", "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "cross-site"}, 403, "cross_origin"},
		{"a no-cors fetch adds a user", "POST", "/users", `{"email": "evil@evil.example", "password": "x"}`,
			map[string]string{"Content-Type": "text/plain;charset=UTF-8"}, 415, "unsupported_media_type"},
		{"a no-cors fetch changes a password", "PATCH", "/users/user@email.com", `{"password": "x"}`,
			map[string]string{"Content-Type": "text/plain"}, 415, "unsupported_media_type"},
		{"a page removes a user", "DELETE", "/users/admin@email.com", "",
			map[string]string{"Origin": "http://evil.example"}, 403, "cross_origin"},
		{"a rebound page reads the users", "GET", "/users", "",
			map[string]string{"Host": "rebind.evil.example:9090"}, 403, "foreign_host"},
		{"a form adds a client", "POST", "/clients", `{"clientId": "evil", "clientSecret": "x", "authorizedGrantTypes": ["password"], "scopes": ["read"], "resourceIds": ["event"]}`,
			map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415, "unsupported_media_type"},
		{"a same-site page changes a client's secret", "PATCH", "/clients/myApp", `{"clientSecret": "x"}`,
			map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "same-site"}, 403, "cross_origin"},
		{"a rebound page removes a client", "DELETE", "/clients/myApp", "",
			map[string]string{"Host": "rebind.evil.example:9090"}, 403, "foreign_host"},
		{"a rebound page reads the clients", "GET", "/clients", "",
			map[string]string{"Host": "127.0.0.1.evil.example"}, 403, "foreign_host"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body := r.send(t, c.method, c.path, c.body, c.headers)
			desc, _ := body["error_description"].(string)
			if status != c.status || body["error"] != c.code || desc == "" {
				t.Fatalf("%s %s = %d %v, want %d %s with a description", c.method, c.path, status, body, c.status, c.code)
			}
			if strings.Contains(desc, "user@email.com") || body["tokens"] != nil || body["entries"] != nil {
				t.Fatalf("the refusal tells what it guards: %v", body)
			}
		})
	}
	if after := r.stateOf(t); after != before {
		t.Fatalf("refused requests changed the state:\nbefore %s\nafter  %s", before, after)
	}
	if after := r.listed(t, "/users") + r.listed(t, "/clients"); after != users {
		t.Fatalf("refused requests changed the accounts or clients:\nbefore %s\nafter  %s", users, after)
	}
	if status, _ := r.publicCall(t, http.MethodGet, "/api/events", token, ""); status != http.StatusOK {
		t.Fatalf("the token from before was forgotten: %d", status)
	}
	if !strings.Contains(r.log.String(), "refused: ") || !strings.Contains(r.log.String(), "Origin") {
		t.Fatalf("the refused writes are not logged with their reason: %s", r.log.String())
	}
}

// TestToolsStillDriveTheControlAPI: curl, Go, Python and Node send writes
// as the docs show them: JSON with its media type (parameters and case
// as they come), and POST /reset or DELETE /faults with no body and no
// media type; a person opens the state in a browser's address bar.
func TestToolsStillDriveTheControlAPI(t *testing.T) {
	r := newRig(t, "")
	for _, c := range []struct {
		name, method, path, body string
		headers                  map[string]string
	}{
		{"curl -H 'Content-Type: application/json'", "POST", "/clock", `{"advance":"1s"}`, map[string]string{"Content-Type": "application/json", "User-Agent": "curl/8.5.0"}},
		{"Python requests json=", "POST", "/faults", `{"path": "/docs/x", "status": 500}`, map[string]string{"Content-Type": "application/json", "User-Agent": "python-requests/2.31"}},
		{"Node fetch with a charset", "PUT", "/events", `[]`, map[string]string{"Content-Type": "Application/JSON; charset=utf-8", "User-Agent": "node"}},
		{"curl -X POST, no body", "POST", "/reset", "", map[string]string{"User-Agent": "curl/8.5.0"}},
		{"DELETE, no body", "DELETE", "/faults", "", nil},
		{"curl adds a user", "POST", "/users", `{"email": "dev@example.com", "password": "dev"}`, map[string]string{"Content-Type": "application/json", "User-Agent": "curl/8.5.0"}},
		{"Python requests changes a client", "PATCH", "/clients/myApp", `{"scopes": ["read", "write"]}`, map[string]string{"Content-Type": "application/json; charset=utf-8", "User-Agent": "python-requests/2.31"}},
		{"curl -X DELETE a user, no body", "DELETE", "/users/dev@example.com", "", map[string]string{"User-Agent": "curl/8.5.0"}},
		{"localhost", "GET", "/", "", map[string]string{"Host": "localhost:9090"}},
		{"the address bar", "GET", "/journal", "", map[string]string{"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if status, body := r.send(t, c.method, c.path, c.body, c.headers); status >= 300 {
				t.Fatalf("%s %s = %d %v", c.method, c.path, status, body)
			}
		})
	}
}

// TestAnyHostOnceATokenIsRequired: a control API with a token is meant
// for other machines, which name it as they like; a page can still not
// send it anything.
func TestAnyHostOnceATokenIsRequired(t *testing.T) {
	r := newRig(t, "a-control-token-of-32-characters")
	auth := "Bearer " + r.token
	if status, body := r.send(t, "GET", "/", "", map[string]string{"Host": "control.internal:9090", "Authorization": auth}); status != http.StatusOK {
		t.Fatalf("GET / with another host and the token = %d %v", status, body)
	}
	if status, body := r.send(t, "POST", "/reset", "", map[string]string{"Origin": "http://evil.example", "Authorization": auth}); status != http.StatusForbidden {
		t.Fatalf("POST /reset from a page, with the token = %d %v", status, body)
	}
}

// TestTheControlAPIReadsNoForwardedHost: the Host that decides is the one
// the client sent, never X-Forwarded-Host.
func TestTheControlAPIReadsNoForwardedHost(t *testing.T) {
	r := newRig(t, "")
	status, body := r.send(t, "GET", "/tokens", "", map[string]string{"Host": "rebind.evil.example", "X-Forwarded-Host": "127.0.0.1"})
	if status != http.StatusForbidden {
		t.Fatalf("a foreign Host with X-Forwarded-Host: 127.0.0.1 = %d %v", status, body)
	}
}

// TestARequestWithoutHost is refused: HTTP/1.1 requires one, and a
// loopback Host is what the control API checks.
func TestARequestWithoutHost(t *testing.T) {
	r := newRig(t, "")
	conn, err := net.Dial("tcp", strings.TrimPrefix(r.control, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /tokens HTTP/1.0\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(conn)
	if !strings.HasPrefix(string(b), "HTTP/1.1 403") || !strings.Contains(string(b), "foreign_host") {
		t.Fatalf("GET /tokens without a Host: %q", b)
	}
}

// TestFailedAuthenticationsAreLimited: past AuthFailures wrong tokens,
// the address is refused 429 with Retry-After, even with the right token;
// another address is not.
func TestFailedAuthenticationsAreLimited(t *testing.T) {
	r := newRig(t, "the-right-control-token")
	for i := range AuthFailures {
		if status, _ := r.send(t, "GET", "/", "", map[string]string{"Authorization": "Bearer guess-" + strconv.Itoa(i)}); status != http.StatusUnauthorized {
			t.Fatalf("guess %d = %d, want 401", i+1, status)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, r.control+"/", nil)
	req.Header.Set("Authorization", "Bearer "+r.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(b), "too_many_attempts") {
		t.Fatalf("the right token after %d guesses = %d %q %s, want 429 with Retry-After", AuthFailures, resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}
	other := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}).DialContext}}
	resp, err = other.Do(req)
	if err != nil {
		t.Skipf("cannot send from 127.0.0.2: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the right token from another address = %d, want 200", resp.StatusCode)
	}
}
