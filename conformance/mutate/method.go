package mutate

import (
	"fmt"
	"net/http"
	"slices"
)

// The method: the same write asked for by another method, or by a
// method-override header or parameter that a framework honours where a
// security filter reads the method sent. A write without a valid token,
// or by another user than the event's manager, must change nothing.

// writeMethods are the methods that write, and one no server knows.
var writeMethods = []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, "FOO"}

// overrideHeaders are the headers frameworks read a method from.
var overrideHeaders = []string{"X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override"}

var methodOps = slices.Concat(
	withoutTokenAndByAnotherUser("another method", PartMethod, ByValue, otherMethods,
		"OWASP WSTG-CONF-06 (testing HTTP methods); RFC 9110 §9 (a method the resource does not support is 405)",
		"OWASP WSTG-ATHZ-02 (bypassing the authorization schema with other methods); WSTG-CONF-06"),
	withoutTokenAndByAnotherUser("a method-override header", PartMethod, ByPlace, overrides,
		"OWASP WSTG-CONF-06 (testing for HTTP method overriding: X-HTTP-Method-Override, X-HTTP-Method, X-Method-Override)",
		"OWASP WSTG-CONF-06"),
	[]Operator{
		{
			Name: "a method-override parameter", Family: FamilyMethod, Parts: []string{PartMethod}, Way: ByPlace, On: OnUpdate, As: WithoutToken,
			Source: "the \"_method\" parameter of Rails, Laravel, Symfony and Express's method-override",
			Vary: func(r Request, _ Env) []Variant {
				return each([]string{http.MethodPut, http.MethodPatch, http.MethodDelete}, func(m string) Variant {
					v := r.clone()
					v.Method = http.MethodPost
					q := v.URL.Query()
					q.Set("_method", m)
					v.URL.RawQuery = q.Encode()
					return Variant{Request: v, What: fmt.Sprintf("POST with _method=%s in the query", m)}
				})
			},
		},
	},
)

// withoutTokenAndByAnotherUser is the operator of updates named name that
// varies a request by vary, sent without a token (source says where it
// comes from), and the same sent by another user than the event's
// manager (byAnotherUser says where that comes from).
func withoutTokenAndByAnotherUser(name, part, way string, vary func(Request, Env) []Variant, source, byAnotherUser string) []Operator {
	return []Operator{
		{Name: name, Family: FamilyMethod, Parts: []string{part}, Way: way, On: OnUpdate, As: WithoutToken, Source: source, Vary: vary},
		{Name: name + ", by another user", Family: FamilyMethod, Parts: []string{part}, Way: way, On: OnUpdate, As: NotManager, Source: byAnotherUser, Vary: vary},
	}
}

// otherMethods sends r's body with each other method that writes.
func otherMethods(r Request, _ Env) []Variant {
	var out []Variant
	for _, m := range writeMethods {
		if m == r.Method {
			continue
		}
		v := r.clone()
		v.Method = m
		out = append(out, Variant{Request: v, What: fmt.Sprintf("sent with %s", m)})
	}
	return out
}

// overrides sends r as a POST that asks for r's method, and for DELETE,
// by each override header.
func overrides(r Request, _ Env) []Variant {
	var out []Variant
	for _, h := range overrideHeaders {
		for _, m := range []string{r.Method, http.MethodDelete} {
			if m == http.MethodPost {
				continue
			}
			v := r.clone()
			v.Method = http.MethodPost
			v.Header.Set(h, m)
			out = append(out, Variant{Request: v, What: fmt.Sprintf("POST with %s: %s", h, m)})
		}
	}
	return out
}
