package steps

import (
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"strings"

	"eventsvc/conformance/audit"
)

// The steps that check the answer of the last When step, whatever the
// request was: its status, how it refuses the request, and what else it
// says. What it tells caches is in caching.go; what it is as HAL, and the
// links it offers, in links.go.
func (s *scenario) registerAnswerSteps(sc stepRegistry) {
	sc.Step(`^the answer has status (\d+)$`, s.hasStatus)
	sc.Step(`^the answer has a success status$`, s.hasSuccessStatus)
	sc.Step(`^the answer is an error with status (\d+)$`, s.isErrorWithStatus)
	sc.Step(`^the request is refused as unauthenticated$`, s.refusedAsUnauthenticated)
	sc.Step(`^the request is not refused for lack of authentication$`, s.notRefused)
	sc.Step(`^the request is refused for lack of permission$`, s.refusedForPermission)
	sc.Step(`^the answer offers no more than it offers an anonymous caller$`, s.offersNoMoreThanToAnyone)
	sc.Step(`^the answer challenges the caller to authenticate with "([^"]*)"$`, func(scheme string) error { return s.challenges(scheme, "") })
	sc.Step(`^the answer challenges the caller to authenticate with "([^"]*)" and error "([^"]*)"$`, s.challenges)
	sc.Step(`^the error description mentions "([^"]*)"$`, s.descriptionMentions)
	sc.Step(`^the answer does not repeat any token of this scenario$`, s.repeatsNoToken)
	sc.Step(`^the answer allows only "([^"]*)"$`, s.allowsOnly)
	sc.Step(`^the answer does not redirect$`, s.doesNotRedirect)
	sc.Step(`^no answer in this scenario set a cookie$`, s.noCookies)
	sc.Step(`^the answer is an HTML page$`, s.isHTML)
}

// hasStatus checks the answer's status. A read of the list or of an event
// that is not served to a caller without a valid token breaks what lets
// anyone read them (API-2, API-7).
func (s *scenario) hasStatus(status int) error {
	x, err := s.theAnswer()
	if err == nil && x.status != status {
		err = s.failf(x, "status %d, want %d", x.status, status)
		if status == http.StatusOK {
			return s.unreadable(x, err)
		}
	}
	return err
}

// unreadable is err, a read's failure, as breaking the rule that lets its
// caller read what was asked: the list (API-2 anonymous, API-4 with a
// token), an event (API-7 anonymous). Other answers keep err as it is.
func (s *scenario) unreadable(x *exchange, err error) error {
	switch {
	case x.kind == kindList && !holdsToken(x.who):
		return unmetOnTheWay(err, audit.ReadOpen(true, x.who == anonymous))
	case x.kind == kindList:
		return unmetOnTheWay(err, audit.ListOpenToTokenHolder)
	case x.kind == kindEvent && !holdsToken(x.who):
		return unmetOnTheWay(err, audit.ReadOpen(false, x.who == anonymous))
	}
	return err
}

func (s *scenario) hasSuccessStatus() error {
	x, err := s.theAnswer()
	if err == nil && (x.status < 200 || x.status > 299) {
		err = s.failf(x, "status %d, want a success (2xx)", x.status)
	}
	return err
}

func (s *scenario) isErrorWithStatus(status int) error {
	if err := s.hasStatus(status); err != nil {
		return err
	}
	if e, err := s.answer.text("error"); err != nil || e == "" {
		return s.failf(s.answer, "the answer names no error (%v)", err)
	}
	return nil
}

// refusedAsUnauthenticated accepts 401 or 403: the specification leaves the
// status of a request without a valid token open (Authentication, item 9).
// A request sent with the cookies of earlier answers and no token that is
// not refused shows a session standing in for a token (spec SVC-4).
func (s *scenario) refusedAsUnauthenticated() error {
	x, err := s.theAnswer()
	if err == nil && x.status != http.StatusUnauthorized && x.status != http.StatusForbidden {
		err = s.failf(x, "expected the request to be refused (401 or 403), got %d", x.status)
		if x.cookies {
			err = unmet(err, audit.NoSession)
		}
		if x.url.Path == protectedPath && x.method == http.MethodGet {
			if bare := s.needsAToken(protectedPath); bare != nil {
				return bare
			}
		}
	}
	return err
}

