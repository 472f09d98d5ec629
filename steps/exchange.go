package steps

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/gavv/httpexpect/v2"

	"eventsvc/conformance/hal"
)

// exchange is one request the suite sent and the answer it got, read once:
// its status, headers, body, the body decoded as JSON when it is JSON, and
// the masked transcript shown with a failure about it.
//
// "The answer" of a scenario is the exchange of its last When step
// (scenario.answer); the helpers that need a request of their own (is this
// token accepted? was an event created?) send probes, which never replace
// it.
type exchange struct {
	url        *url.URL // the address asked
	method     string
	who        string // the actor phrase it was sent for; "" for a probe that says nothing of it
	kind       string // what the answer is, when the step that sent it knows (the kinds below)
	cookies    bool   // the request carried the cookies received before
	status     int
	header     http.Header
	body       string
	json       any    // the decoded body, when the answer is JSON
	jsonErr    error  // why json is nil
	transcript string // the request and the answer, masked
	at         int    // its index in the scenario's log (recorder.log)
}

// What an answer is, as the step that asked for it knows: the kinds of
// answer whose links depend on the caller (spec SVC-3).
const (
	kindList    = "a page of the event list"
	kindEvent   = "an event"
	kindCreated = "the answer to a creation"
	kindUpdated = "the answer to an update"
)

// send sends req and reads its answer. An error means no answer came, or
// not a whole one (a readError).
func (s *scenario) send(req *httpexpect.Request) (*exchange, error) { return s.sendVia(s.rec, req) }

// sendBy sends req on who's behalf (as).
func (s *scenario) sendBy(who string, req *httpexpect.Request) (*exchange, error) {
	req, err := s.as(who, req)
	if err != nil {
		return nil, err
	}
	return s.send(req)
}

// sendVia is send for a request of rec's (scenario.expect).
func (s *scenario) sendVia(rec *recorder, req *httpexpect.Request) (*exchange, error) {
	resp := req.Expect()
	transcript, at, failure, readErr := rec.take()
	if readErr != nil {
		return nil, &exchangeError{at: at, err: readErr}
	}
	if failure != "" {
		return nil, &exchangeError{at: at, err: fmt.Errorf("no answer: %s\n\n%s", failure, transcript)}
	}
	raw := resp.Raw()
	x := &exchange{
		url: raw.Request.URL, method: raw.Request.Method, status: raw.StatusCode,
		header: raw.Header, body: resp.Body().Raw(), transcript: transcript, at: at,
		cookies: s.jar != nil && s.jar.send.Load(),
	}
	x.json, x.jsonErr = decodeJSON(x.header.Get("Content-Type"), x.body)
	return x, nil
}

// when sends req as the request of a When step: its exchange becomes the
// answer that the following steps check.
func (s *scenario) when(req *httpexpect.Request) error {
	x, err := s.send(req)
	if err != nil {
		return err
	}
	s.answer = x
	return nil
}

// whenAs sends req on who's behalf (an actor phrase) as the request of a
// When step, for an answer of the kind given ("" when the step does not
// know).
func (s *scenario) whenAs(who, kind string, req *httpexpect.Request) error {
	req, err := s.as(who, req)
	if err != nil {
		return err
	}
	if err := s.when(req); err != nil {
		return err
	}
	s.answer.who, s.answer.kind = who, kind
	return nil
}

// theAnswer returns the answer of the last When step.
func (s *scenario) theAnswer() (*exchange, error) {
	if s.answer == nil {
		return nil, errors.New("no request has been sent yet in this scenario")
	}
	return s.answer, nil
}

// onTheAnswer checks the answer of the last When step with check.
func (s *scenario) onTheAnswer(check func(*exchange) error) error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	return check(x)
}

// answerObject returns the answer of the last When step and its body as a
// JSON object.
func (s *scenario) answerObject() (*exchange, map[string]any, error) {
	x, err := s.theAnswer()
	if err != nil {
		return nil, nil, err
	}
	obj, err := x.object()
	return x, obj, s.about(x, err)
}

// errNotJSON says that an answer is not JSON.
var errNotJSON = errors.New("the answer is not JSON")

// decodeJSON decodes a JSON body. Any JSON media type will do,
// application/json or any +json type, with any parameters.
func decodeJSON(contentType, body string) (any, error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		return nil, fmt.Errorf("%w: Content-Type %q", errNotJSON, contentType)
	}
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		return nil, fmt.Errorf("%w: %v", errNotJSON, err)
	}
	return v, nil
}

// object returns the answer's body as a JSON object.
func (x *exchange) object() (map[string]any, error) {
	if x.jsonErr != nil {
		return nil, x.jsonErr
	}
	obj, ok := x.json.(map[string]any)
	if !ok {
		return nil, errors.New("the answer is not a JSON object")
	}
	return obj, nil
}

// field returns a property of the answer's JSON object.
func (x *exchange) field(name string) (any, error) {
	obj, err := x.object()
	if err != nil {
		return nil, err
	}
	v, ok := obj[name]
	if !ok {
		return nil, fmt.Errorf("the answer has no %q", name)
	}
	return v, nil
}

// text returns a string property of the answer's JSON object.
func (x *exchange) text(name string) (string, error) {
	v, err := x.field(name)
	if err != nil {
		return "", err
	}
	str, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%q is %v, not a string", name, v)
	}
	return str, nil
}

// links returns the hrefs of the answer's "_links", by relation name. An
// entry that is an array of links gives its first link.
func (x *exchange) links() map[string]string {
	obj, _ := x.json.(map[string]any)
	return hal.Links(obj)
}

// link returns the address of rel, resolved against the answer's address.
func (x *exchange) link(rel string) (string, error) {
	href, ok := x.links()[rel]
	if !ok {
		return "", fmt.Errorf("the answer offers no %q link; it offers %s", rel, hal.RelNames(x.links()))
	}
	return x.resolve(href), nil
}

// resolve turns an href of the answer into an absolute address (RFC 3986
// §5, spec API-10): relative hrefs are resolved against the address of the
// answer that carried them.
func (x *exchange) resolve(href string) string { return hal.Resolve(x.url, href) }

// repeats reports whether the answer's headers or body hold secret.
func (x *exchange) repeats(secret string) bool {
	if secret == "" {
		return false
	}
	var head strings.Builder
	_ = x.header.Write(&head)
	return strings.Contains(head.String(), secret) || strings.Contains(x.body, secret)
}
