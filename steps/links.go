package steps

import (
	"net/url"
	"strings"

	"github.com/cucumber/godog"
	"github.com/gavv/httpexpect/v2"
)

// links returns the hrefs of the last answer's "_links", by relation name.
// An entry that is an array of links gives its first link.
func (s *scenario) links() map[string]string {
	out := map[string]string{}
	if s.last == nil {
		return out
	}
	var doc map[string]any
	if !decodeJSON(s.lastBody, &doc) {
		return out
	}
	return hrefs(doc)
}

// hrefs reads the "_links" of one HAL object.
func hrefs(doc map[string]any) map[string]string {
	out := map[string]string{}
	links, _ := doc["_links"].(map[string]any)
	for rel, v := range links {
		if list, ok := v.([]any); ok && len(list) > 0 {
			v = list[0]
		}
		if link, ok := v.(map[string]any); ok {
			if href, ok := link["href"].(string); ok {
				out[rel] = href
			}
		}
	}
	return out
}

// resolve turns an href of the last answer into an absolute address (RFC
// 3986 §5, spec API-10): relative hrefs are resolved against the address of
// the answer that carried them.
func (s *scenario) resolve(href string) string {
	ref, err := url.Parse(href)
	if err != nil || s.last == nil {
		return href
	}
	return s.last.Raw().Request.URL.ResolveReference(ref).String()
}

// link returns the resolved address of rel in the last answer, or records a
// failure and returns "".
func (s *scenario) link(rel string) string {
	href, ok := s.links()[rel]
	if !ok {
		s.rec.fail("the answer offers no %q link; it offers %s", rel, relNames(s.links()))
		return ""
	}
	return s.resolve(href)
}

// expand fills a URI template's {name} variables (RFC 6570 level 1).
func expand(template string, vars map[string]string) string {
	for k, v := range vars {
		template = strings.ReplaceAll(template, "{"+k+"}", url.PathEscape(v))
	}
	return template
}

func relNames(links map[string]string) string {
	if len(links) == 0 {
		return "none"
	}
	var names []string
	for rel := range links {
		names = append(names, rel)
	}
	return `"` + strings.Join(sortStrings(names), `", "`) + `"`
}

// at is a request to an absolute address, with a bearer token unless token
// is empty.
func (s *scenario) at(method, address, token string) *httpexpect.Request {
	return s.bearer(s.e.Request(method, "").WithURL(address), token)
}

func (s *scenario) registerLinkSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the caller follows the "([^"]*)" link$`, s.followLink)
	sc.Step(`^the answer offers the links? "([^"]*)"$`, s.offersLinks)
	sc.Step(`^the answer does not offer the link "([^"]*)"$`, s.doesNotOfferLink)
	sc.Step(`^every link of the answer is an absolute address$`, s.linksAreAbsolute)
	sc.Step(`^the "([^"]*)" link is a URI template$`, s.linkIsTemplate)
}

func (s *scenario) followLink(rel string) error {
	if address := s.link(rel); address != "" {
		s.expect(s.at("GET", address, ""))
	}
	return s.done()
}

func (s *scenario) offersLinks(list string) error {
	links := s.links()
	for _, rel := range splitList(list) {
		if _, ok := links[rel]; !ok {
			s.rec.fail("the answer offers no %q link; it offers %s", rel, relNames(links))
		}
	}
	return s.done()
}

func (s *scenario) doesNotOfferLink(rel string) error {
	if _, ok := s.links()[rel]; ok {
		s.rec.fail("the answer offers a %q link; it should not", rel)
	}
	return s.done()
}

func (s *scenario) linksAreAbsolute() error {
	links := s.links()
	if len(links) == 0 {
		s.rec.fail("the answer has no links")
	}
	for rel, href := range links {
		if u, err := url.Parse(href); err != nil || !u.IsAbs() || u.Host == "" {
			s.rec.fail("link %q is not an absolute address: %q", rel, href)
		}
	}
	return s.done()
}

func (s *scenario) linkIsTemplate(rel string) error {
	var doc map[string]any
	decodeJSON(s.lastBody, &doc)
	links, _ := doc["_links"].(map[string]any)
	link, _ := links[rel].(map[string]any)
	href, _ := link["href"].(string)
	if templated, _ := link["templated"].(bool); !templated || !strings.Contains(href, "{") {
		s.rec.fail("link %q is not a URI template: %v", rel, links[rel])
	}
	return s.done()
}
