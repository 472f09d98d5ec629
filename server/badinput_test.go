package server

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// dialWithin opens a connection to addr, a server on a loopback port,
// with a deadline within from now for all that is read and written on it.
func dialWithin(t *testing.T, addr string, within time.Duration) net.Conn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.SetDeadline(time.Now().Add(within))
	return conn
}

// rawRequest sends one request exactly as written (no client cleans it) to
// a server on a loopback port and returns the answer and its body.
func rawRequest(t *testing.T, addr, method, target string, header map[string]string, body string) (*http.Response, string) {
	t.Helper()
	conn := dialWithin(t, addr, 15*time.Second)
	defer conn.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", method, target, addr)
	for k, v := range header {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	if body != "" {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(body))
	}
	b.WriteString("\r\n")
	b.WriteString(body)
	// A server may answer (413) and close before reading the whole body;
	// the answer is still there to read.
	_, _ = io.WriteString(conn, b.String())
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	return resp, string(got)
}

func basicHeader(userinfo string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(userinfo))
}

// TestBadInputGetsAClearAnswerAndChangesNothing is the table of bad inputs
// of docs/reference-choices.md: each gets its exact status and error, none
// a 500, and afterwards the events are as they were.
func TestBadInputGetsAClearAnswerAndChangesNothing(t *testing.T) {
	addr := listen(t)
	form := func(v string) map[string]string {
		return map[string]string{"Authorization": basicHeader("myApp:pass"), "Content-Type": "application/x-www-form-urlencoded"}
	}
	resp, body := rawRequest(t, addr, "POST", "/oauth/token", form(""), "grant_type=password&username=user%40email.com&password=user")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &tok) != nil {
		t.Fatalf("no token: %d %s", resp.StatusCode, body)
	}
	bearer := map[string]string{"Authorization": "Bearer " + tok.AccessToken, "Content-Type": "application/json"}
	valid := `{"name":"n","description":"d","beginEnrollmentDateTime":"2026-11-23T10:00:00","closeEnrollmentDateTime":"2026-11-24T10:00:00","beginEventDateTime":"2026-11-25T10:00:00","endEventDateTime":"2026-11-25T18:00:00"}`
	if resp, body := rawRequest(t, addr, "POST", "/api/events", bearer, valid); resp.StatusCode != 201 {
		t.Fatalf("create: %d %s", resp.StatusCode, body)
	}
	with := func(m map[string]string, k, v string) map[string]string {
		out := map[string]string{}
		for a, b := range m {
			out[a] = b
		}
		out[k] = v
		return out
	}
	withValue := func(field, raw string) string {
		var m map[string]json.RawMessage
		_ = json.Unmarshal([]byte(valid), &m)
		m[field] = json.RawMessage(raw)
		b, _ := json.Marshal(m)
		return string(b)
	}
	big := `{"name":"` + strings.Repeat("a", BodyLimit) + `"}`

	tests := []struct {
		name           string
		method, target string
		header         map[string]string
		body           string
		status         int
		want           string // in the body
		allow          string // the Allow header, when set
	}{
		{"malformed JSON", "POST", "/api/events", bearer, `{"name": "n",`, 400, `"notAnObject"`, ""},
		{"a JSON array", "POST", "/api/events", bearer, `[` + valid + `]`, 400, `"notAnObject"`, ""},
		{"a JSON scalar", "POST", "/api/events", bearer, `"an event"`, 400, `"notAnObject"`, ""},
		{"JSON null", "POST", "/api/events", bearer, `null`, 400, `"notAnObject"`, ""},
		{"two JSON objects", "POST", "/api/events", bearer, valid + valid, 400, `"notAnObject"`, ""},
		{"wrong Content-Type", "POST", "/api/events", with(bearer, "Content-Type", "text/plain"), valid, 415, `"unsupported_media_type"`, ""},
		{"no Content-Type", "POST", "/api/events", with(bearer, "Content-Type", ""), valid, 415, `"unsupported_media_type"`, ""},
		{"a body over 1 MiB", "POST", "/api/events", bearer, big, 413, `"request_too_large"`, ""},
		{"a token request over 1 MiB", "POST", "/oauth/token", form(""), "grant_type=password&username=" + strings.Repeat("a", BodyLimit), 413, `"request_too_large"`, ""},
		{"invalid UTF-8", "POST", "/api/events", bearer, withValue("name", `"ok"`)[:len(withValue("name", `"ok"`))-1] + ",\"description\":\"\xff\xfe\"}", 400, `"invalidEncoding"`, ""},
		{"a number out of range", "POST", "/api/events", bearer, withValue("basePrice", "2147483648"), 400, `"typeMismatch"`, ""},
		{"a number out of any range", "POST", "/api/events", bearer, withValue("maxPrice", "1e400"), 400, `"typeMismatch"`, ""},
		{"a number as a string", "POST", "/api/events", bearer, withValue("limitOfEnrollment", `"10"`), 400, `"typeMismatch"`, ""},
		{"a date in another format", "POST", "/api/events", bearer, withValue("beginEventDateTime", `"25/11/2026 10:00"`), 400, `"typeMismatch"`, ""},
		{"a date with a zone", "POST", "/api/events", bearer, withValue("endEventDateTime", `"2026-11-25T18:00:00Z"`), 400, `"typeMismatch"`, ""},
		{"an id that is not a number", "GET", "/api/events/abc", nil, "", 404, `"not_found"`, ""},
		{"a huge id", "GET", "/api/events/99999999999999999999999", nil, "", 404, `"not_found"`, ""},
		{"a negative id", "PUT", "/api/events/-1", bearer, valid, 404, `"not_found"`, ""},
		{"a repeated token parameter", "POST", "/oauth/token", form(""), "grant_type=password&grant_type=password&username=user%40email.com&password=user", 400, `"invalid_request"`, ""},
		{"a repeated password", "POST", "/oauth/token", form(""), "grant_type=password&username=user%40email.com&password=user&password=x", 400, `"invalid_request"`, ""},
		{"a Basic header that is not base64", "POST", "/oauth/token", with(form(""), "Authorization", "Basic %%%"), "grant_type=password", 401, `"invalid_client"`, ""},
		{"a Basic header without a colon", "POST", "/oauth/token", with(form(""), "Authorization", basicHeader("myApppass")), "grant_type=password", 401, `"invalid_client"`, ""},
		{"a bad percent-encoding in the form", "POST", "/oauth/token", form(""), "grant_type=password&username=%zz", 400, `"invalid_request"`, ""},
		{"Bearer with nothing after it, on a write", "POST", "/api/events", with(bearer, "Authorization", "Bearer"), valid, 401, `"invalid_token"`, ""},
		{"Bearer and a space, on a write", "POST", "/api/events", with(bearer, "Authorization", "Bearer "), valid, 401, `"invalid_token"`, ""},
		{"Bearer with nothing after it, on a read", "GET", "/api/events", map[string]string{"Authorization": "Bearer"}, "", 200, `"get-an-event"`, ""},
		{"a token in the query string", "POST", "/api/events?access_token=" + url.QueryEscape(tok.AccessToken), with(bearer, "Authorization", ""), valid, 401, `"unauthorized"`, ""},
		{"a very long header", "GET", "/api", map[string]string{"X-Long": strings.Repeat("b", 70000)}, "", 431, `"invalid_request"`, ""},
		{"a method the event does not have", "DELETE", "/api/events/1", bearer, "", 405, `"method_not_allowed"`, "GET, HEAD, PUT"},
		{"a method the list does not have", "PATCH", "/api/events", bearer, valid, 405, `"method_not_allowed"`, "GET, HEAD, POST"},
		{"a method the token endpoint does not have", "PUT", "/oauth/token", form(""), "grant_type=password", 405, `"invalid_request"`, "POST"},
		{"bad paging", "GET", "/api/events?page=-1&size=0&sort=nope", nil, "", 400, `"pageable"`, ""},
		{"repeated paging", "GET", "/api/events?page=0&page=1", nil, "", 400, `"repeated"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := rawRequest(t, addr, tt.method, tt.target, tt.header, tt.body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %.300s", resp.StatusCode, tt.status, body)
			}
			if !strings.Contains(body, tt.want) {
				t.Errorf("the answer does not say %s: %.300s", tt.want, body)
			}
			if tt.allow != "" && resp.Header.Get("Allow") != tt.allow {
				t.Errorf("Allow %q, want %q", resp.Header.Get("Allow"), tt.allow)
			}
			if tok.AccessToken != "" && strings.Contains(body, tok.AccessToken) {
				t.Errorf("the answer repeats the token")
			}
		})
	}

	// Nothing changed: still the one event, with its name.
	_, list := rawRequest(t, addr, "GET", "/api/events", nil, "")
	var page struct {
		Page struct {
			TotalElements int `json:"totalElements"`
		} `json:"page"`
	}
	if err := json.Unmarshal([]byte(list), &page); err != nil || page.Page.TotalElements != 1 {
		t.Fatalf("after the bad inputs the list holds %d events, want 1: %.300s", page.Page.TotalElements, list)
	}
	if _, one := rawRequest(t, addr, "GET", "/api/events/1", nil, ""); !strings.Contains(one, `"name":"n"`) {
		t.Fatalf("event 1 changed: %.300s", one)
	}
}
