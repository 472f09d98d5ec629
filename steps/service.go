package steps

import (
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
	"github.com/gavv/httpexpect/v2"
)

// Fixed addresses. The specification names these; every other address the
// suite uses is read from links.
const (
	apiRootPath = "/api"
	docsPath    = "/docs/index.html"
	// protectedPath is a request that needs a token (spec AUTH-4: any
	// request handled by the resource server outside the public paths and
	// outside GET /api/**).
	protectedPath = "/conformance/needs-a-token"
)

func (s *scenario) registerServiceSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the access token is accepted by the resource server$`, func() error { return s.tokenAccepted(s.accessToken) })
	sc.Step(`^the access token is refused by the resource server$`, func() error { return s.tokenRefused(s.accessToken) })
	sc.Step(`^the previous access token is refused by the resource server$`, func() error { return s.tokenRefused(s.previousAccessToken) })
	sc.Step(`^the user sends a request that needs a token$`, s.userSendsProtectedRequest)
	sc.Step(`^the same request is sent without the token, with every cookie received so far$`, s.resendWithoutToken)
	sc.Step(`^the token is sent as the query parameter "([^"]*)" of a request that needs a token$`, s.tokenInQuery)
	sc.Step(`^the request is refused as unauthenticated$`, s.refusedAsUnauthenticated)

	sc.Step(`^a caller reads the API root$`, func() error { return s.readAPIRoot("") })
	sc.Step(`^the user reads the API root with that token$`, func() error { return s.readAPIRoot(s.accessToken) })
	sc.Step(`^the answer links to the events$`, s.linksToEvents)
	sc.Step(`^the answer is a HAL resource whose links are keyed by relation name, each with an href$`, s.isHAL)
	sc.Step(`^a caller reads the documentation page$`, func() error { return s.readDocs("") })
	sc.Step(`^a caller reads the documentation page with the Authorization header "([^"]*)"$`, s.readDocs)
	sc.Step(`^the answer is an HTML page$`, s.isHTML)

	sc.Step(`^the answer has status (\d+)$`, s.hasStatus)
	sc.Step(`^the answer is an error with status (\d+)$`, s.isErrorWithStatus)
	sc.Step(`^the answer must not be cached$`, s.mustNotBeCached)
	sc.Step(`^the answer challenges the caller to authenticate with "([^"]*)"$`, func(scheme string) error { return s.challenges(scheme, "") })
	sc.Step(`^the answer challenges the caller to authenticate with "([^"]*)" and error "([^"]*)"$`, s.challenges)
	sc.Step(`^the error description mentions "([^"]*)"$`, s.descriptionMentions)
	sc.Step(`^the answer does not repeat the (access|refresh) token$`, s.doesNotRepeatToken)
	sc.Step(`^the answer allows only "([^"]*)"$`, s.allowsOnly)
	sc.Step(`^the answer does not redirect$`, s.doesNotRedirect)
	sc.Step(`^no answer in this scenario set a cookie$`, s.noCookies)
	sc.Step(`^(\d+) (?:more )?seconds? pass(?:es)?$`, s.timePasses)
	sc.Step(`^the lifetime announced with the access token has passed$`, func() error { return s.wait(time.Duration(s.expiresIn) * time.Second) })
	sc.Step(`^(\d+) seconds have passed since the token was issued$`, s.waitSinceIssue)
}

func (s *scenario) bearer(req *httpexpect.Request, token string) *httpexpect.Request {
	if token == "" {
		return req
	}
	return req.WithHeader("Authorization", "Bearer "+token)
}

// protected sends the request that needs a token, with token.
func (s *scenario) protected(token string) *httpexpect.Response {
	return s.expect(s.bearer(s.e.GET(protectedPath), token))
}

// tokenAccepted checks that the resource server takes the token as valid,
// by what the specification says a valid token changes: the event list
// offers it the link to create an event (spec API-4), and a request that
// needs a token is not refused.
func (s *scenario) tokenAccepted(token string) error {
	if token == "" {
		return fmt.Errorf("the scenario holds no access token")
	}
	if err := s.listEvents(token, ""); err != nil {
		return err
	}
	if _, ok := s.links()["create-new-event"]; !ok {
		s.rec.fail("the event list, read with the access token, does not offer \"create-new-event\": the token was not accepted")
		return s.done()
	}
	code := s.protected(token).Raw().StatusCode
	if code == http.StatusUnauthorized || code == http.StatusForbidden {
		s.rec.fail("the resource server refused the access token with status %d", code)
	}
	return s.done()
}

// tokenRefused is the opposite of tokenAccepted: the event list serves the
// token's bearer as anonymous (spec API-2, API-3), and a request that needs
// a token is refused.
func (s *scenario) tokenRefused(token string) error {
	if token == "" {
		return fmt.Errorf("the scenario holds no such access token")
	}
	if err := s.listEvents(token, ""); err != nil {
		return err
	}
	if _, ok := s.links()["create-new-event"]; ok {
		s.rec.fail("the event list, read with the access token, offers \"create-new-event\": the token was accepted")
		return s.done()
	}
	s.protected(token)
	return s.refusedAsUnauthenticated()
}

func (s *scenario) userSendsProtectedRequest() error {
	s.protected(s.accessToken)
	return s.done()
}

func (s *scenario) resendWithoutToken() error {
	s.protected("")
	return s.done()
}

func (s *scenario) tokenInQuery(name string) error {
	s.expect(s.e.GET(protectedPath).WithQuery(name, s.accessToken))
	return s.done()
}

// refusedAsUnauthenticated accepts 401 or 403: the specification leaves the
// status of a request without a valid token open (Authentication, item 9).
func (s *scenario) refusedAsUnauthenticated() error {
	if !s.requireLast() {
		return s.done()
	}
	if code := s.last.Raw().StatusCode; code != http.StatusUnauthorized && code != http.StatusForbidden {
		s.rec.fail("expected the request to be refused (401 or 403), got %d", code)
	}
	return s.done()
}