// refusedForPermission checks spec AUTH-6: a caller denied for lack of
// permission gets 403.
func (s *scenario) refusedForPermission() error {
	x, err := s.theAnswer()
	if err == nil && x.status != http.StatusForbidden {
		err = unmet(s.failf(x, "status %d, want 403 (denied for lack of permission)", x.status), audit.DeniedForPermission)
	}
	return err
}

// offersNoMoreThanToAnyone checks that the answer offers no action the
// same request without credentials is not offered: the credentials the
// answer's request carried (the client's, in Basic; a token elsewhere than
// in Authorization) authenticate nothing on the API (spec AUTH-1, SVC-4).
// The request without them has no header of theirs, no cookie, and no
// query parameter that holds a token of the scenario.
func (s *scenario) offersNoMoreThanToAnyone() error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	y, err := s.send(s.at(x.method, s.withoutTokens(x.url)))
	if err != nil {
		return err
	}
	theirs := y.links()
	for _, rel := range actions {
		if _, ok := x.links()[rel]; ok {
			if _, anyone := theirs[rel]; !anyone {
				return unmet(s.failf(x, "the answer offers %q, which the same request without credentials is not offered: the credentials it carried count on the API", rel), audit.ClientCredentialsAuthenticateNothing)
			}
		}
	}
	return nil
}

// notRefused checks spec AUTH-2: a GET under /api/ is open to everyone.
func (s *scenario) notRefused() error {
	x, err := s.theAnswer()
	if err == nil && (x.status == http.StatusUnauthorized || x.status == http.StatusForbidden) {
		err = unmet(s.failf(x, "the request was refused with status %d", x.status), audit.OpenRead)
	}
	return err
}

var challengeScheme = regexp.MustCompile(`^\s*([A-Za-z]+)`)

func (s *scenario) challenges(scheme, code string) error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	// A Basic challenge follows failed client authentication, a Bearer
	// one a request without a valid token.
	e := audit.BearerChallenge
	if strings.EqualFold(scheme, schemeBasic) {
		e = audit.BasicChallenge
	}
	h := x.header.Get("WWW-Authenticate")
	if m := challengeScheme.FindStringSubmatch(h); m == nil || !strings.EqualFold(m[1], scheme) {
		return unmet(s.failf(x, "WWW-Authenticate is %q, want a %s challenge", h, scheme), e)
	}
	if code != "" && !strings.Contains(h, `error="`+code+`"`) {
		return unmet(s.failf(x, "WWW-Authenticate is %q, want error=%q", h, code), e)
	}
	return nil
}

func (s *scenario) descriptionMentions(words string) error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	d, err := x.text("error_description")
	if err != nil {
		return s.about(x, err)
	}
	if !strings.Contains(strings.ToLower(d), strings.ToLower(words)) {
		return s.failf(x, "error_description %q does not mention %q", d, words)
	}
	return nil
}

// repeatsNoToken checks that no token the scenario holds or sent appears
// in the answer.
func (s *scenario) repeatsNoToken() error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	for _, token := range s.tokens.all() {
		if x.repeats(token) {
			return s.failf(x, "the answer repeats a token of this scenario")
		}
	}
	return nil
}

func (s *scenario) allowsOnly(methods string) error {
	x, err := s.theAnswer()
	if err == nil && x.header.Get("Allow") != methods {
		err = s.failf(x, "Allow is %q, want %q", x.header.Get("Allow"), methods)
	}
	return err
}

func (s *scenario) doesNotRedirect() error {
	x, err := s.theAnswer()
	switch {
	case err != nil:
		return err
	case x.status >= 300 && x.status < 400:
		return s.failf(x, "the answer redirects with status %d", x.status)
	case x.header.Get("Location") != "":
		return s.failf(x, "the answer has a Location header")
	}
	return nil
}

func (s *scenario) noCookies() error {
	if c := s.rec.cookies(); len(c) > 0 {
		return unmet(fmt.Errorf("answers set cookies: %s", strings.Join(c, "; ")), audit.NoSession)
	}
	return nil
}

// isHTML accepts any charset and any HTML: the <html> tag is optional.
func (s *scenario) isHTML() error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	ct := x.header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "text/html" {
		return unmet(s.failf(x, "Content-Type is %q, want text/html", ct), audit.DocsServed)
	}
	if strings.TrimSpace(x.body) == "" {
		return unmet(s.failf(x, "the page is empty"), audit.DocsServed)
	}
	return nil
}
