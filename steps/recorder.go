package steps

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/cutoff"
	"eventsvc/conformance/origin"
	"eventsvc/conformance/repro"
	"eventsvc/internal/redact"
)

// recorder is the httpexpect Reporter and Printer of one scenario. It
// writes down every exchange, masked, for the exchange values the steps
// keep, and every Set-Cookie header the scenario received; as a Reporter it
// keeps httpexpect's failure to send a request. Everything it hands out is
// masked.
type recorder struct {
	redactor *redact.Redactor
	// guard, when set, is the transport's: a request it sends without
	// credentials is written down without them, as it was sent.
	guard *origin.Guard
	// scope, when set, is the run's audit of the scenario: every
	// exchange whose answer came is checked there, timed by now.
	scope *audit.Scope
	now   func() time.Time
	// answers, on a lane, keeps its answered exchanges for the scope of
	// the recorder that adopts it, with their indices in the lane's log.
	answers []laneAnswer
	isLane  bool

	mu         sync.Mutex
	sent       time.Time // when the last request was sent
	failure    string
	request    string
	response   string
	current    int // the index in log of the last exchange
	setCookies []string
	readErr    error // the last answer's, when it could not be read whole
	cut        error // the first answer cut since takeCut
	// log is every exchange of the scenario, as sent and answered, for
	// its reproduction (repro.go). It is never shown as it is.
	log []repro.Exchange
}

// size is how many exchanges the scenario made so far: the number the
// next one gets.
func (r *recorder) size() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.log)
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

// Request writes down the request about to be sent, as it will be sent.
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
	if r.guard != nil && r.guard.Withholds(req) {
		sent := *req
		sent.Header = origin.Strip(req.Header)
		req = &sent
	}
	text := repro.RequestText(r.redactor, req, body)
	r.mu.Lock()
	r.request, r.response = text, ""
	r.log = append(r.log, repro.Exchange{Method: req.Method, URL: req.URL.String(), Header: req.Header.Clone(), Body: body,
		Transcript: repro.Transcript(text, "")})
	r.current = len(r.log) - 1
	r.sent = r.now()
	r.mu.Unlock()
}

// Response writes down the answer, leaving its body readable. An answer
// that cannot be read whole is kept as a readError, and of one that a
// bound cut, only the start of its body.
func (r *recorder) Response(resp *http.Response, _ time.Duration) {
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var cut *cutoff.CutError
	if errors.As(err, &cut) {
		body = cutoff.Excerpt(body)
	}
	text := repro.ResponseText(r.redactor, resp, body)
	x, at, ok := r.answered(resp, body, text, err, cut)
	switch {
	case !ok:
	case r.scope != nil:
		r.scope.Observe(x, at)
	case r.isLane:
		r.mu.Lock()
		r.answers = append(r.answers, laneAnswer{x: x, at: at})
		r.mu.Unlock()
	}
}

// laneAnswer is an exchange a lane saw answered, for the audit, and its
// index in the lane's log.
type laneAnswer struct {
	x  audit.Exchange
	at int
}

// answered writes down the answer of the last request, and returns the
// exchange for the audit: ok when it was read whole.
func (r *recorder) answered(resp *http.Response, body []byte, text string, err error, cut *cutoff.CutError) (x audit.Exchange, at int, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.response = text
	r.setCookies = append(r.setCookies, resp.Header.Values("Set-Cookie")...)
	transcript := repro.Transcript(r.request, r.response)
	if n := len(r.log); n > 0 {
		last := &r.log[n-1]
		last.Status, last.RespHeader, last.RespBody = resp.StatusCode, resp.Header.Clone(), body
		last.Transcript = transcript
	}
	r.readErr = nil
	if err != nil {
		msg := "the answer could not be read whole: " + err.Error()
		if cut != nil {
			msg = cut.Error()
		}
		r.readErr = &readError{text: r.redactor.String(msg) + "\n\n" + transcript, err: err}
	}
	if cut != nil && r.cut == nil {
		r.cut = &exchangeError{at: r.current, err: r.readErr}
	}
	if err != nil || len(r.log) == 0 {
		return x, 0, false
	}
	return audit.Exchange{Exchange: r.log[len(r.log)-1], Start: r.sent, End: r.now()}, len(r.log) - 1, true
}

// exchanges returns the scenario's exchanges so far.
func (r *recorder) exchanges() []repro.Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.log)
}

// take returns the transcript of the last exchange, its index in the log,
// httpexpect's failure to complete it, if any, and the error of an answer
// that could not be read whole (a readError), if any, and clears the
// transcript, the failure and the error.
func (r *recorder) take() (transcript string, at int, failure string, readErr error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.request != "" {
		transcript = repro.Transcript(r.request, r.response)
	}
	failure = strings.TrimSpace(r.redactor.String(r.failure))
	readErr = r.readErr
	r.failure, r.request, r.response, r.readErr = "", "", "", nil
	return transcript, r.current, failure, readErr
}

// takeCut returns the first answer a bound cut since the last takeCut (a
// readError, about its exchange), or nil, and clears it.
func (r *recorder) takeCut() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	cut := r.cut
	r.cut = nil
	return cut
}

// cookieNames returns the names of the cookies the answers set so far.
func (r *recorder) cookieNames() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var names []string
	for _, line := range r.setCookies {
		if c, err := http.ParseSetCookie(line); err == nil && !slices.Contains(names, c.Name) {
			names = append(names, c.Name)
		}
	}
	return names
}

// cookies returns the Set-Cookie headers received so far, masked.
func (r *recorder) cookies() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.redactor.Header(http.Header{"Set-Cookie": r.setCookies}).Values("Set-Cookie")
}

// lane is a recorder of its own for one of requests sent at once, which
// the recorder, writing down one exchange at a time, cannot follow; adopt
// takes its exchanges back once they are answered.
func (r *recorder) lane() *recorder {
	return &recorder{redactor: r.redactor, guard: r.guard, now: r.now, isLane: true}
}

// adopt appends the exchanges lane wrote down to the log, with the
// Set-Cookie headers it received and the first answer a bound cut, and
// returns the index in the log of its first exchange.
func (r *recorder) adopt(lane *recorder) int {
	lane.mu.Lock()
	r.mu.Lock()
	offset := len(r.log)
	r.log = append(r.log, lane.log...)
	r.current = len(r.log) - 1
	r.setCookies = append(r.setCookies, lane.setCookies...)
	var cut *exchangeError
	if r.cut == nil && errors.As(lane.cut, &cut) {
		r.cut = &exchangeError{at: cut.at + offset, err: cut.err}
	}
	answers, scope := lane.answers, r.scope
	r.mu.Unlock()
	lane.mu.Unlock()
	if scope != nil {
		for _, a := range answers {
			scope.Observe(a.x, a.at+offset)
		}
	}
	return offset
}
