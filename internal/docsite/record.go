package docsite

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"eventsvc/server"
	"eventsvc/server/clock"
	"eventsvc/server/config"
	"eventsvc/server/servertest"
)

// DisplayBase is the address the examples show: the one `make run` serves.
const DisplayBase = "http://localhost:8080"

// Exchange is one request to the reference server and its answer, as the
// documentation shows them: tokens replaced by placeholders, the address
// by DisplayBase, and no Date header.
type Exchange struct {
	Anchor   string // the section it belongs to
	Title    string
	Curl     string
	Request  string
	Response string
}

// recorder sends the example requests and writes them down.
type recorder struct {
	base         string
	client       *http.Client
	placeholders map[string]string // secret value → placeholder
	exchanges    []Exchange
}

// Record starts a reference server on a loopback port with the demo
// credentials and a clock that does not move, sends the documentation's
// example requests, stops the server, and returns the requests with their
// answers.
func Record() ([]Exchange, error) {
	cfg, err := config.Demo()
	if err != nil {
		return nil, err
	}
	srv, err := servertest.Start(server.New(server.Options{Config: cfg, Clock: clock.NewManual(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))}))
	if err != nil {
		return nil, err
	}
	r := &recorder{
		base:         srv.URL,
		client:       &http.Client{Timeout: 30 * time.Second},
		placeholders: map[string]string{},
	}
	err = r.script()
	r.client.CloseIdleConnections()
	if cerr := srv.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return r.exchanges, nil
}

// request is one example request.
type request struct {
	anchor, title string
	method, path  string
	basic         [2]string // client id and secret
	token         string
	form          url.Values
	json          string
	tokens        [2]string // for a token response: the placeholder names of its access and refresh token
}

// script is the sequence of examples, each in the section it illustrates.
func (r *recorder) script() error {
	user := url.Values{"grant_type": {"password"}, "username": {"user@email.com"}, "password": {"user"}}
	tokens, err := r.send(request{anchor: "overview-authentication", title: "The password grant: a user's email and password for tokens",
		method: "POST", path: "/oauth/token", basic: [2]string{"myApp", "pass"}, form: user,
		tokens: [2]string{"ACCESS_TOKEN", "REFRESH_TOKEN"}})
	if err != nil {
		return err
	}
	access, refresh := tokenPair(tokens)
	other, err := r.send(request{anchor: "overview-authentication", title: "The same for the other demo user",
		method: "POST", path: "/oauth/token", basic: [2]string{"myApp", "pass"},
		form:   url.Values{"grant_type": {"password"}, "username": {"admin@email.com"}, "password": {"admin"}},
		tokens: [2]string{"OTHER_ACCESS_TOKEN", "OTHER_REFRESH_TOKEN"}})
	if err != nil {
		return err
	}
	otherAccess, _ := tokenPair(other)

	event := func(name string) string {
		return `{"name": "` + name + `", "description": "An evening of talks", "beginEnrollmentDateTime": "2026-11-23T10:00:00", "closeEnrollmentDateTime": "2026-11-24T10:00:00", "beginEventDateTime": "2026-11-25T18:00:00", "endEventDateTime": "2026-11-25T21:00:00", "location": "Main hall", "basePrice": 10, "maxPrice": 50, "limitOfEnrollment": 100}`
	}
	steps := []request{
		{anchor: "resources-index-access", title: "The API root", method: "GET", path: "/api"},
		{anchor: "resources-events-create", title: "Creating an event", method: "POST", path: "/api/events", token: access, json: event("Go meetup")},
		{anchor: "", title: "", method: "POST", path: "/api/events", token: access, json: event("API design workshop")},
		{anchor: "", title: "", method: "POST", path: "/api/events", token: access, json: event("OAuth 2.0 deep dive")},
		{anchor: "resources-events-list", title: "The first page of the list, two events a page, for an anonymous caller", method: "GET", path: "/api/events?page=0&size=2"},
		{anchor: "resources-events-list", title: "The same page for a caller with a token: it may create events", method: "GET", path: "/api/events?page=0&size=2", token: access},
		{anchor: "resources-events-get", title: "An event, read by its manager", method: "GET", path: "/api/events/1", token: access},
		{anchor: "resources-events-get", title: "The same event, read by anyone else", method: "GET", path: "/api/events/1"},
		{anchor: "resources-events-update", title: "Its manager updates the event", method: "PUT", path: "/api/events/1", token: access, json: event("Go meetup, winter edition")},
		{anchor: "overview-authentication", title: "The refresh grant: a new access token", method: "POST", path: "/oauth/token", basic: [2]string{"myApp", "pass"}, form: url.Values{"grant_type": {"refresh_token"}, "token": {refresh}}, tokens: [2]string{"NEW_ACCESS_TOKEN", "REFRESH_TOKEN"}},
		{anchor: "overview-errors", title: "Another user may not update the event", method: "PUT", path: "/api/events/1", token: otherAccess, json: event("Taken over")},
		{anchor: "overview-errors", title: "A write without a token", method: "POST", path: "/api/events", json: event("Anonymous")},
		{anchor: "overview-errors", title: "An invalid event", method: "POST", path: "/api/events", token: access, json: `{"name": "", "description": "d", "beginEnrollmentDateTime": "2026-11-23T10:00:00", "closeEnrollmentDateTime": "2026-11-24T10:00:00", "beginEventDateTime": "2026-11-25T18:00:00", "endEventDateTime": "2026-11-20T21:00:00", "basePrice": 300, "maxPrice": 200}`},
		{anchor: "overview-errors", title: "The authorization endpoint: no client may use a redirect-based grant", method: "GET", path: "/oauth/authorize?response_type=code&client_id=myApp&redirect_uri=http%3A%2F%2Flocalhost%3A9000%2Fcallback"},
		{anchor: "overview-errors", title: "A wrong password at the token endpoint", method: "POST", path: "/oauth/token", basic: [2]string{"myApp", "pass"}, form: url.Values{"grant_type": {"password"}, "username": {"user@email.com"}, "password": {"wrong"}}},
	}
	for _, s := range steps {
		if _, err := r.send(s); err != nil {
			return err
		}
	}
	return nil
}

