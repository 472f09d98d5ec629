package server

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// bigBody is 2 MiB, twice BodyLimit.
var bigBody = strings.Repeat("a", 2<<20)

// TestABigBodyIsAnsweredToAClientThatWritesItAll: a client that writes a
// whole body over BodyLimit before it reads (Go's net/http client, Python's
// urllib) reads the 413 and its JSON body, not a connection reset: the
// server answers, stops sending, reads and drops what the client still
// sends, and only then closes (RFC 9112 §9.6). The same on the token
// endpoint.
func TestABigBodyIsAnsweredToAClientThatWritesItAll(t *testing.T) {
	addr := listen(t)
	token := tokenFor(t, addr, "user@email.com", "user")
	targets := []struct {
		name, path, contentType, authorization string
	}{
		{"an event", "/api/events", "application/json", "Bearer " + token},
		{"a token request", "/oauth/token", "application/x-www-form-urlencoded", basicHeader("myApp:pass")},
	}
	for _, tt := range targets {
		t.Run(tt.name+", Go's client", func(t *testing.T) {
			client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
			for i := range 3 { // a reset is a race: give it chances to show
				req, err := http.NewRequest("POST", "http://"+addr+tt.path, strings.NewReader(bigBody))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", tt.contentType)
				req.Header.Set("Authorization", tt.authorization)
				resp, err := client.Do(req)
				if err != nil {
					t.Fatalf("try %d: no answer: %v", i+1, err)
				}
				expectTooLarge(t, i+1, resp)
			}
		})
		t.Run(tt.name+", a raw socket", func(t *testing.T) {
			for i := range 3 {
				conn := dialWithin(t, addr, 20*time.Second)
				defer conn.Close()
				head := "POST " + tt.path + " HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: " + tt.contentType +
					"\r\nAuthorization: " + tt.authorization + "\r\nContent-Length: " + strconv.Itoa(len(bigBody)) + "\r\n\r\n"
				if _, err := io.WriteString(conn, head+bigBody); err != nil {
					t.Fatalf("try %d: the server stopped reading the body: %v", i+1, err)
				}
				r := bufio.NewReader(conn)
				resp, err := http.ReadResponse(r, nil)
				if err != nil {
					t.Fatalf("try %d: no answer after writing the body: %v", i+1, err)
				}
				expectTooLarge(t, i+1, resp)
				// Then the server closes the connection.
				_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
				if n, err := r.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
					t.Fatalf("try %d: after the 413, read %d bytes, %v; want the connection closed", i+1, n, err)
				}
			}
		})
	}
	// The server is still well.
	if resp, body := rawRequest(t, addr, "GET", "/api", nil, ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api afterwards: %d %s", resp.StatusCode, body)
	}
}

// expectTooLarge reads and closes the body of resp, the answer to try, and
// fails the test unless it is a 413 that says request_too_large.
func expectTooLarge(t *testing.T, try int, resp *http.Response) {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge || !bytes.Contains(body, []byte(`"error":"request_too_large"`)) {
		t.Fatalf("try %d: %d %s (%v), want 413 request_too_large", try, resp.StatusCode, body, err)
	}
}
