package steps

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"

	"github.com/gavv/httpexpect/v2"
)

// The places other than the Authorization header where a client library
// may put an access token (spec SVC-4): the access_token query parameter
// and form field of RFC 6750 §2.3 and §2.2, and a cookie. A request with
// the user's token there and no Authorization header is a caller's without
// a token.

// place is the pattern of the phrases that name where the token goes.
const place = `(as the query parameter "[^"]*"|in the cookie "[^"]*")`

var placePhrase = regexp.MustCompile(`^(as the query parameter|in the cookie) "([^"]*)"$`)

func (s *scenario) registerPlaceSteps(sc stepRegistry) {
	sc.Step(`^a caller sends a new event to the event list with the user's access token `+place+`$`, s.sendNewEventWithTokenAt)
	sc.Step(`^a caller lists the events with the user's access token `+place+`$`, s.listWithTokenAt)
	sc.Step(`^a caller sends a new event to the event list as a form, with the user's access token in the field "([^"]*)"$`, s.sendFormWithToken)
	sc.Step(`^a caller sends an update of the event to its address with the user's access token `+place+`, renaming it "([^"]*)"$`, s.sendUpdateWithTokenAt)
}

// withTokenAt puts the user's access token in req where the phrase says:
// a query parameter, or a cookie of the name given and of every name the
// target's answers of the scenario gave a cookie, or of the scenario that
// took a pooled token, so that a target that takes its own cookie for a
// token shows it.
func (s *scenario) withTokenAt(req *httpexpect.Request, phrase string) (*httpexpect.Request, error) {
	m := placePhrase.FindStringSubmatch(phrase)
	if m == nil {
		return nil, fmt.Errorf("no such place for a token: %q", phrase)
	}
	h, err := s.ensureToken("user")
	if err != nil {
		return nil, err
	}
	if m[1] == "as the query parameter" {
		return req.WithQuery(m[2], h.access), nil
	}
	names := []string{m[2]}
	for _, name := range append(s.rec.cookieNames(), h.cookies...) {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for _, name := range names {
		req = req.WithCookie(name, h.access)
	}
	return req, nil
}

// sendNewEventWithTokenAt posts a new event to the address of the event
// list with the user's access token where the phrase says, and no
// Authorization header.
func (s *scenario) sendNewEventWithTokenAt(phrase string) error {
	body, address, err := s.newEventToList()
	if err != nil {
		return err
	}
	req, err := s.withTokenAt(s.at(http.MethodPost, address).WithJSON(body), phrase)
	if err != nil {
		return err
	}
	return s.whenAs("a caller", kindCreated, req)
}

// sendUpdateWithTokenAt puts the event the scenario created, renamed, to
// its address with the user's access token where the phrase says, and no
// Authorization header.
func (s *scenario) sendUpdateWithTokenAt(phrase, name string) error {
	address, err := s.eventAddress()
	if err != nil {
		return err
	}
	body := s.updateBody(map[string]any{"name": name})
	s.events.sent = body
	req, err := s.withTokenAt(s.at(http.MethodPut, address).WithJSON(body), phrase)
	if err != nil {
		return err
	}
	return s.whenAs("a caller", kindUpdated, req)
}

// listWithTokenAt reads the event list with the user's access token where
// the phrase says, and no Authorization header: a caller without a token.
func (s *scenario) listWithTokenAt(phrase string) error {
	address, err := s.eventsAddress()
	if err != nil {
		return err
	}
	req, err := s.withTokenAt(s.at(http.MethodGet, address), phrase)
	if err != nil {
		return err
	}
	return s.whenAs("a caller", kindList, req)
}

// sendFormWithToken posts a new event to the address of the event list as
// a form (application/x-www-form-urlencoded, as RFC 6750 §2.2 says a token
// in the body is sent), each of its fields a form field, with the user's
// access token in the field named, and no Authorization header.
func (s *scenario) sendFormWithToken(field string) error {
	h, err := s.ensureToken("user")
	if err != nil {
		return err
	}
	body, address, err := s.newEventToList()
	if err != nil {
		return err
	}
	form := url.Values{}
	for k, v := range body {
		form.Set(k, formValue(v))
	}
	form.Set(field, h.access)
	req := s.at(http.MethodPost, address).
		WithHeader("Content-Type", "application/x-www-form-urlencoded").
		WithText(form.Encode())
	return s.whenAs("a caller", kindCreated, req)
}

// formValue is a JSON value as a form field holds it: a text as it is, a
// number or a boolean as JSON writes it.
func formValue(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// withoutTokens is the address u without the query parameters that hold
// a token of the scenario.
func (s *scenario) withoutTokens(u *url.URL) string {
	bare := *u
	q := bare.Query()
	for name, values := range q {
		for _, v := range values {
			if v != "" && slices.Contains(s.tokens.all(), v) {
				q.Del(name)
			}
		}
	}
	if len(q) != len(bare.Query()) {
		bare.RawQuery = q.Encode()
	}
	return bare.String()
}
