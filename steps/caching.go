package steps

import (
	"net/http"
	"slices"
	"strings"

	"eventsvc/conformance/audit"
)

// What an answer tells caches: Cache-Control, Pragma and Vary.

func (s *scenario) registerCachingSteps(sc stepRegistry) {
	sc.Step(`^the answer must not be cached$`, s.mustNotBeCached)
	sc.Step(`^the answer's Cache-Control says "([^"]*)"$`, s.cacheControlSays)
	sc.Step(`^the answer's Pragma says "([^"]*)"$`, func(d string) error { return s.headerSays("Pragma", d) })
	sc.Step(`^the answer varies with "([^"]*)"$`, s.variesWith)
}

// mustNotBeCached asks the registry's judgment of spec TOK-15 (RFC 6749
// §5.1) of an answer that holds a token, which it makes of every such
// answer.
func (s *scenario) mustNotBeCached() error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	return s.auditedAnswer(x, "the token answer", audit.TokenAnswerNotCached)
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
