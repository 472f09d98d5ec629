// Package target is the deployment a run checks and how the run reaches
// it: its configuration and the services built once for it (Target: the
// address, the credentials, the transport, the audit, the shared
// addresses and tokens), the connections' settings (a private CA, a
// proxy), the watch on its answers that waits out a short 429 and notes
// throttling and outages, and the preflight that checks the target and
// the run's credentials before any check runs. The scenario runner, the
// steps and the explorer share them; none of them is imported here.
package target

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"eventsvc/conformance/cutoff"
	"eventsvc/conformance/deadlink"
	"eventsvc/conformance/origin"
	"eventsvc/internal/redact"
)

// ErrPreflight is wrapped by the errors of Preflight.
var ErrPreflight = errors.New("preflight")

// Preflight checks, before any scenario runs, that a remote target is this
// API, that it is well and not throttling, that it takes the run's
// credentials and, when the run writes, the run's event body,
// so that a setup problem gives one line that names its cause instead of a
// page of rule failures. Its messages hold no secret, and it sends
// credentials to the target's origin only, telling target.Origins of any
// other origin the target's links lead it to. A 429 is returned as a
// *ThrottledError inside the error. It returns the target, with
// Credentials.BasicAsIs set when the target takes the client credentials
// only as they are, not form-encoded (RFC 6749 §2.3.1).
func Preflight(target Target, writes bool) (Target, error) {
	if target.BaseURL == "" {
		return target, nil
	}
	p := newPreflight(target)
	demands, err := p.apiRoot("")
	if err != nil && !demands {
		return target, err // no credential is sent to what is not the API
	}
	user, other := p.accounts()
	token, terr := p.token(user)
	if demands && terr == nil {
		// A root that demands a token, and answers once one is sent,
		// is the API, breaking API-1: the scenarios of API-1 tell it.
		if _, err := p.apiRoot(token); err != nil {
			return target, err
		}
	} else if demands {
		return target, err
	}
	err = terr
	c := target.Credentials
	encodingChanges := url.QueryEscape(c.ClientID) != c.ClientID || url.QueryEscape(c.ClientSecret) != c.ClientSecret
	if err != nil && encodingChanges && !c.BasicAsIs && errors.Is(err, errRefused) {
		p.target.Credentials.BasicAsIs = true
		if t, aerr := p.token(user); aerr == nil {
			target, token, err = p.target, t, nil
		} else {
			p.target.Credentials.BasicAsIs = false
		}
	}
	if err != nil {
		return target, err
	}
	// The client and the user are taken: the other user's token is asked
	// for while the run's event body is tried, each request on a
	// connection of its own, closed after its answer (token). The other
	// user's refusal is told first.
	var otherErr, bodyErr error
	var wg sync.WaitGroup
	wg.Go(func() { _, otherErr = p.token(other) })
	wg.Go(func() {
		resp, raw, err := p.eventsLink(token)
		if err == nil && writes && !p.eventsDead {
			err = p.eventBody(token, resp, raw)
		}
		bodyErr = err
	})
	wg.Wait()
	if otherErr != nil {
		return target, otherErr
	}
	return target, bodyErr
}

// errRefused marks a refusal of the run's credentials by the token
// endpoint.
var errRefused = errors.New("credentials refused")

// refusal is a preflight error that is a refusal of the credentials.
type refusal struct{ error }

func (refusal) Is(target error) bool { return target == errRefused }
func (r refusal) Unwrap() error      { return r.error }

type preflight struct {
	target Target
	// eventsDead is true when the events link of the API root leads
	// nowhere (deadlink): the run goes on, and tells it as API-10.
	eventsDead bool
	client     *http.Client
	guard      *origin.Guard // the client's transport
	timeout    time.Duration // how long a request may take
	redactor   *redact.Redactor
	events     string // the address of the event list, from GET /api
}

func newPreflight(target Target) *preflight {
	timeout := target.Timeout
	if timeout == 0 {
		timeout = cutoff.DefaultTimeout
	}
	// Credentials go to the target's origin only, whatever origin the
	// event list's links name.
	guard := &origin.Guard{Target: target.BaseURL, Base: target.Transport, Log: target.Origins}
	guarded := target
	guarded.Transport = guard
	return &preflight{
		target:   target,
		guard:    guard,
		client:   guarded.Client(),
		timeout:  timeout,
		redactor: redact.New(target.Credentials.Secrets()...),
	}
}

func (p *preflight) failf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrPreflight, p.redactor.String(fmt.Sprintf(format, args...)))
}

