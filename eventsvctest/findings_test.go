package eventsvctest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"eventsvc/eventsvctest"
)

// halClient is a client of the API written as the specification asks: it
// starts at GET /api and reads every address from the links it was
// offered. A wrong client of the tests below is this one with one mistake.
type halClient struct {
	t       *testing.T
	srv     *eventsvctest.Server
	access  string
	refresh string
}

// call sends a request and returns its status, its JSON body (nil for
// another) and its headers.
func (c *halClient) call(method, address, token, contentType, body string, basic bool) (int, map[string]any, http.Header) {
	c.t.Helper()
	req, err := http.NewRequest(method, address, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if basic {
		req.SetBasicAuth(eventsvctest.ClientID, eventsvctest.ClientSecret)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	status, answer, h, _ := exchange(c.t, req)
	return status, answer, h
}

// href is the href of the link rel of an answer.
func href(t *testing.T, answer map[string]any, rel string) string {
	t.Helper()
	links, _ := answer["_links"].(map[string]any)
	l, _ := links[rel].(map[string]any)
	h, _ := l["href"].(string)
	if h == "" {
		t.Fatalf("the answer has no %s link: %v", rel, answer)
	}
	return h
}

const form = "application/x-www-form-urlencoded"

// login asks for tokens as TOK-1 and TOK-2 say: HTTP Basic, a form body.
func (c *halClient) login() {
	c.t.Helper()
	status, tokens, _ := c.call(http.MethodPost, c.srv.URL+"/oauth/token", "", form,
		url.Values{"grant_type": {"password"}, "username": {eventsvctest.User}, "password": {eventsvctest.UserPassword}}.Encode(), true)
	if status != http.StatusOK {
		c.t.Fatalf("login: %d %v", status, tokens)
	}
	c.access, c.refresh = tokens["access_token"].(string), tokens["refresh_token"].(string)
}

// list reads the list from GET /api on, with the client's token.
func (c *halClient) list() map[string]any {
	c.t.Helper()
	_, root, _ := c.call(http.MethodGet, c.srv.URL+"/api", "", "", "", false)
	_, list, _ := c.call(http.MethodGet, href(c.t, root, "events"), c.access, "", "", false)
	return list
}

// createAndUpdate creates an event through create-new-event, reads it at
// its Location and updates it through its update-event link.
func (c *halClient) createAndUpdate(list map[string]any) {
	c.t.Helper()
	body := `{"name":"Findings","description":"d","beginEnrollmentDateTime":"2030-01-01T10:00:00","closeEnrollmentDateTime":"2030-01-02T10:00:00","beginEventDateTime":"2030-01-03T10:00:00","endEventDateTime":"2030-01-04T10:00:00","location":"Room 1","basePrice":0,"maxPrice":0,"limitOfEnrollment":10}`
	status, _, h := c.call(http.MethodPost, href(c.t, list, "create-new-event"), c.access, "application/json", body, false)
	if status != http.StatusCreated {
		c.t.Fatalf("creation: %d", status)
	}
	_, created, _ := c.call(http.MethodGet, h.Get("Location"), c.access, "", "", false)
	if status, _, _ := c.call(http.MethodPut, href(c.t, created, "update-event"), c.access, "application/json", strings.Replace(body, "Findings", "Updated", 1), false); status != http.StatusOK {
		c.t.Fatalf("update: %d", status)
	}
}

// refreshed asks for a new access token with the refresh grant.
func (c *halClient) refreshed() {
	c.t.Helper()
	status, tokens, _ := c.call(http.MethodPost, c.srv.URL+"/oauth/token", "", form, url.Values{"grant_type": {"refresh_token"}, "token": {c.refresh}}.Encode(), true)
	if status != http.StatusOK {
		c.t.Fatalf("refresh: %d %v", status, tokens)
	}
	c.access = tokens["access_token"].(string)
}

// rules are the rules of findings, sorted, once each.
func rules(findings []eventsvctest.ClientFinding) []string {
	var out []string
	for _, f := range findings {
		out = append(out, f.Rule)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestAClientThatFollowsTheSpecificationLeavesNoFinding: a client that
// reads every address from links, logs in and refreshes with HTTP Basic
// and a form, and writes where links offer it, leaves no finding, with
// the test failing at its end if it did (FailOnClientFindings).
func TestAClientThatFollowsTheSpecificationLeavesNoFinding(t *testing.T) {
	srv := eventsvctest.NewServer(t, eventsvctest.Options{FailOnClientFindings: true})
	c := &halClient{t: t, srv: srv}
	c.login()
	list := c.list()
	c.createAndUpdate(list)
	c.refreshed()
	// The next page through its link, an event through the template, and
	// an event read anonymously at an address offered to a token holder.
	next := c.list()
	c.call(http.MethodGet, href(t, next, "next"), c.access, "", "", false)
	c.call(http.MethodGet, strings.Replace(href(t, next, "get-an-event"), "{id}", "3", 1), "", "", "", false)
	if f := srv.ClientFindings(t); len(f) > 0 {
		t.Errorf("a right client left findings: %v", f)
	}
}

// TestEachWrongClientLeavesAFindingOfItsRule: a client wrong in one way
// leaves a finding of the rule it breaks, and of no other; the message
// says what to do, and no token is in it.
func TestEachWrongClientLeavesAFindingOfItsRule(t *testing.T) {
	wrong := []struct {
		name, rule, says string
		do               func(c *halClient)
		anonymous        bool // the requests that show it carry no token
	}{
		{"an event's address built before any list", "API-1", "get-an-event template", func(c *halClient) {
			c.call(http.MethodGet, c.srv.URL+"/api/events/3", "", "", "", false)
		}, true},
		{"the list's address built", "API-1", "_links.events.href", func(c *halClient) {
			c.call(http.MethodGet, c.srv.URL+"/api/events", "", "", "", false)
		}, true},
		{"a page of its own size", "API-1", "page of the list", func(c *halClient) {
			c.list()
			c.call(http.MethodGet, c.srv.URL+"/api/events?page=1&size=7", "", "", "", false)
		}, true},
		{"client credentials in the body", "TOK-1", "AuthStyleInHeader", func(c *halClient) {
			c.call(http.MethodPost, c.srv.URL+"/oauth/token", "", form, url.Values{"grant_type": {"password"}, "username": {eventsvctest.User}, "password": {eventsvctest.UserPassword},
				"client_id": {eventsvctest.ClientID}, "client_secret": {eventsvctest.ClientSecret}}.Encode(), false)
		}, false},
		{"a JSON token request", "TOK-2", "form-encoded", func(c *halClient) {
			c.call(http.MethodPost, c.srv.URL+"/oauth/token", "", "application/json", `{"grant_type":"password","username":"user@email.com","password":"user"}`, true)
		}, false},
		{"the access token in a query parameter", "SVC-4", `query parameter "access_token"`, func(c *halClient) {
			list := c.list()
			c.call(http.MethodGet, href(c.t, list, "self")+"&access_token="+c.access, "", "", "", false)
		}, false},
		{"the access token in a cookie", "SVC-4", `cookie "jwt"`, func(c *halClient) {
			list := c.list()
			req, _ := http.NewRequest(http.MethodGet, href(c.t, list, "self"), nil)
			req.AddCookie(&http.Cookie{Name: "jwt", Value: c.access})
			req.AddCookie(&http.Cookie{Name: "theme", Value: "dark-and-long-enough-to-look"})
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}, false},
		{"the access token in a form field", "SVC-4", `form field "access_token"`, func(c *halClient) {
			list := c.list()
			c.call(http.MethodPost, href(c.t, list, "create-new-event"), c.access, form, url.Values{"access_token": {c.access}, "name": {"x"}}.Encode(), false)
		}, false},
		{"a client secret in the token request's query", "TOK-1", "client_secret", func(c *halClient) {
			c.call(http.MethodPost, c.srv.URL+"/oauth/token?client_id=myApp&client_secret="+eventsvctest.ClientSecret, "", form,
				url.Values{"grant_type": {"password"}, "username": {eventsvctest.User}, "password": {eventsvctest.UserPassword}}.Encode(), false)
		}, false},
		{"the refresh token sent to the API", "TOK-13", "refresh token", func(c *halClient) {
			c.access = c.refresh
			c.list()
		}, true},
		{"an update of an event not offered to the caller", "AUTH-6", "update-event", func(c *halClient) {
			list := c.list()
			other := strings.Replace(href(c.t, list, "get-an-event"), "{id}", "1", 1) // the admin's
			c.call(http.MethodGet, other, c.access, "", "", false)
			c.call(http.MethodPut, other, c.access, "application/json", `{"name":"x"}`, false)
		}, false},
		{"an update without reading the event", "API-8", "update-event", func(c *halClient) {
			list := c.list()
			c.call(http.MethodPut, strings.Replace(href(c.t, list, "get-an-event"), "{id}", "2", 1), c.access, "application/json", `{"name":"x"}`, false)
		}, false},
		{"a creation before any list offered it", "API-4", "create-new-event", func(c *halClient) {
			_, root, _ := c.call(http.MethodGet, c.srv.URL+"/api", "", "", "", false)
			c.call(http.MethodPost, href(c.t, root, "events"), c.access, "application/json", `{"name":"x"}`, false)
		}, false},
	}
	for _, w := range wrong {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			srv := eventsvctest.NewServer(t, eventsvctest.Options{})
			c := &halClient{t: t, srv: srv}
			c.login()
			access, refresh := c.access, c.refresh
			w.do(c)
			findings := srv.ClientFindings(t)
			if got := rules(findings); !slices.Equal(got, []string{w.rule}) {
				t.Fatalf("findings of %v, want %s alone: %v", got, w.rule, findings)
			}
			f := findings[0]
			if !strings.Contains(f.Message, w.says) || f.Count < 1 || len(f.Exchanges) == 0 {
				t.Errorf("the finding does not say %q, or lacks its exchanges: %+v", w.says, f)
			}
			if w.anonymous == (f.ClientID != "") {
				t.Errorf("the finding's client is %q; anonymous: %v", f.ClientID, w.anonymous)
			}
			text, _ := json.Marshal(findings)
			for _, secret := range []string{access, refresh, "password=", "client_secret=" + eventsvctest.ClientSecret} {
				if strings.Contains(string(text), secret) {
					t.Errorf("a finding shows a secret: %s", text)
				}
			}
			if got := srv.ClientFindings(t, "API-0"); len(got) != 0 {
				t.Errorf("the filter by rule picks %v", got)
			}
			if srv.ClearClientFindings(t) != len(findings) || len(srv.ClientFindings(t)) != 0 {
				t.Errorf("DELETE /findings left findings")
			}
		})
	}
}

// errorRecorder is a cleanupRecorder that records what it is told to
// fail with rather than failing.
type errorRecorder struct {
	*cleanupRecorder
	errors []string
}

func (r *errorRecorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// TestFailOnClientFindingsFailsTheTestWithTheFindings: with the option,
// a test whose client built an address fails at its end, with the
// finding in its message; without findings it does not fail.
func TestFailOnClientFindingsFailsTheTestWithTheFindings(t *testing.T) {
	for _, wrong := range []bool{false, true} {
		r := &errorRecorder{cleanupRecorder: &cleanupRecorder{TB: t}}
		srv := eventsvctest.NewServer(r, eventsvctest.Options{FailOnClientFindings: true})
		c := &halClient{t: t, srv: srv}
		c.list()
		if wrong {
			c.call(http.MethodGet, srv.URL+"/api/events?size=3", "", "", "", false)
		}
		r.end()
		switch {
		case !wrong && len(r.errors) > 0:
			t.Errorf("a right client failed the test: %v", r.errors)
		case wrong && (len(r.errors) != 1 || !strings.Contains(r.errors[0], "API-1 (an anonymous caller, 1 times; first GET /api/events?size=3 → 200)")):
			t.Errorf("a client that built an address failed the test with %q", r.errors)
		}
	}
}

// TestWhatWasOfferedOutlivesAReset: POST /reset forgets the findings, not
// the links the server offered, which a HAL client keeps: an event read
// through the template read before the reset is no finding.
func TestWhatWasOfferedOutlivesAReset(t *testing.T) {
	srv := eventsvctest.NewServer(t, eventsvctest.Options{FailOnClientFindings: true})
	c := &halClient{t: t, srv: srv}
	template := href(t, c.list(), "get-an-event")
	c.call(http.MethodGet, srv.URL+"/api/events?size=3", "", "", "", false)
	srv.Reset(t)
	if f := srv.ClientFindings(t); len(f) != 0 {
		t.Fatalf("a reset left findings: %v", f)
	}
	c.call(http.MethodGet, strings.Replace(template, "{id}", "3", 1), "", "", "", false)
}
