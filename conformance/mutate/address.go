package mutate

import (
	"fmt"
	"net/url"
	"path"
	"strings"
)

// The address: the same resource spelt another way, which a router may
// take for it where a security filter in front of it does not (the
// family of Spring's CVE-2016-5007). A write without a valid token sent
// there must change nothing, however it is answered.

var addressOps = append(alsoOnUpdates([]Operator{
	{
		Name: "a path segment in upper case", Family: FamilyAddress, Parts: []string{PartPath}, Way: BySpelling, On: OnWrite, As: WithoutToken,
		Source: "OWASP WSTG-ATHZ-02 (bypassing the authorization schema); CVE-2016-5007 (Spring MVC matches paths without regard to case)",
		Vary: eachSegment(func(seg string) (string, bool) {
			up := strings.ToUpper(seg)
			return up, up != seg
		}, "%q in upper case"),
	},
	{
		Name: "a path segment with its first letter in upper case", Family: FamilyAddress, Parts: []string{PartPath}, Way: BySpelling, On: OnWrite, As: WithoutToken,
		Source: "OWASP WSTG-ATHZ-02; CVE-2016-5007",
		Vary: eachSegment(func(seg string) (string, bool) {
			if seg == "" || seg[0] < 'a' || seg[0] > 'z' {
				return "", false
			}
			return strings.ToUpper(seg[:1]) + seg[1:], true
		}, "%q with its first letter in upper case"),
	},
	{
		Name: "a repeated slash", Family: FamilyAddress, Parts: []string{PartPath}, Way: BySpelling, On: OnWrite, As: WithoutToken,
		Source: "RFC 3986 §3.3 (an empty segment is a segment); the 403-bypass lists of iamj0ker/bypass-403 and lobuhi/byp4xx (\"//\")",
		Vary:   eachSegment(func(seg string) (string, bool) { return "/" + seg, true }, "a slash repeated before %q"),
	},
	{
		Name: "a dot segment", Family: FamilyAddress, Parts: []string{PartPath}, Way: BySpelling, On: OnWrite, As: WithoutToken,
		Source: "RFC 3986 §5.2.4 and §6.2.2.3 (dot segments are removed); the 403-bypass lists of iamj0ker/bypass-403 and lobuhi/byp4xx (\"/./\")",
		Vary:   eachSegment(func(seg string) (string, bool) { return "./" + seg, true }, "\"./\" before %q"),
	},
	{
		Name: "a segment and \"..\"", Family: FamilyAddress, Parts: []string{PartPath}, Way: BySpelling, On: OnWrite, As: WithoutToken,
		Source: "RFC 3986 §5.2.4; the 403-bypass lists of iamj0ker/bypass-403 and lobuhi/byp4xx (\"/x/../\")",
		Vary:   eachSegment(func(seg string) (string, bool) { return "x/../" + seg, true }, "\"x/../\" before %q"),
	},
	{
		Name: "a percent-encoded letter", Family: FamilyAddress, Parts: []string{PartPath}, Way: BySpelling, On: OnWrite, As: WithoutToken,
		Source: "RFC 3986 §2.3 and §6.2.2.2 (percent-encoded unreserved characters are the characters)",
		Vary:   eachSegment(escapedFirst("%"), "the first letter of %q percent-encoded"),
	},
	{
		Name: "a path parameter", Family: FamilyAddress, Parts: []string{PartPath}, Way: ByMultiplicity, On: OnWrite, As: WithoutToken,
		Source: "RFC 3986 §3.3 (\";\" parameters of a segment, which Tomcat and Spring drop); the 403-bypass lists of iamj0ker/bypass-403 and lobuhi/byp4xx (\";\", \"..;/\")",
		Vary:   eachSegment(func(seg string) (string, bool) { return seg + ";x=1", true }, "\";x=1\" after %q"),
	},
	{
		Name: "a dot-dot path parameter", Family: FamilyAddress, Parts: []string{PartPath}, Way: BySpelling, On: OnWrite, As: WithoutToken,
		Source: "the 403-bypass lists of iamj0ker/bypass-403 and lobuhi/byp4xx (\"..;/\", which Tomcat reads as \"..\" and a filter as a segment)",
		Vary:   eachSegment(func(seg string) (string, bool) { return "x/..;/" + seg, true }, "\"x/..;/\" before %q"),
	},
	{
		Name: "a suffix", Family: FamilyAddress, Parts: []string{PartPath}, Way: BySpelling, On: OnWrite, As: WithoutToken,
		Source: "the 403-bypass lists of iamj0ker/bypass-403 and lobuhi/byp4xx (\"/\", \".json\", \"%20\", \"%09\", \"/.\"); Spring's suffix pattern matching",
		Vary: func(r Request, _ Env) []Variant {
			return each([]string{"/", ".json", "%20", "%09", "/."}, func(suffix string) Variant {
				v := r.clone()
				v.URL.RawPath = escapedPath(r) + suffix
				v.URL.Path = unescapedOr(v.URL.RawPath)
				return Variant{Request: v, What: fmt.Sprintf("the path with %q after it", suffix)}
			})
		},
	},
	{
		Name: "a percent-encoded dot segment", Family: FamilyAddress, Parts: []string{PartPath}, Way: BySpelling, On: OnWrite, As: WithoutToken,
		Source: "RFC 3986 §2.3 and §6.2.2.2 (\"%2e\" is \".\"), §5.2.4; the 403-bypass lists of iamj0ker/bypass-403 and lobuhi/byp4xx (\"/%2e/\")",
		Vary:   eachSegment(func(seg string) (string, bool) { return "%2e/" + seg, true }, "\"%%2e/\" before %q"),
	},
	{
		Name: "a dot-semicolon segment", Family: FamilyAddress, Parts: []string{PartPath}, Way: BySpelling, On: OnWrite, As: WithoutToken,
		Source: "the 403-bypass lists of iamj0ker/bypass-403 and lobuhi/byp4xx (\"/.;/\", \";/\": Tomcat drops the parameter, then the dot segment)",
		Vary:   eachSegment(func(seg string) (string, bool) { return ".;/" + seg, true }, "\".;/\" before %q"),
	},
	{
		Name: "a double-encoded letter", Family: FamilyAddress, Parts: []string{PartPath}, Way: BySpelling, On: OnWrite, As: WithoutToken,
		Source: "OWASP's Double Encoding attack (owasp.org/www-community/Double_Encoding: a proxy decodes once, the application again); RFC 3986 §2.4 (data is decoded once)",
		Vary:   eachSegment(escapedFirst("%25"), "the first letter of %q percent-encoded twice"),
	},
	{
		Name: "an empty query", Family: FamilyAddress, Parts: []string{PartQuery}, Way: ByMultiplicity, On: OnWrite, As: WithoutToken,
		Source: "the 403-bypass lists of iamj0ker/bypass-403 and lobuhi/byp4xx (\"?\", \"??\"); RFC 3986 §6.2.3 (an empty query is not the absent one, though many treat them alike)",
		Vary: func(r Request, _ Env) []Variant {
			return each([]string{"", "?"}, func(q string) Variant {
				v := r.clone()
				v.URL.ForceQuery, v.URL.RawQuery = true, q
				return Variant{Request: v, What: fmt.Sprintf("the path with %q after it", "?"+q)}
			})
		},
	},
	{
		Name: "a rewrite header", Family: FamilyAddress, Parts: []string{PartPath}, Way: ByPlace, On: OnWrite, As: WithoutToken,
		Source: "the 403-bypass lists of iamj0ker/bypass-403 and lobuhi/byp4xx (X-Original-URL and X-Rewrite-URL, which IIS and Symfony route by, sent to another path)",
		Vary: func(r Request, _ Env) []Variant {
			// Sent to a path beside the request's, under the API too: a
			// write taken there without a token is a fault however it
			// was routed.
			beside := path.Join(path.Dir(r.URL.Path), "x-nothing")
			return each([]string{"X-Original-URL", "X-Rewrite-URL"}, func(h string) Variant {
				v := r.clone()
				v.Header.Set(h, r.URL.RequestURI())
				v.URL.Path, v.URL.RawPath, v.URL.RawQuery = beside, "", ""
				return Variant{Request: v, What: fmt.Sprintf("sent to %s with %s: %s", beside, h, r.URL.RequestURI())}
			})
		},
	},
	{
		Name: "a trusted address header", Family: FamilyAddress, Parts: []string{PartHeader}, Way: ByMultiplicity, On: OnWrite, As: WithoutToken,
		Source: "the 403-bypass lists of iamj0ker/bypass-403 and lobuhi/byp4xx (X-Forwarded-For, X-Real-IP, X-Originating-IP, X-Remote-IP, X-Client-IP, X-Custom-IP-Authorization, True-Client-IP: 127.0.0.1); OWASP WSTG-ATHZ-02",
		Vary: func(r Request, _ Env) []Variant {
			return each([]string{"X-Forwarded-For", "X-Real-IP", "X-Originating-IP", "X-Remote-IP", "X-Client-IP", "X-Custom-IP-Authorization", "True-Client-IP", "Forwarded"}, func(h string) Variant {
				v := r.clone()
				val := "127.0.0.1"
				if h == "Forwarded" {
					val = "for=127.0.0.1"
				}
				v.Header.Set(h, val)
				return Variant{Request: v, What: fmt.Sprintf("with %s: %s", h, val)}
			})
		},
	},
	{
		Name: "an encoded slash", Family: FamilyAddress, Parts: []string{PartPath}, Way: BySpelling, On: OnWrite, As: WithoutToken,
		Source: "RFC 3986 §2.2 (\"%2F\" is data, not a delimiter, which some routers decode); the 403-bypass lists of iamj0ker/bypass-403 and lobuhi/byp4xx",
		Vary: func(r Request, _ Env) []Variant {
			p := escapedPath(r)
			i := strings.LastIndex(p, "/")
			if i <= 0 {
				return nil
			}
			v := r.clone()
			v.URL.RawPath = p[:i] + "%2F" + p[i+1:]
			v.URL.Path = unescapedOr(v.URL.RawPath)
			return []Variant{{Request: v, What: "the last slash of the path percent-encoded"}}
		},
	},
}), Operator{
	Name: "the event's id spelt otherwise", Family: FamilyAddress, Parts: []string{PartID}, Way: BySpelling, On: OnUpdate, As: WithoutToken,
	Source: "OWASP WSTG-ATHZ-04 (insecure direct object references: an identifier written otherwise); the leading zeros, signs, padding and encodings that number parsers (Java's Long.parseLong, Jackson, Go's strconv) and routers take differently",
	Vary:   idSpellings,
})

