package steps

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"eventsvc/redact"
)

// recorder is the httpexpect Reporter and Printer of one scenario. It
// writes down every exchange, masked, for the exchange values the steps
// keep, and every Set-Cookie header the scenario received; as a Reporter it
// keeps httpexpect's failure to send a request. Everything it hands out is
// masked.
type recorder struct {
	redactor *redact.Redactor

	mu         sync.Mutex
	failure    string
	request    string
	response   string
	setCookies []string
	// log is every exchange of the scenario, as sent and answered, for
	// its reproduction (repro.go). It is never shown as it is.
	log []sent
}

// sent is one request of a scenario, as sent, and its answer.
type sent struct {
	method, url string
	header      http.Header
	body        []byte
	status      int
	respHeader  http.Header
	respBody    []byte
	// transcript is the exchange, masked.
	transcript string
}

// Errorf records a failure reported by httpexpect: a request that could not
// be sent or whose answer could not be read.
func (r *recorder) Errorf(message string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failure == "" {
		r.failure = fmt.Sprintf(message, args...)
	}
}

// Request writes down the request about to be sent.
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
	r.request, r.response = b.String(), ""
	r.log = append(r.log, sent{method: req.Method, url: req.URL.String(), header: req.Header.Clone(), body: body})
	r.mu.Unlock()
}

// Response writes down the answer, leaving its body readable.
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
	r.response = b.String()
	r.setCookies = append(r.setCookies, resp.Header.Values("Set-Cookie")...)
	if n := len(r.log); n > 0 {
		last := &r.log[n-1]
		last.status, last.respHeader, last.respBody = resp.StatusCode, resp.Header.Clone(), body
		last.transcript = "request:\n" + indent(r.request) + "response:\n" + indent(r.response)
	}
	r.mu.Unlock()
}

// exchanges returns the scenario's exchanges so far.
func (r *recorder) exchanges() []sent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.log)
}

// take returns the transcript of the last exchange and httpexpect's failure
// to complete it, if any, and clears both.
func (r *recorder) take() (transcript, failure string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.request != "" {
		transcript = "request:\n" + indent(r.request)
		if r.response != "" {
			transcript += "response:\n" + indent(r.response)
		}
	}
	failure = strings.TrimSpace(r.redactor.String(r.failure))
	r.failure, r.request, r.response = "", "", ""
	return transcript, failure
}

// cookies returns the Set-Cookie headers received so far, masked.
func (r *recorder) cookies() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.redactor.Header(http.Header{"Set-Cookie": r.setCookies}).Values("Set-Cookie")
}

func writeHeader(b *strings.Builder, h http.Header) {
	for _, n := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[n] {
			fmt.Fprintf(b, "%s: %s\n", n, v)
		}
	}
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return "    " + strings.Join(lines, "\n    ") + "\n"
}
