package explore

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"eventsvc/conformance/cutoff"
	"eventsvc/conformance/hal"
	"eventsvc/conformance/origin"
	"eventsvc/conformance/repro"
)

// answer is one answer of the target, with its request.
type answer struct {
	method  string
	url     *url.URL
	status  int
	header  http.Header
	body    []byte
	doc     map[string]any // the body as a JSON object, when it is one
	jsonErr error
	// log is where its exchange is in the sequence's log.
	log int
}

// links are the hrefs of the answer's "_links".
func (a *answer) links() map[string]string { return hal.Links(a.doc) }

// resolve resolves an href of the answer against its address.
func (a *answer) resolve(href string) string { return hal.Resolve(a.url, href) }

// text reads a string property of the answer's JSON object.
func (a *answer) text(name string) (string, bool) {
	s, ok := a.doc[name].(string)
	return s, ok
}

// request is one request a sequence sends.
type request struct {
	method, address string
	auth            string // the Authorization header; "" for none
	contentType     string
	header          http.Header // more headers, set after those above
	body            []byte
	via             string // the link it follows, if it follows one
	close           bool   // on a connection of its own, closed after the answer
}

// send sends req, records it and its answer in the sequence's log, and
// reads the answer, within the run's bounds (Target.MaxAnswer, Timeout).
// An error is a request that got no answer, or not a whole one: one that
// a bound cut wraps its *cutoff.CutError.
func (s *sequence) send(req request) (*answer, error) {
	ctx := s.ctx
	if req.via != "" {
		ctx = origin.Via(ctx, req.via)
	}
	var body io.Reader
	if req.body != nil {
		body = bytes.NewReader(req.body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.method, req.address, body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", req.method, s.r.redactor.String(req.address), err)
	}
	if req.body != nil {
		b := req.body
		hr.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	hr.Close = req.close
	hr.Header.Set("Accept", "application/hal+json, application/json;q=0.9, */*;q=0.1")
	if req.auth != "" {
		hr.Header.Set("Authorization", req.auth)
	}
	if req.contentType != "" {
		hr.Header.Set("Content-Type", req.contentType)
	}
	for name, vs := range req.header {
		hr.Header[http.CanonicalHeaderKey(name)] = vs
	}
	sentAt := time.Now()
	resp, err := s.r.client.Do(hr)
	// The log holds the request as it was sent: without credentials to
	// another origin than the target's.
	sent := hr
	if s.r.guard.Withholds(hr) {
		sent = hr.Clone(ctx)
		sent.Header = origin.Strip(hr.Header)
	}
	if err != nil {
		s.log = append(s.log, repro.Record(s.r.redactor, sent, req.body, nil, nil))
		return nil, fmt.Errorf("%s %s: %s", req.method, s.r.redactor.String(req.address), s.r.redactor.String(err.Error()))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	var cut *cutoff.CutError
	switch {
	case errors.As(err, &cut):
		s.log = append(s.log, repro.Record(s.r.redactor, sent, req.body, resp, cutoff.Excerpt(b)))
		return nil, cut
	case err != nil:
		s.log = append(s.log, repro.Record(s.r.redactor, sent, req.body, resp, b))
		return nil, fmt.Errorf("%s %s: reading the answer: %s", req.method, s.r.redactor.String(req.address), s.r.redactor.String(err.Error()))
	}
	s.log = append(s.log, repro.Record(s.r.redactor, sent, req.body, resp, b))
	s.observe(len(s.log)-1, sentAt, time.Now())
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		// The target protects itself, or a gateway answers for it (the
		// watch noted which): no rule can be told from here on.
		if th := s.r.watch.Throttled(); th != nil {
			return nil, th
		}
		if down := s.r.watch.Unreachable(); down != nil {
			return nil, down
		}
	}
	a := &answer{method: req.method, url: hr.URL, status: resp.StatusCode, header: resp.Header, body: b, log: len(s.log) - 1}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" || strings.HasSuffix(mt, "+json") {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var v any
		if a.jsonErr = d.Decode(&v); a.jsonErr == nil {
			a.doc, _ = v.(map[string]any)
		}
	} else {
		a.jsonErr = fmt.Errorf("the answer is not JSON (Content-Type %q)", resp.Header.Get("Content-Type"))
	}
	return a, nil
}

// bearer is the Authorization header of a bearer token, with the scheme
// spelt as given ("" is "Bearer").
func bearer(scheme, token string) string {
	if scheme == "" {
		scheme = "Bearer"
	}
	return scheme + " " + token
}

// basic is the Authorization header of HTTP Basic credentials, encoded
// first as RFC 6749 §2.3.1 asks unless the target takes them as they are.
func basic(id, secret string, asIs bool) string {
	if !asIs {
		id, secret = url.QueryEscape(id), url.QueryEscape(secret)
	}
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(id+":"+secret))
}

// form encodes token request parameters.
func form(kv ...string) []byte {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return []byte(v.Encode())
}

const formType = "application/x-www-form-urlencoded"
