// Package cutoff reads a target's answers within bounds: at most so many
// bytes of a body, counted after the transport's decompression, and the
// whole answer, body included, within a time. An answer that goes past
// either is cut there, and its reader says so with a *CutError instead of
// the end of the body, so that no reader of it takes the part it got for
// the whole answer. The scenario runner, the explorer and the preflight
// read every answer through it.
package cutoff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Defaults of Limits.
const (
	DefaultMaxAnswer int64 = 4 << 20
	DefaultTimeout         = 30 * time.Second
)

// MaxSize is the largest size ParseSize takes.
const MaxSize int64 = 1 << 30

// Limits bound every answer a transport carries.
type Limits struct {
	// MaxAnswer is how many bytes of an answer's body are read at most,
	// counted as the reader gets them: after the transport decompressed
	// them. Zero: DefaultMaxAnswer.
	MaxAnswer int64
	// Timeout bounds a whole answer: from the request to the end of its
	// body. Zero: DefaultTimeout.
	Timeout time.Duration
}

// Transport returns a RoundTripper that sends requests through base
// (http.DefaultTransport when nil) and bounds their answers by l. A
// request that gets no headers within the timeout fails as base fails
// it; an answer whose body goes past a bound gives the bytes read before
// the bound, then a *CutError.
func (l Limits) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	if l.MaxAnswer <= 0 {
		l.MaxAnswer = DefaultMaxAnswer
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	return bounded{base: base, l: l}
}

// CutError is an answer cut by a bound: its body was longer than the
// limit, or not over when the time a request may take had passed.
type CutError struct {
	Method, Path string
	// Limit is the bound on the body; Timeout the bound on the time.
	Limit   int64
	Timeout time.Duration
	// Read is how many bytes of the body were read before the cut, and
	// Took how long after the request the cut came.
	Read int64
	Took time.Duration
	// Deadline is true when the time cut the answer, false when its
	// size did.
	Deadline bool
}

func (e *CutError) Error() string {
	msg := fmt.Sprintf("the answer to %s %s was cut at %s after %s: ", e.Method, e.Path, Size(e.Read), Seconds(e.Took))
	if e.Deadline {
		return msg + fmt.Sprintf("it was not over within the %s a request may take (-timeout, CONFORMANCE_TIMEOUT)", Seconds(e.Timeout))
	}
	return msg + fmt.Sprintf("it is longer than the %s an answer may have (-max-answer, CONFORMANCE_MAX_ANSWER)", Size(e.Limit))
}

// bounded is the RoundTripper of Limits.Transport.
type bounded struct {
	base http.RoundTripper
	l    Limits
}

func (t bounded) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	parent := req.Context()
	ctx, cancel := context.WithTimeout(parent, t.l.Timeout)
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		if ownDeadline(ctx, parent, start.Add(t.l.Timeout)) {
			err = fmt.Errorf("no answer within %s (-timeout, CONFORMANCE_TIMEOUT): %w", Seconds(t.l.Timeout), err)
		}
		cancel()
		return resp, err
	}
	resp.Body = &body{
		rc: resp.Body, ctx: ctx, parent: parent, cancel: cancel, start: start, deadline: start.Add(t.l.Timeout),
		cut: CutError{Method: req.Method, Path: req.URL.Path, Limit: t.l.MaxAnswer, Timeout: t.l.Timeout},
	}
	return resp, nil
}

// body is an answer's body read within the bounds.
type body struct {
	rc       io.ReadCloser
	ctx      context.Context // the answer's, with its deadline
	parent   context.Context // the request's
	cancel   context.CancelFunc
	start    time.Time
	deadline time.Time
	cut      CutError // the bounds, and the request
	err      error    // what every Read returns once the body is over
}

