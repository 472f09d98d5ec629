package steps

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"eventsvc/redact"
)

// recorder is the httpexpect Reporter and Printer of one scenario. It keeps
// the first assertion failure of the current step, the last exchange (to show
// with that failure), and every Set-Cookie header the scenario received.
// Everything it hands out is masked.
type recorder struct {
	redactor *redact.Redactor

	mu         sync.Mutex
	failure    string
	lastReq    string
	lastResp   string
	setCookies []string
}

// Errorf records an httpexpect assertion failure.
func (r *recorder) Errorf(message string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failure == "" {
		r.failure = fmt.Sprintf(message, args...)
	}
}

// fail records a failure of the suite's own checks.
func (r *recorder) fail(format string, args ...any) { r.Errorf(format, args...) }

// Request records the request about to be sent.
func (r *recorder) Request(req *http.Request) {
	var body []byte
	switch {
	case req.GetBody != nil:
		if rc, err := req.GetBody(); err == nil {
			body, _ = io.ReadAll(rc)
			rc.Close()
		}
	case req.Body != nil && req.Body != http.NoBody:
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", req.Method, r.redactor.String(req.URL.String()))
	writeHeader(&b, r.redactor.Header(req.Header))
	if len(body) > 0 {
		fmt.Fprintf(&b, "\n%s\n", r.redactor.Body(req.Header.Get("Content-Type"), body))
	}
	r.mu.Lock()
	r.lastReq, r.lastResp = b.String(), ""
	r.mu.Unlock()
}

// Response records the answer, leaving its body readable.
func (r *recorder) Response(resp *http.Response, _ time.Duration) {
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", resp.Proto, resp.Status)
	writeHeader(&b, r.redactor.Header(resp.Header))
	if len(body) > 0 {
		fmt.Fprintf(&b, "\n%s\n", r.redactor.Body(resp.Header.Get("Content-Type"), body))
	}
	r.mu.Lock()
	r.lastResp = b.String()
	r.setCookies = append(r.setCookies, resp.Header.Values("Set-Cookie")...)
	r.mu.Unlock()
}

// take returns the current step's failure, with the last exchange, as an
// error, and clears it; nil when the step passed.
func (r *recorder) take() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failure == "" {
		return nil
	}
	msg := strings.TrimSpace(r.redactor.String(r.failure))
	r.failure = ""
	if r.lastReq != "" {
		msg += "\n\nrequest:\n" + indent(r.lastReq)
		if r.lastResp != "" {
			msg += "\nresponse:\n" + indent(r.lastResp)
		}
	}
	return fmt.Errorf("%s", msg)
}

// cookies returns the Set-Cookie headers received so far, masked.
func (r *recorder) cookies() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.redactor.Header(http.Header{"Set-Cookie": r.setCookies}).Values("Set-Cookie")
}

func writeHeader(b *strings.Builder, h http.Header) {
	names := make([]string, 0, len(h))
	for n := range h {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, v := range h[n] {
			fmt.Fprintf(b, "%s: %s\n", n, v)
		}
	}
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return "    " + strings.Join(lines, "\n    ") + "\n"
}
