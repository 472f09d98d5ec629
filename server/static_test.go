package server

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawGet sends a request line exactly as written (no client cleans the
// path) to a server on a loopback port, with an Authorization header.
func rawGet(t *testing.T, addr, target, authorization string) *http.Response {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nAuthorization: %s\r\nConnection: close\r\n\r\n", target, addr, authorization)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	return resp
}

// listen starts a server with testConfig on a loopback port.
func listen(t *testing.T) string {
	addr, _ := listenWith(t, Options{})
	return addr
}

func TestPublicFilesAreServedWhateverTheAuthorizationHeader(t *testing.T) {
	addr := listen(t)
	for _, tt := range []struct{ path, contentType string }{
		{"/docs/index.html", "text/html"},
		{"/docs/", "text/html"},
		{"/favicon.ico", "image/x-icon"},
		{"/css/docs.css", "text/css"},
	} {
		for _, auth := range []string{"Bearer not-a-token", "Basic !!!", "Bearer"} {
			resp := rawGet(t, addr, tt.path, auth)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("%s with %q: status %d", tt.path, auth, resp.StatusCode)
				continue
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, tt.contentType) {
				t.Errorf("%s: Content-Type %q, want %s", tt.path, ct, tt.contentType)
			}
			if cc := resp.Header.Get("Cache-Control"); !strings.Contains(cc, "max-age=") {
				t.Errorf("%s: Cache-Control %q", tt.path, cc)
			}
			if resp.Header.Get("Set-Cookie") != "" {
				t.Errorf("%s sets a cookie", tt.path)
			}
		}
	}
}

// TestPathsThatClimbOutAreNotFound: no path under a public location reaches
// a file outside the embedded set, in any spelling, and none is answered
// with the auth filter's 401 either.
func TestPathsThatClimbOutAreNotFound(t *testing.T) {
	addr := listen(t)
	for _, target := range []string{
		"/docs/../server.go",
		"/docs/../../go.mod",
		"/docs/%2e%2e/server.go",
		"/docs/%2E%2E/%2E%2E/go.mod",
		"/docs/..%2fserver.go",
		"/docs/..%2Fserver.go",
		"/css/..%5c..%5cgo.mod",
		"/docs/./index.html/..",
		"/css/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
		"/docs/missing.html",
		"/webjars/",
		"/images/",
	} {
		resp := rawGet(t, addr, target, "")
		body := make([]byte, 512)
		n, _ := resp.Body.Read(body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404 (%s)", target, resp.StatusCode, body[:n])
		}
		if strings.Contains(string(body[:n]), "package ") || strings.Contains(string(body[:n]), "module ") {
			t.Errorf("GET %s served a file outside the embedded set", target)
		}
	}
}
