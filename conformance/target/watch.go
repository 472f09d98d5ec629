package target

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"eventsvc/conformance/deadlink"
)

// Waiting out a 429 (RFC 6585 §4): a target that asks the run to slow down
// for a short while, as a budget of token requests per address does, is
// obeyed: the request waits its Retry-After and is sent again, at most
// maxThrottleRetries times and never longer than maxThrottleWait at once.
// A longer Retry-After (a lockout), none, or one more 429 throttles the
// run. Until the wait is over, the run's other requests to the same
// address wait too, rather than spend the target's budget anew: several
// sequences or scenarios asking for tokens at once would otherwise each
// meet a 429 again as soon as the first wait ends.
const (
	maxThrottleWait    = 5 * time.Second
	maxThrottleRetries = 3
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

// UnreachableError is the target not answering, mid-run (the connection
// refused, reset or timed out), or a gateway in front of it answering for
// it (502, 503 without a short Retry-After, 504): the run cannot tell
// anything more about the rules.
type UnreachableError struct {
	Method, Path string
	// Cause is what happened: the network's error, or the gateway's
	// status and the start of its body.
	Cause string
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("the target did not answer %s %s: %s", e.Method, e.Path, e.Cause)
}

// Watch notes the first 429 the target answers, the waits it asked for
// that the run obeyed, and the first time it did not answer. Its
// Transport carries a run's requests through it. The zero Watch is ready
// to use, and it is safe for concurrent use.
type Watch struct {
	// DeadLinks, when set, is told of every exchange outside the run's
	// base URL (deadlink.Log.Note): one that got no answer, or a
	// gateway's, is a dead link, never the target that stopped
	// answering, which only the base URL's answers tell.
	DeadLinks *deadlink.Log

	mu     sync.Mutex
	first  *ThrottledError
	at     time.Time
	waits  int
	waited time.Duration
	down   *UnreachableError
	downAt time.Time
	// stopped is closed at the first 429 or the first request without
	// an answer (Stopped).
	stopped chan struct{}
	// slowed are the addresses (host and path) a short 429 asked the run
	// to leave alone for a while, and until when.
	slowed map[string]time.Time
}

// Stopped returns a channel that is closed when the target first
// throttles the run or stops answering: what waits beside a run (the
// watch of token lifetimes) stops waiting then.
func (w *Watch) Stopped() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stoppedLocked()
}

// stoppedLocked is the channel of Stopped, made on first use; w.mu is
// held.
func (w *Watch) stoppedLocked() chan struct{} {
	if w.stopped == nil {
		w.stopped = make(chan struct{})
	}
	return w.stopped
}

// stopLocked closes the channel of Stopped, once; w.mu is held.
func (w *Watch) stopLocked() {
	select {
	case <-w.stoppedLocked():
	default:
		close(w.stopped)
	}
}

// Unreachable returns the first time the target did not answer, or nil.
func (w *Watch) Unreachable() *UnreachableError {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.down
}

// DownSince reports whether the target stopped answering at t or later.
func (w *Watch) DownSince(t time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.down != nil && !w.downAt.Before(t)
}

// noteDown notes that req got no answer of the target's.
func (w *Watch) noteDown(req *http.Request, cause string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.down == nil {
		w.down = &UnreachableError{Method: req.Method, Path: req.URL.Path, Cause: cause}
		w.downAt = time.Now()
		w.stopLocked()
	}
}

// gatewayAnswer tells whether resp is a gateway's answer in place of the
// target's (502, 504, or 503 that asks for no short wait), and says what
// it was.
func gatewayAnswer(resp *http.Response) (string, bool) {
	switch resp.StatusCode {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
	default:
		return "", false
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), resp.Body))
	cause := "it answered " + resp.Status
	if b := strings.Join(strings.Fields(string(body)), " "); b != "" {
		cause += ": " + b
	}
	return cause, true
}

// SlowedDown returns how many times the run waited out a 429, and how long
// in all.
func (w *Watch) SlowedDown() (int, time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.waits, w.waited
}

func (w *Watch) wait(req *http.Request, d time.Duration) {
	w.mu.Lock()
	w.waits++
	w.waited += d
	if w.slowed == nil {
		w.slowed = map[string]time.Time{}
	}
	if until := time.Now().Add(d); until.After(w.slowed[slowKey(req)]) {
		w.slowed[slowKey(req)] = until
	}
	w.mu.Unlock()
	time.Sleep(d)
}