// tokenPair reads the tokens of a token response.
func tokenPair(body []byte) (access, refresh string) {
	var t struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
	}
	_ = json.Unmarshal(body, &t)
	return t.AccessToken, t.RefreshToken
}

// send sends one request and records it unless it has no title.
func (r *recorder) send(q request) ([]byte, error) {
	var body []byte
	req, err := http.NewRequest(q.method, r.base+q.path, nil)
	if err != nil {
		return nil, err
	}
	switch {
	case q.form != nil:
		body = []byte(q.form.Encode())
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	case q.json != "":
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, []byte(q.json), "", "  "); err != nil {
			return nil, fmt.Errorf("example %q: %w", q.title, err)
		}
		body = pretty.Bytes()
		req.Header.Set("Content-Type", "application/json")
	}
	if body != nil {
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
	}
	if q.basic[0] != "" {
		req.SetBasicAuth(q.basic[0], q.basic[1])
	}
	if q.token != "" {
		req.Header.Set("Authorization", "Bearer "+q.token)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("example %q: %w", q.title, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if q.tokens[0] != "" {
		access, refresh := tokenPair(answer)
		if access == "" {
			return nil, fmt.Errorf("example %q: no token in the answer: %s", q.title, answer)
		}
		r.placeholders[access] = "<" + q.tokens[0] + ">"
		r.placeholders[refresh] = "<" + q.tokens[1] + ">"
	}
	if q.title != "" {
		r.exchanges = append(r.exchanges, Exchange{
			Anchor:   q.anchor,
			Title:    q.title,
			Curl:     r.clean(curl(q, body)),
			Request:  r.clean(requestText(req, body)),
			Response: r.clean(responseText(resp, answer)),
		})
	}
	return answer, nil
}

// clean puts placeholders in place of tokens and DisplayBase in place of
// the loopback address.
func (r *recorder) clean(s string) string {
	s = strings.ReplaceAll(s, r.base, DisplayBase)
	s = strings.ReplaceAll(s, strings.TrimPrefix(r.base, "http://"), strings.TrimPrefix(DisplayBase, "http://"))
	for secret, placeholder := range r.placeholders {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, placeholder)
		}
	}
	return s
}

func curl(q request, body []byte) string {
	var b strings.Builder
	b.WriteString("curl -i")
	if q.method != "GET" {
		b.WriteString(" -X " + q.method)
	}
	if q.basic[0] != "" {
		b.WriteString(" -u " + q.basic[0] + ":" + q.basic[1])
	}
	if q.token != "" {
		b.WriteString(` \` + "\n     -H 'Authorization: Bearer " + q.token + "'")
	}
	if q.json != "" {
		b.WriteString(` \` + "\n     -H 'Content-Type: application/json' -d '" + strings.Join(strings.Fields(string(body)), " ") + "'")
	}
	for _, k := range slices.Sorted(maps.Keys(q.form)) {
		b.WriteString(` \` + "\n     -d " + k + "=" + url.QueryEscape(q.form.Get(k)))
	}
	b.WriteString(` \` + "\n     '" + DisplayBase + q.path + "'")
	return b.String()
}

func requestText(req *http.Request, body []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\n", req.Method, req.URL.RequestURI())
	fmt.Fprintf(&b, "Host: %s\n", req.URL.Host)
	for _, k := range slices.Sorted(maps.Keys(req.Header)) {
		v := req.Header.Get(k)
		if k == "Authorization" && strings.HasPrefix(v, "Basic ") {
			raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(v, "Basic "))
			v += "   (" + string(raw) + ")"
		}
		fmt.Fprintf(&b, "%s: %s\n", k, v)
	}
	if len(body) > 0 {
		fmt.Fprintf(&b, "\n%s\n", body)
	}
	return b.String()
}

func responseText(resp *http.Response, body []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP/1.1 %s\n", resp.Status)
	for _, k := range slices.Sorted(maps.Keys(resp.Header)) {
		if k == "Date" || k == "Content-Length" {
			continue
		}
		for _, v := range resp.Header[k] {
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	if len(body) > 0 {
		var pretty bytes.Buffer
		if json.Indent(&pretty, body, "", "  ") == nil {
			body = pretty.Bytes()
		}
		fmt.Fprintf(&b, "\n%s\n", body)
	}
	return b.String()
}
