package conformance

import (
	"fmt"
	"net/http"
	"sync"
	"time"
)

// ThrottledError is a 429 Too Many Requests from the target: it protects
// itself (for one, by locking out an account after failed logins), and the
// run cannot tell anything more about the rules.
type ThrottledError struct {
	Method, Path string
	// RetryAfter is the answer's Retry-After header, as sent.
	RetryAfter string
}

func (e *ThrottledError) Error() string {
	msg := fmt.Sprintf("the target answered 429 Too Many Requests to %s %s", e.Method, e.Path)
	if e.RetryAfter != "" {
		msg += " (Retry-After: " + e.RetryAfter + ")"
	}
	return msg
}

// throttleWatch notes the first 429 the target answers.
type throttleWatch struct {
	mu    sync.Mutex
	first *ThrottledError
	at    time.Time
}

// hit returns the first 429, or nil.
func (w *throttleWatch) hit() *ThrottledError {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.first
}

// hitSince reports whether the first 429 came at t or later.
func (w *throttleWatch) hitSince(t time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.first != nil && !w.at.Before(t)
}

func (w *throttleWatch) note(resp *http.Response) {
	if resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.first == nil {
		w.first = &ThrottledError{Method: resp.Request.Method, Path: resp.Request.URL.Path, RetryAfter: resp.Header.Get("Retry-After")}
		w.at = time.Now()
	}
}

// watching is a RoundTripper that tells w of every answer of base.
type watching struct {
	base http.RoundTripper
	w    *throttleWatch
}

func (t watching) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err == nil {
		t.w.note(resp)
	}
	return resp, err
}
