package steps

import (
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/cucumber/godog"
)

// The steps that check the answer of the last When step, whatever the
// request was.
func (s *scenario) registerAnswerSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the answer has status (\d+)$`, s.hasStatus)
	sc.Step(`^the answer has a success status$`, s.hasSuccessStatus)
	sc.Step(`^the answer is an error with status (\d+)$`, s.isErrorWithStatus)
	sc.Step(`^the request is refused as unauthenticated$`, s.refusedAsUnauthenticated)
	sc.Step(`^the request is not refused for lack of authentication$`, s.notRefused)
	sc.Step(`^the answer must not be cached$`, s.mustNotBeCached)
	sc.Step(`^the answer's Cache-Control says "([^"]*)"$`, s.cacheControlSays)
	sc.Step(`^the answer's Pragma says "([^"]*)"$`, func(d string) error { return s.headerSays("Pragma", d) })
	sc.Step(`^the answer varies with "([^"]*)"$`, s.variesWith)
	sc.Step(`^the answer challenges the caller to authenticate with "([^"]*)"$`, func(scheme string) error { return s.challenges(scheme, "") })
	sc.Step(`^the answer challenges the caller to authenticate with "([^"]*)" and error "([^"]*)"$`, s.challenges)
	sc.Step(`^the error description mentions "([^"]*)"$`, s.descriptionMentions)
	sc.Step(`^the answer does not repeat any token of this scenario$`, s.repeatsNoToken)
	sc.Step(`^the answer allows only "([^"]*)"$`, s.allowsOnly)
	sc.Step(`^the answer does not redirect$`, s.doesNotRedirect)
	sc.Step(`^no answer in this scenario set a cookie$`, s.noCookies)
	sc.Step(`^the answer is an HTML page$`, s.isHTML)
	sc.Step(`^the answer is a HAL resource whose links are keyed by relation name, each with an href$`, s.isHAL)
	sc.Step(`^the answer is a HAL resource, if it has a JSON body$`, s.isHALIfJSON)
	sc.Step(`^every event it lists is a HAL resource too$`, s.itemsAreHAL)
	sc.Step(`^the answer (offers|does not offer) the links? "([^"]*)"$`, s.offersLinks)
	sc.Step(`^every link of the answer is an absolute address$`, s.linksAreAbsolute)
	sc.Step(`^the "([^"]*)" link is a URI template$`, s.linkIsTemplate)
}

func (s *scenario) hasStatus(status int) error {
	x, err := s.theAnswer()
	if err == nil && x.status != status {
		err = s.failf(x, "status %d, want %d", x.status, status)
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
func (s *scenario) refusedAsUnauthenticated() error {
	x, err := s.theAnswer()
	if err == nil && x.status != http.StatusUnauthorized && x.status != http.StatusForbidden {
		err = s.failf(x, "expected the request to be refused (401 or 403), got %d", x.status)
	}
	return err
}

func (s *scenario) notRefused() error {
	x, err := s.theAnswer()
	if err == nil && (x.status == http.StatusUnauthorized || x.status == http.StatusForbidden) {
		err = s.failf(x, "the request was refused with status %d", x.status)
	}
	return err
}

func (s *scenario) mustNotBeCached() error {
	x, err := s.theAnswer()
	if err == nil && !strings.Contains(strings.ToLower(x.header.Get("Cache-Control")), "no-store") {
		err = s.failf(x, "Cache-Control is %q, want no-store", x.header.Get("Cache-Control"))
	}
	return err
}

// headerWords returns the comma-separated elements of every value of a
// header (RFC 9110 §5.6.1), in lower case.
func headerWords(h http.Header, name string) []string {
	var out []string
	for _, v := range h.Values(name) {
		for _, w := range strings.Split(v, ",") {
			if w = strings.ToLower(strings.TrimSpace(w)); w != "" {
				out = append(out, w)
			}
		}
	}
	return out
}

func (s *scenario) cacheControlSays(directive string) error {
	return s.headerSays("Cache-Control", directive)
}

// headerSays checks that one of the comma-separated elements of the
// answer's header is directive, in any case.
func (s *scenario) headerSays(header, directive string) error {
	x, err := s.theAnswer()
	if err == nil && !slices.Contains(headerWords(x.header, header), strings.ToLower(directive)) {
		err = s.failf(x, "%s is %q, want the directive %q", header, x.header.Values(header), directive)
	}
	return err
}

// variesWith checks that the answer names a request header it depends on
// in Vary (RFC 9110 §12.5.5); "*" says it depends on everything.
func (s *scenario) variesWith(header string) error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	vary := headerWords(x.header, "Vary")
	if !slices.Contains(vary, strings.ToLower(header)) && !slices.Contains(vary, "*") {
		return s.failf(x, "Vary is %q; it does not name %s", x.header.Values("Vary"), header)
	}
	return nil
}

var challengeScheme = regexp.MustCompile(`^\s*([A-Za-z]+)`)

func (s *scenario) challenges(scheme, code string) error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	h := x.header.Get("WWW-Authenticate")
	if m := challengeScheme.FindStringSubmatch(h); m == nil || !strings.EqualFold(m[1], scheme) {
		return s.failf(x, "WWW-Authenticate is %q, want a %s challenge", h, scheme)
	}
	if code != "" && !strings.Contains(h, `error="`+code+`"`) {
		return s.failf(x, "WWW-Authenticate is %q, want error=%q", h, code)
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
		return fmt.Errorf("answers set cookies: %s", strings.Join(c, "; "))
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
		return s.failf(x, "Content-Type is %q, want text/html", ct)
	}
	if strings.TrimSpace(x.body) == "" {
		return s.failf(x, "the page is empty")
	}
	return nil
}