// holdBack waits, before req is sent, until the wait a short 429 asked for
// at its address is over.
func (w *Watch) holdBack(req *http.Request) {
	w.mu.Lock()
	d := time.Until(w.slowed[slowKey(req)])
	if d > 0 {
		w.waited += d
	}
	w.mu.Unlock()
	if d > 0 {
		select {
		case <-time.After(d):
		case <-req.Context().Done():
		}
	}
}

// slowKey is the address of req that a 429 slows down.
func slowKey(req *http.Request) string { return req.URL.Host + req.URL.Path }

// maxDrained bounds what is read of a 429 before its request is sent
// again, so that its connection may serve again: a longer answer's
// connection is closed.
const maxDrained = 64 << 10

// maxReplayBody bounds the body replayable keeps to send again.
const maxReplayBody = 1 << 20

// replayable returns req with a body it can send again (GetBody), when its
// body is small enough to keep.
func replayable(req *http.Request) *http.Request {
	if req.Body == nil || req.Body == http.NoBody || req.GetBody != nil {
		return req
	}
	b, err := io.ReadAll(io.LimitReader(req.Body, maxReplayBody+1))
	rest := req.Body
	r := req.Clone(req.Context())
	if err != nil || len(b) > maxReplayBody {
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(b), rest), rest}
		return r
	}
	_ = rest.Close()
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	return r
}

// retryAfter is the short wait a 429 asks for, or false when it asks for
// none, for one too long, or the request cannot be sent again.
func retryAfter(resp *http.Response) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable || resp.Request == nil || resp.Request.Body != nil && resp.Request.GetBody == nil {
		return 0, false
	}
	secs, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || secs < 0 || time.Duration(secs)*time.Second > maxThrottleWait {
		return 0, false
	}
	return max(time.Duration(secs)*time.Second, 100*time.Millisecond), true
}

// Throttled returns the first 429, or nil.
func (w *Watch) Throttled() *ThrottledError {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.first
}

// ThrottledSince reports whether the first 429 came at t or later.
func (w *Watch) ThrottledSince(t time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.first != nil && !w.at.Before(t)
}

func (w *Watch) note(resp *http.Response) {
	if resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.first == nil {
		w.first = &ThrottledError{Method: resp.Request.Method, Path: resp.Request.URL.Path, RetryAfter: resp.Header.Get("Retry-After")}
		w.at = time.Now()
		w.stopLocked()
	}
}

// Transport returns a RoundTripper that carries requests through base
// (http.DefaultTransport when nil), waits out its short 429s, and tells w
// of every other answer and of every request it got no answer to.
func (w *Watch) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return watching{base: base, w: w}
}

// watching is a RoundTripper that waits out short 429s of base, and tells
// w of every other answer.
type watching struct {
	base http.RoundTripper
	w    *Watch
}

func (t watching) RoundTrip(req *http.Request) (*http.Response, error) {
	req = replayable(req)
	t.w.holdBack(req)
	resp, err := t.base.RoundTrip(req)
	for try := 0; err == nil && try < maxThrottleRetries; try++ {
		d, ok := retryAfter(resp)
		if !ok {
			break
		}
		again := req.Clone(req.Context())
		if req.GetBody != nil {
			if again.Body, err = req.GetBody(); err != nil {
				break
			}
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrained))
		resp.Body.Close()
		t.w.wait(req, d)
		resp, err = t.base.RoundTrip(again)
	}
	if t.w.DeadLinks != nil && !t.w.DeadLinks.Within(req.URL) {
		if err == nil || req.Context().Err() == nil { // not the run's own cancelling
			t.w.DeadLinks.Note(req, resp, err)
		}
		if err == nil {
			t.w.note(resp)
		}
		return resp, err
	}
	switch {
	case err != nil && req.Context().Err() == nil:
		t.w.noteDown(req, err.Error())
	case err != nil:
	default:
		if cause, ok := gatewayAnswer(resp); ok {
			t.w.noteDown(req, cause)
		}
		t.w.note(resp)
	}
	return resp, err
}

// CloseIdleConnections closes the idle connections of t's base, when it
// has a way to.
func (t watching) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
