package steps

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"eventsvc/redact"
	"eventsvc/repro"
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
	current    int // the index in log of the last exchange
	setCookies []string
	// log is every exchange of the scenario, as sent and answered, for
	// its reproduction (repro.go). It is never shown as it is.
	log []repro.Exchange
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
	text := repro.RequestText(r.redactor, req, body)
	r.mu.Lock()
	r.request, r.response = text, ""
	r.log = append(r.log, repro.Exchange{Method: req.Method, URL: req.URL.String(), Header: req.Header.Clone(), Body: body,
		Transcript: repro.Transcript(text, "")})
	r.current = len(r.log) - 1
	r.mu.Unlock()
}

// Response writes down the answer, leaving its body readable.
func (r *recorder) Response(resp *http.Response, _ time.Duration) {
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	text := repro.ResponseText(r.redactor, resp, body)
	r.mu.Lock()
	r.response = text
	r.setCookies = append(r.setCookies, resp.Header.Values("Set-Cookie")...)
	if n := len(r.log); n > 0 {
		last := &r.log[n-1]
		last.Status, last.RespHeader, last.RespBody = resp.StatusCode, resp.Header.Clone(), body
		last.Transcript = repro.Transcript(r.request, r.response)
	}
	r.mu.Unlock()
}

// exchanges returns the scenario's exchanges so far.
func (r *recorder) exchanges() []repro.Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.log)
}

// take returns the transcript of the last exchange, its index in the log
// and httpexpect's failure to complete it, if any, and clears the
// transcript and the failure.
func (r *recorder) take() (transcript string, at int, failure string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.request != "" {
		transcript = repro.Transcript(r.request, r.response)
	}
	failure = strings.TrimSpace(r.redactor.String(r.failure))
	r.failure, r.request, r.response = "", "", ""
	return transcript, r.current, failure
}

// cookies returns the Set-Cookie headers received so far, masked.
func (r *recorder) cookies() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.redactor.Header(http.Header{"Set-Cookie": r.setCookies}).Values("Set-Cookie")
}
