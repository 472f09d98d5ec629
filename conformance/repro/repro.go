// Package repro writes down a run's requests and their answers, and turns
// them into a shell script that sends them again with curl: the
// reproduction of a failure, the same for a failed scenario and for a
// finding of the explorer.
package repro

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"eventsvc/internal/redact"
)

// Exchange is one request as it was sent, and its answer. Its fields hold
// secrets as they were; only Transcript is masked, and only Transcript is
// ever shown as it is.
type Exchange struct {
	Method, URL string
	Header      http.Header
	Body        []byte
	Status      int
	RespHeader  http.Header
	RespBody    []byte
	// Transcript is the request and the answer, masked, as failures show
	// them.
	Transcript string
}

// Record writes down req, sent with body, and its answer resp with
// respBody (nil when no answer came), masked by r in the transcript.
func Record(r *redact.Redactor, req *http.Request, body []byte, resp *http.Response, respBody []byte) Exchange {
	x := Exchange{Method: req.Method, URL: req.URL.String(), Header: req.Header.Clone(), Body: body}
	x.Transcript = "request:\n" + indent(RequestText(r, req, body))
	if resp != nil {
		x.Status, x.RespHeader, x.RespBody = resp.StatusCode, resp.Header.Clone(), respBody
		x.Transcript += "response:\n" + indent(ResponseText(r, resp, respBody))
	}
	return x
}

// RequestText is a request as a failure shows it: its line, its headers
// and its body, masked.
func RequestText(r *redact.Redactor, req *http.Request, body []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", req.Method, r.String(req.URL.String()))
	writeHeader(&b, r.Header(req.Header))
	if len(body) > 0 {
		fmt.Fprintf(&b, "\n%s\n", r.Body(req.Header.Get("Content-Type"), body))
	}
	return b.String()
}

// ResponseText is an answer as a failure shows it, masked.
func ResponseText(r *redact.Redactor, resp *http.Response, body []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", resp.Proto, resp.Status)
	writeHeader(&b, r.Header(resp.Header))
	if len(body) > 0 {
		fmt.Fprintf(&b, "\n%s\n", r.Body(resp.Header.Get("Content-Type"), body))
	}
	return b.String()
}

// Transcribe writes x's transcript, masked, from what it holds: for an
// exchange recorded without one, whose transcript only a failure needs.
// The answer's protocol is written HTTP/1.1.
func Transcribe(r *redact.Redactor, x Exchange) string {
	u, err := url.Parse(x.URL)
	if err != nil {
		u = &url.URL{Path: x.URL}
	}
	request := RequestText(r, &http.Request{Method: x.Method, URL: u, Header: x.Header}, x.Body)
	if x.Status == 0 {
		return Transcript(request, "")
	}
	resp := &http.Response{Proto: "HTTP/1.1", StatusCode: x.Status, Status: fmt.Sprintf("%d %s", x.Status, http.StatusText(x.Status)), Header: x.RespHeader}
	return Transcript(request, ResponseText(r, resp, x.RespBody))
}

// Transcript joins a request's and an answer's texts as Exchange.Transcript
// holds them; response may be "" when no answer came.
func Transcript(request, response string) string {
	t := "request:\n" + indent(request)
	if response != "" {
		t += "response:\n" + indent(response)
	}
	return t
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