func (b *body) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if room := b.cut.Limit - b.cut.Read + 1; int64(len(p)) > room {
		p = p[:room] // one byte more than the limit tells that there is more
	}
	n, err := b.rc.Read(p)
	b.cut.Read += int64(n)
	if b.cut.Read > b.cut.Limit {
		n -= int(b.cut.Read - b.cut.Limit)
		b.cut.Read = b.cut.Limit
		return n, b.stop(false)
	}
	switch {
	case err == nil:
	case err == io.EOF:
		b.err = err
		b.cancel()
	case b.timedOut():
		return n, b.stop(true)
	default:
		b.err = err
	}
	return n, err
}

// timedOut reports whether the answer's own deadline ended it.
func (b *body) timedOut() bool { return ownDeadline(b.ctx, b.parent, b.deadline) }

// ownDeadline reports whether ctx, made from parent with deadline, ended
// at that deadline, and not with parent: a run that stops, or ends before
// the answer's deadline, is no fault of the answer.
func ownDeadline(ctx, parent context.Context, deadline time.Time) bool {
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return false
	}
	d, ok := parent.Deadline()
	return !ok || !d.Before(deadline)
}

// stop cuts the answer: the connection is closed, and every Read from
// now on returns the *CutError.
func (b *body) stop(deadline bool) error {
	cut := b.cut
	cut.Deadline, cut.Took = deadline, time.Since(b.start)
	b.err = &cut
	_ = b.rc.Close()
	b.cancel()
	return b.err
}

func (b *body) Close() error {
	err := b.rc.Close()
	b.cancel()
	return err
}

// Size is n bytes as people write it: "512 B", "64 KiB", "4 MiB",
// "1.5 MiB".
func Size(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size {
			return strings.TrimSuffix(strconv.FormatFloat(float64(n)/float64(u.size), 'f', 1, 64), ".0") + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " B"
}

// Seconds is d as people say it, to two figures or to the tenth of a
// second: "0.004 s", "0.35 s", "2 s", "30.5 s".
func Seconds(d time.Duration) string {
	unit := 100 * time.Millisecond
	switch {
	case d < 100*time.Millisecond:
		unit = time.Millisecond
	case d < time.Second:
		unit = 10 * time.Millisecond
	}
	return strconv.FormatFloat(d.Round(unit).Seconds(), 'f', -1, 64) + " s"
}

// units are the units ParseSize reads, lower case.
var units = map[string]int64{
	"": 1, "b": 1,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30,
	"kb": 1000, "mb": 1000 * 1000, "gb": 1000 * 1000 * 1000,
}

// ParseSize reads a size: a number of bytes, or a number with a unit,
// KiB, MiB or GiB (1024 bytes and its powers), KB, MB or GB (1000 and its
// powers), or B, in any case, with or without a space: "4MiB", "512 KiB",
// "1048576". It must be above zero and at most MaxSize.
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(s)
	}
	num, unit := s[:i], strings.ToLower(strings.TrimSpace(s[i:]))
	mult, ok := units[unit]
	f, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || num == "" {
		return 0, errors.New("want a number of bytes, or a number with KiB, MiB or GiB, such as 4MiB")
	}
	n := f * float64(mult)
	if n < 1 || n > float64(MaxSize) {
		return 0, fmt.Errorf("want a size from 1 B to %s", Size(MaxSize))
	}
	return int64(n), nil
}

// excerptSize is how much of a cut answer's body Excerpt keeps.
const excerptSize = 1 << 10

// Excerpt is the start of the body of a cut answer, as a failure shows
// it: its first KiB, and a line that says how much was read.
func Excerpt(body []byte) []byte {
	if len(body) <= excerptSize {
		return body
	}
	out := make([]byte, 0, excerptSize+80)
	out = append(out, body[:excerptSize]...)
	return append(out, fmt.Sprintf("\n[… the first %s of the %s read before the cut]", Size(excerptSize), Size(int64(len(body))))...)
}

// CloseIdleConnections closes the idle connections of the transport
// under t, when it has a way to.
func (t bounded) CloseIdleConnections() { closeIdle(t.base) }

// closeIdle closes the idle connections of rt, when it has a way to.
func closeIdle(rt http.RoundTripper) {
	if c, ok := rt.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