// idSpellings are the variants of r whose last path segment, an id of
// digits, is written otherwise: with a leading zero, a sign, its first
// digit percent-encoded, a space after it. A write without a valid token
// sent there changes nothing, whichever event a target takes it for.
func idSpellings(r Request, _ Env) []Variant {
	p := escapedPath(r)
	i := strings.LastIndex(p, "/")
	id := p[i+1:]
	if i < 0 || id == "" || strings.Trim(id, "0123456789") != "" {
		return nil
	}
	var out []Variant
	for _, s := range []struct{ spelt, what string }{
		{"0" + id, "with a leading zero"},
		{"+" + id, "with a plus sign"},
		{fmt.Sprintf("%%%02X", id[0]) + id[1:], "with its first digit percent-encoded"},
		{id + "%20", "with a space after it"},
	} {
		v := r.clone()
		v.URL.RawPath = p[:i+1] + s.spelt
		v.URL.Path = unescapedOr(v.URL.RawPath)
		out = append(out, Variant{Request: v, What: fmt.Sprintf("the id %q %s", id, s.what)})
	}
	return out
}

// eachSegment is an operator's Vary that changes one segment of the
// path at a time, each of them in turn: change returns the new segment
// (or text to put in its place), and false for a segment it leaves.
func eachSegment(change func(seg string) (string, bool), what string) func(Request, Env) []Variant {
	return func(r Request, _ Env) []Variant {
		segs := strings.Split(strings.TrimPrefix(escapedPath(r), "/"), "/")
		var out []Variant
		for i, seg := range segs {
			changed, ok := change(seg)
			if !ok {
				continue
			}
			next := append(append(append([]string{}, segs[:i]...), changed), segs[i+1:]...)
			v := r.clone()
			v.URL.RawPath = "/" + strings.Join(next, "/")
			v.URL.Path = unescapedOr(v.URL.RawPath)
			out = append(out, Variant{Request: v, What: fmt.Sprintf(what, seg)})
		}
		return out
	}
}

// escapedFirst is a change of eachSegment that writes a segment's first
// letter percent-encoded, after prefix ("%25" encodes it twice); it
// leaves an empty segment.
func escapedFirst(prefix string) func(seg string) (string, bool) {
	return func(seg string) (string, bool) {
		if seg == "" {
			return "", false
		}
		return prefix + fmt.Sprintf("%02X", seg[0]) + seg[1:], true
	}
}

// escapedPath is r's path as sent.
func escapedPath(r Request) string { return r.URL.EscapedPath() }

// unescapedOr is raw decoded, for url.URL.Path; raw itself when it does
// not decode.
func unescapedOr(raw string) string {
	if d, err := url.PathUnescape(raw); err == nil {
		return d
	}
	return raw
}