func (s *scenario) readAPIRoot(token string) error {
	s.expect(s.bearer(s.e.GET(apiRootPath), token))
	return s.done()
}

func (s *scenario) linksToEvents() error {
	s.object().Value("_links").Object().
		Value("events").Object().Value("href").String().NotEmpty()
	return s.done()
}

// isHAL checks spec SVC-2: "_links" is an object keyed by relation name, and
// each entry (or each element of an array entry) has an href.
func (s *scenario) isHAL() error {
	links := s.object().Value("_links").Object().NotEmpty()
	for rel, v := range links.Raw() {
		entries, ok := v.([]any)
		if !ok {
			entries = []any{v}
		}
		for _, e := range entries {
			link, ok := e.(map[string]any)
			href, _ := link["href"].(string)
			if !ok || href == "" {
				s.rec.fail("link %q has no href: %v", rel, e)
			}
		}
	}
	return s.done()
}

func (s *scenario) readDocs(authorization string) error {
	req := s.e.GET(docsPath)
	if authorization != "" {
		req = req.WithHeader("Authorization", authorization)
	}
	s.expect(req)
	return s.done()
}

// isHTML accepts any charset and any HTML: the <html> tag is optional.
func (s *scenario) isHTML() error {
	if !s.requireLast() {
		return s.done()
	}
	ct := s.last.Raw().Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "text/html" {
		s.rec.fail("Content-Type is %q, want text/html", ct)
	}
	if strings.TrimSpace(s.lastBody) == "" {
		s.rec.fail("the page is empty")
	}
	return s.done()
}

func (s *scenario) hasStatus(status int) error {
	if s.requireLast() {
		s.last.Status(status)
	}
	return s.done()
}

func (s *scenario) isErrorWithStatus(status int) error {
	if !s.requireLast() {
		return s.done()
	}
	s.last.Status(status)
	s.object().Value("error").String().NotEmpty()
	return s.done()
}

func (s *scenario) mustNotBeCached() error {
	s.last.Header("Cache-Control").Contains("no-store")
	return s.done()
}

var challengeScheme = regexp.MustCompile(`^\s*([A-Za-z]+)`)

func (s *scenario) challenges(scheme, code string) error {
	if !s.requireLast() {
		return s.done()
	}
	h := s.last.Raw().Header.Get("WWW-Authenticate")
	m := challengeScheme.FindStringSubmatch(h)
	if m == nil || !strings.EqualFold(m[1], scheme) {
		s.rec.fail("WWW-Authenticate is %q, want a %s challenge", h, scheme)
	}
	if code != "" && !strings.Contains(h, `error="`+code+`"`) {
		s.rec.fail("WWW-Authenticate is %q, want error=%q", h, code)
	}
	return s.done()
}

func (s *scenario) descriptionMentions(words string) error {
	d := s.object().Value("error_description").String().Raw()
	if !strings.Contains(strings.ToLower(d), strings.ToLower(words)) {
		s.rec.fail("error_description %q does not mention %q", d, words)
	}
	return s.done()
}

func (s *scenario) doesNotRepeatToken(which string) error {
	token := s.accessToken
	if which == "refresh" {
		token = s.refreshToken
	}
	if !s.requireLast() || token == "" {
		return s.done()
	}
	raw := s.last.Raw()
	var head strings.Builder
	_ = raw.Header.Write(&head)
	if strings.Contains(head.String(), token) || strings.Contains(s.lastBody, token) {
		s.rec.fail("the answer repeats the %s token", which)
	}
	return s.done()
}

func (s *scenario) allowsOnly(methods string) error {
	s.last.Header("Allow").IsEqual(methods)
	return s.done()
}

func (s *scenario) doesNotRedirect() error {
	if !s.requireLast() {
		return s.done()
	}
	if code := s.last.Raw().StatusCode; code >= 300 && code < 400 {
		s.rec.fail("the answer redirects with status %d", code)
	}
	if loc := s.last.Raw().Header.Get("Location"); loc != "" {
		s.rec.fail("the answer has a Location header")
	}
	return s.done()
}

func (s *scenario) noCookies() error {
	if c := s.rec.cookies(); len(c) > 0 {
		return fmt.Errorf("answers set cookies: %s", strings.Join(c, "; "))
	}
	return nil
}

// slowMargin is added to a real-time wait against a remote target, for the
// clocks of two machines and the time requests take.
const slowMargin = 2 * time.Second

// wait lets d pass: in-process by moving the server's clock, against a
// remote target in real time, plus slowMargin (@slow scenarios).
func (s *scenario) wait(d time.Duration) error {
	if d < 0 {
		d = 0
	}
	if s.instance != nil {
		s.instance.Advance(d)
		return nil
	}
	time.Sleep(d + slowMargin)
	return nil
}

// waitSinceIssue lets n seconds pass since the last token was issued. The
// in-process server's clock moved only when told to, so there the whole
// span passes; in real time, what has already passed is counted.
func (s *scenario) waitSinceIssue(n int) error {
	d := time.Duration(n) * time.Second
	if s.instance == nil {
		d -= time.Since(s.issuedAt)
	}
	return s.wait(d)
}

func (s *scenario) timePasses(seconds string) error {
	n, err := strconv.Atoi(seconds)
	if err != nil {
		return fmt.Errorf("seconds %q: %w", seconds, err)
	}
	if s.instance == nil {
		return fmt.Errorf("moving the clock needs the in-process reference server (tag @local)")
	}
	s.instance.Advance(time.Duration(n) * time.Second)
	return nil
}