// do sends req and reads the answer, within the target's bounds. A
// network error is told with what to check.
func (p *preflight) do(req *http.Request) (*http.Response, []byte, error) {
	resp, err := p.client.Do(req)
	if err != nil && !p.target.DeadLinks.Within(req.URL) {
		return nil, nil, p.failf("cannot reach %s, an address a link of the target offers outside BASE_URL: %s", origin.Of(req.URL), networkHint(err, p.timeout))
	}
	if err != nil {
		return nil, nil, p.failf("cannot reach %s: %s", p.target.BaseURL, networkHint(err, p.timeout))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	var cut *cutoff.CutError
	switch {
	case errors.As(err, &cut):
		return nil, nil, p.failf("%v", cut)
	case err != nil:
		return nil, nil, p.failf("%s %s: the answer (%s) could not be read whole: %v", req.Method, req.URL.Path, resp.Status, err)
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		throttled := &ThrottledError{Method: req.Method, Path: req.URL.Path, RetryAfter: resp.Header.Get("Retry-After")}
		return nil, nil, fmt.Errorf("%w: %w: the target is throttling (it may lock out an account after failed logins); wait for it to let the client and users in again, then run again", ErrPreflight, throttled)
	}
	if resp.StatusCode >= 500 {
		return nil, nil, p.failf("the target is failing: %s %s answered %s%s", req.Method, req.URL.Path, resp.Status, excerpt(p.redactor.String(string(body))))
	}
	return resp, body, nil
}

// networkHint is a network error with what to check.
func networkHint(err error, timeout time.Duration) string {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var netErr net.Error
	switch {
	case errors.As(err, &unknownCA):
		return fmt.Sprintf("%v (for a deployment behind a private CA, give its certificate with -ca-file or CONFORMANCE_CA_FILE)", err)
	case errors.As(err, &hostname):
		return fmt.Sprintf("%v (the certificate is not for this host name)", err)
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		return fmt.Sprintf("no answer within %s (-timeout or CONFORMANCE_TIMEOUT sets how long a request may take)", timeout)
	}
	return err.Error()
}

func excerpt(body string) string {
	body = strings.TrimSpace(body)
	if body == "" {
		return ""
	}
	if len(body) > 1000 {
		body = body[:1000] + "…"
	}
	return ": " + strings.Join(strings.Fields(body), " ")
}

// apiRoot reads GET /api, which must link to the events, with token
// when it is not "". demands is true, with the error, when the root
// answered 401 or 403 without a token and challenged for a bearer one:
// it may be the API, breaking API-1, which a token then tells.
func (p *preflight) apiRoot(token string) (demands bool, err error) {
	root := p.target.BaseURL + "/api"
	req, err := http.NewRequest(http.MethodGet, root, nil)
	if err != nil {
		return false, p.failf("%v", err)
	}
	req.Header.Set("Accept", "application/hal+json, application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, body, err := p.do(req)
	if err != nil {
		return false, err
	}
	var doc struct {
		Links struct {
			Events struct {
				Href string `json:"href"`
			} `json:"events"`
		} `json:"_links"`
	}
	jerr := json.Unmarshal(body, &doc)
	if resp.StatusCode == http.StatusOK && jerr == nil && doc.Links.Events.Href != "" {
		ref, err := url.Parse(doc.Links.Events.Href)
		if err != nil {
			return false, p.failf("GET %s: the events link %q is not an address", root, doc.Links.Events.Href)
		}
		events := resp.Request.URL.ResolveReference(ref)
		p.events = events.String()
		p.target.DeadLinks.Offered(events, "events", "GET "+req.URL.EscapedPath())
		return false, nil
	}
	what := "an answer without _links.events"
	if resp.StatusCode != http.StatusOK {
		what = resp.Status
	}
	hint := "BASE_URL is the address under which the API root /api is served"
	if u, err := url.Parse(p.target.BaseURL); err == nil && u.Path != "" && u.Path != "/" {
		if strings.HasSuffix(u.Path, "/api") {
			hint = fmt.Sprintf("BASE_URL ends in /api, and the suite adds /api itself: try %s", strings.TrimSuffix(p.target.BaseURL, "/api"))
		} else {
			hint = fmt.Sprintf("BASE_URL has the path %s: it must be the address under which /api is served, so that GET BASE_URL/api is the API root", u.Path)
		}
	}
	if token != "" {
		return false, p.failf("%s is not the Event Service API: GET %s gave %s without a token, and %s with the user's (%s)", p.target.BaseURL, root, "a refusal", what, hint)
	}
	// A refusal that challenges for a bearer token (RFC 6750 §3) is a
	// resource server's: the run's token is asked for of it, at
	// BASE_URL's token endpoint, and no credential goes to anything else.
	demands = (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) &&
		strings.HasPrefix(strings.ToLower(strings.TrimSpace(resp.Header.Get("WWW-Authenticate"))), "bearer")
	if page := deadlink.ProxyPage(resp.StatusCode, resp.Header); page != "" {
		hint += "; " + page
	}
	return demands, p.failf("%s is not the Event Service API: GET %s gave %s (%s)", p.target.BaseURL, root, what, hint)
}

// eventsLink reads the list the API root's events link names, with the
// user's token, and returns the answer. When nothing of the API answers
// there (deadlink), it returns none: the run goes on, and tells it as
// API-10, once; the scenarios that need the list are not checked, for
// that reason.
func (p *preflight) eventsLink(token string) (*http.Response, []byte, error) {
	req, err := http.NewRequest(http.MethodGet, p.events, nil)
	if err != nil {
		return nil, nil, p.failf("%v", err)
	}
	req.Header.Set("Accept", "application/hal+json, application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Close = true // sent beside the other user's token request: see Preflight
	resp, raw, err := p.do(req)
	if p.target.DeadLinks.DeadAt(p.events) != nil {
		p.eventsDead = true
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	switch resp.StatusCode {
	case http.StatusOK, http.StatusUnauthorized, http.StatusForbidden:
		return resp, raw, nil // the list, or a refusal the scenarios of API-2, API-4 and SVC-5 tell
	}
	if resp.StatusCode/100 == 2 {
		return resp, raw, nil
	}
	p.eventsDead = true
	rootPath := "/api"
	if u, err := url.Parse(p.target.BaseURL); err == nil {
		rootPath = u.EscapedPath() + "/api"
	}
	p.target.DeadLinks.NoteDead(&deadlink.Link{Address: p.events, Rel: "events", From: "GET " + rootPath,
		Method: http.MethodGet, Status: resp.StatusCode, Header: resp.Header.Clone(), Body: string(raw[:min(len(raw), 512)]),
		Answer: fmt.Sprintf("%s answered, not a page of the event list", resp.Status)})
	return nil, nil, nil
}

// accounts are the run's user and other user.
func (p *preflight) accounts() (user, other account) {
	c := p.target.Credentials
	return account{"user", c.Username, c.Password, "CONFORMANCE_USERNAME / CONFORMANCE_PASSWORD"},
		account{"other user", c.OtherUsername, c.OtherPass, "CONFORMANCE_OTHER_USERNAME / CONFORMANCE_OTHER_PASSWORD"}
}

// account is one of the run's accounts, and the variables that name it.
type account struct{ name, user, pass, vars string }

// token asks for a token of who with the password grant, on a connection
// of its own, closed after its answer: a request sent beside another
// then never leaves a connection it dialled open and unused in the
// client's pool, which would hold up a server that shuts down gracefully
// (it waits for a connection that never sent a byte).
func (p *preflight) token(who account) (string, error) {
	c := p.target.Credentials
	form := url.Values{"grant_type": {"password"}, "username": {who.user}, "password": {who.pass}}
	req, err := http.NewRequest(http.MethodPost, p.target.BaseURL+"/oauth/token", strings.NewReader(form.Encode()))
	if err != nil {
		return "", p.failf("%v", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Close = true // sent beside the event body's requests: see Preflight
	if c.BasicAsIs {
		req.SetBasicAuth(c.ClientID, c.ClientSecret)
	} else {
		req.SetBasicAuth(url.QueryEscape(c.ClientID), url.QueryEscape(c.ClientSecret))
	}
	resp, raw, err := p.do(req)
	if err != nil {
		return "", err
	}
	var body struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error"`
	}
	_ = json.Unmarshal(raw, &body)
	if resp.StatusCode == http.StatusOK && body.AccessToken != "" {
		p.redactor.Add(body.AccessToken)
		return body.AccessToken, nil
	}
	detail := fmt.Sprintf("status %d", resp.StatusCode)
	if body.Error != "" {
		detail += fmt.Sprintf(", error %q", body.Error)
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || body.Error == "invalid_client" || body.Error == "unauthorized_client":
		return "", refusal{p.failf("%s refused the client %q (%s): check CONFORMANCE_CLIENT_ID / CONFORMANCE_CLIENT_SECRET; the client needs the password and refresh_token grants",
			p.target.BaseURL, c.ClientID, detail)}
	case body.Error == "invalid_grant":
		return "", refusal{p.failf("%s refused the %s %q (%s): check %s", p.target.BaseURL, who.name, who.user, detail, who.vars)}
	case resp.StatusCode == http.StatusOK:
		return "", p.failf("%s answered the %s's password grant without an access_token", p.target.BaseURL, who.name)
	default:
		return "", refusal{p.failf("%s refused the %s's password grant (%s): check CONFORMANCE_CLIENT_ID / CONFORMANCE_CLIENT_SECRET and %s",
			p.target.BaseURL, who.name, detail, who.vars)}
	}
}

// eventBody creates one event with the run's body, as the user, through
// the create-new-event link of the list the user read (resp, its body
// raw). The event is named with the run mark.
func (p *preflight) eventBody(token string, resp *http.Response, raw []byte) error {
	source := "CONFORMANCE_EVENT_FILE"
	body := p.target.EventBody
	if len(body) == 0 {
		source, body = "the default event body (set CONFORMANCE_EVENT_FILE to a body your deployment accepts)", []byte(DefaultEventBody)
	}
	req := resp.Request
	var list struct {
		Links map[string]json.RawMessage `json:"_links"`
	}
	_ = json.Unmarshal(raw, &list)
	var create struct {
		Href string `json:"href"`
	}
	_ = json.Unmarshal(list.Links["create-new-event"], &create)
	if resp.StatusCode != http.StatusOK || create.Href == "" {
		hint := "check that the client has the scope write and access to the API's resource, or run read-only (-read-only, READ_ONLY=1)"
		if elsewhere := p.elsewhere("the event list", req); elsewhere != "" {
			hint = elsewhere
		} else if resp.StatusCode/100 != 2 {
			hint = fmt.Sprintf("the list, which anyone may read (API-2), answered %s to the user's token", resp.Status)
		}
		return p.failf("%s does not offer the user %q a create-new-event link on the event list (GET %s gave %s): the scenarios that write cannot run; %s",
			p.target.BaseURL, p.target.Credentials.Username, p.events, resp.Status, hint)
	}
	ref, err := url.Parse(create.Href)
	if err != nil {
		return p.failf("the create-new-event link %q is not an address", create.Href)
	}
	var event map[string]any
	if err := json.Unmarshal(body, &event); err != nil {
		return p.failf("%s: %v", source, err)
	}
	event["name"] = "Conformance preflight [conformance " + p.target.RunID + " preflight]"
	b, _ := json.Marshal(event)
	createURL := resp.Request.URL.ResolveReference(ref)
	p.target.DeadLinks.Offered(createURL, "create-new-event", "GET "+resp.Request.URL.EscapedPath())
	post, err := http.NewRequest(http.MethodPost, createURL.String(), bytes.NewReader(b))
	if err != nil {
		return p.failf("%v", err)
	}
	post.Header.Set("Authorization", "Bearer "+token)
	post.Header.Set("Content-Type", "application/json")
	post.Close = true
	presp, praw, err := p.do(post)
	if p.target.DeadLinks.Dead(post.URL) != nil {
		return nil // the run tells it as API-10; its writes are not checked
	}
	if err != nil {
		return err
	}
	if presp.StatusCode/100 != 2 {
		if elsewhere := p.elsewhere("the create-new-event link", post); elsewhere != "" {
			return p.failf("%s refused the creation of an event: POST %s gave %s; %s", p.target.BaseURL, post.URL, presp.Status, elsewhere)
		}
		return p.failf("%s refused the event body of %s: POST %s gave %s%s", p.target.BaseURL, source, post.URL.Path, presp.Status, excerpt(p.redactor.String(string(praw))))
	}
	return nil
}

// elsewhere says, of a request to another origin than the target's, what
// the link that led there is and that the run sent it no credentials; ""
// for a request to the target's origin.
func (p *preflight) elsewhere(what string, req *http.Request) string {
	if !p.guard.Withholds(req) {
		return ""
	}
	if base, err := url.Parse(p.target.BaseURL); err == nil && base.Scheme == "https" && req.URL.Scheme == "http" {
		// Never advise leaving https: the deployment's links should.
		return fmt.Sprintf("%s is at %s, plain http under an https BASE_URL, where the run sends no credentials: TLS likely ends in front of the server, which builds its links with http (tell it the scheme its clients use: a trusted proxy's X-Forwarded-Proto, or its public address)", what, origin.Of(req.URL))
	}
	return fmt.Sprintf("%s is at %s, another origin than BASE_URL's, where the run sends no credentials (give that origin as BASE_URL if it is the API's)", what, origin.Of(req.URL))
}
