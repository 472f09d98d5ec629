package conformance

import "strings"

// MatchTags reports whether tags satisfy a godog v0.15 tag expression, with
// the same behat-style rules godog applies: "&&" joins terms that must all
// hold, "," joins alternatives, "~" negates; no parentheses.
func MatchTags(expr string, tags []string) bool {
	if strings.TrimSpace(expr) == "" {
		return true
	}
	has := func(tag string) bool {
		for _, t := range tags {
			if strings.TrimPrefix(t, "@") == tag {
				return true
			}
		}
		return false
	}
	for _, term := range strings.Split(expr, "&&") {
		ok := false
		for _, alt := range strings.Split(term, ",") {
			alt = strings.ReplaceAll(strings.TrimSpace(alt), "@", "")
			if neg, found := strings.CutPrefix(alt, "~"); found {
				ok = ok || !has(neg)
			} else {
				ok = ok || has(alt)
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
