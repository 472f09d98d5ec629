package server

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"
)

// exchange writes raw on a new connection to addr and reads one answer;
// closed reports whether the server then closed the connection instead of
// reading on (a second answer, or silence, means it read on).
func exchange(t *testing.T, addr, raw string) (status int, closed bool) {
	t.Helper()
	conn := dialWithin(t, addr, 5*time.Second)
	defer conn.Close()
	if _, err := io.WriteString(conn, raw); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	_, err = r.ReadByte()
	return resp.StatusCode, errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || isReset(err)
}

func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && !errors.Is(err, os.ErrDeadlineExceeded)
}

// TestAmbiguousFramingIsRefusedAndTheConnectionClosed: RFC 9112 §6.3
// (https://www.rfc-editor.org/rfc/rfc9112#section-6.3) asks a server to
// answer 400 and close the connection when the length of a request's body
// is unclear, since a proxy in front may read the same bytes as other
// requests (request smuggling), and §6.1 to refuse a transfer coding it
// does not implement (501) when the length is still known (chunked last).
func TestAmbiguousFramingIsRefusedAndTheConnectionClosed(t *testing.T) {
	addr := listen(t)
	second := "GET /api HTTP/1.1\r\nHost: x\r\n\r\n"
	for _, tt := range []struct {
		name, raw string
		status    int
	}{
		{"two different Content-Length", "POST /api/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: " + strconv.Itoa(2+len(second)) + "\r\n\r\n{}" + second, 400},
		{"a list of Content-Length", "POST /api/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2, 40\r\n\r\n{}" + second, 400},
		{"an unknown transfer coding before chunked", "POST /api/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n" + second, 501},
		{"an unknown transfer coding alone", "POST /api/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\n2\r\n{}\r\n0\r\n\r\n" + second, 400},
		{"two Transfer-Encoding headers", "POST /api/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n" + second, 400},
		{"chunked not last", "POST /api/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked, gzip\r\n\r\n2\r\n{}\r\n0\r\n\r\n" + second, 400},
		{"Transfer-Encoding and Content-Length", "POST /api/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n" + second, 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, closed := exchange(t, addr, tt.raw)
			if status != tt.status || !closed {
				t.Errorf("status %d, connection closed %v; want %d and closed", status, closed, tt.status)
			}
		})
	}
	// Well-framed requests are still read one after the other.
	status, closed := exchange(t, addr, "GET /api HTTP/1.1\r\nHost: x\r\n\r\n"+second)
	if status != 200 || closed {
		t.Errorf("two well-framed requests: status %d, closed %v", status, closed)
	}
}