// isHAL checks spec SVC-2: "_links" is an object keyed by relation name, and
// each entry (or each element of an array entry) has an href.
func (s *scenario) isHAL() error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	obj, err := x.object()
	if err != nil {
		return s.about(x, err)
	}
	return s.halDoc(x, obj, "the answer")
}

// isHALIfJSON is isHAL for an answer the specification shows no body of
// (to POST and PUT): when it has a JSON body, it is HAL (spec SVC-2).
func (s *scenario) isHALIfJSON() error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	if x.jsonErr != nil && strings.TrimSpace(x.body) == "" {
		return nil
	}
	obj, err := x.object()
	if err != nil {
		return s.about(x, err)
	}
	return s.halDoc(x, obj, "the answer")
}

// itemsAreHAL checks that every event a list answer lists is HAL (spec
// SVC-2).
func (s *scenario) itemsAreHAL() error {
	items, x, err := s.answerItems()
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return s.failf(x, "the list holds no events")
	}
	for i, item := range items {
		if err := s.halDoc(x, item, fmt.Sprintf("listed event %d", i+1)); err != nil {
			return err
		}
	}
	return nil
}

// halDoc checks that doc, part of x, is HAL: "_links" an object keyed by
// relation name, each entry (or each element of an array entry) with an
// href.
func (s *scenario) halDoc(x *exchange, doc map[string]any, what string) error {
	v, ok := doc["_links"]
	if !ok {
		return s.failf(x, "%s has no \"_links\"", what)
	}
	links, ok := v.(map[string]any)
	if !ok || len(links) == 0 {
		return s.failf(x, "%s: _links is not an object of links: %v", what, v)
	}
	for rel, v := range links {
		entries, ok := v.([]any)
		if !ok {
			entries = []any{v}
		}
		for _, e := range entries {
			link, ok := e.(map[string]any)
			if href, _ := link["href"].(string); !ok || href == "" {
				return s.failf(x, "%s: link %q has no href: %v", what, rel, e)
			}
		}
	}
	return nil
}

func (s *scenario) offersLinks(offers, list string) error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	links := x.links()
	for _, rel := range splitList(list) {
		if _, ok := links[rel]; ok != (offers == "offers") {
			return s.failf(x, "offers %q: %v, want %v; it offers %s", rel, ok, !ok, relNames(links))
		}
	}
	return nil
}

func (s *scenario) linksAreAbsolute() error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	links := x.links()
	if len(links) == 0 {
		return s.failf(x, "the answer has no links")
	}
	for rel, href := range links {
		if !absolute(href) {
			return s.failf(x, "link %q is not an absolute address: %q", rel, href)
		}
	}
	return nil
}

func (s *scenario) linkIsTemplate(rel string) error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	obj, _ := x.json.(map[string]any)
	links, _ := obj["_links"].(map[string]any)
	link, _ := links[rel].(map[string]any)
	href, _ := link["href"].(string)
	if templated, _ := link["templated"].(bool); !templated || !strings.Contains(href, "{") {
		return s.failf(x, "link %q is not a URI template: %v", rel, links[rel])
	}
	return nil
}
