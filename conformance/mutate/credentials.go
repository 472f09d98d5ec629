package mutate

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// Where credentials are: the caller's valid access token moved out of
// "Authorization: Bearer" to every other place servers and frameworks
// read tokens from. A request counts as authenticated only when it
// carries a valid access token in "Authorization: Bearer" (spec SVC-4):
// a write with the token elsewhere must change nothing.

// tokenCookies are cookie names single-page front ends and frameworks
// keep a token in.
var tokenCookies = []string{"access_token", "token", "jwt", "Authorization", "auth_token", "id_token"}

// tokenHeaders are headers API gateways and frameworks read a token from.
var tokenHeaders = []string{"X-Access-Token", "X-Auth-Token", "X-Token", "Access-Token", "Token", "X-Amz-Security-Token", "Proxy-Authorization"}

// otherSchemes are the schemes of an Authorization header other than
// Bearer that libraries accept a token under, and none.
var otherSchemes = []string{"Token ", "JWT ", "OAuth ", "MAC ", ""}

// tokenParams are query and form parameters a token is read from.
var tokenParams = []string{"access_token", "token", "jwt", "api_key", "auth"}

var credentialOps = alsoOnUpdates([]Operator{
	{
		Name: "a near-miss of the access token", Family: FamilyCredentials, Parts: []string{PartAccessToken}, Way: ByValue, On: OnWrite, As: WithToken,
		Source: "OWASP WSTG-ATHN-04 (bypassing the authentication schema) and WSTG-SESS-01 (the session management schema); common faults: tokens kept in a column of a case-insensitive collation (MySQL's default), compared by a prefix or a LIKE pattern, or cut to a column's length; RFC 6750 §3.1 (invalid_token)",
		Vary: func(r Request, env Env) []Variant {
			auth := r.Header.Get("Authorization")
			if env.Token == "" || !strings.HasSuffix(auth, " "+env.Token) {
				return nil
			}
			scheme := strings.TrimSuffix(auth, env.Token)
			return tokenNearMisses("the access token", env.Token, env.Credentials, func(v string) Request { return withHeader(r, "Authorization", scheme+v) })
		},
	},
	{
		Name: "the token in a query parameter", Family: FamilyCredentials, Parts: []string{PartAccessToken}, Way: ByPlace, On: OnWrite, As: WithToken,
		Source: "RFC 6750 §2.3 (the access_token query parameter, which SVC-4 does not allow); names of common frameworks' token getters (express-jwt, Laravel, Spring's BearerTokenResolver)",
		Vary: func(r Request, env Env) []Variant {
			return tokenMoved(r, tokenParams, func(v *Request, name string) string {
				q := v.URL.Query()
				q.Set(name, env.Token)
				v.URL.RawQuery = q.Encode()
				return fmt.Sprintf("the token in the query parameter %q, not in Authorization", name)
			})
		},
	},
	{
		Name: "the token in a form field", Family: FamilyCredentials, Parts: []string{PartAccessToken}, Way: ByPlace, On: OnWrite, As: WithToken,
		Source: "RFC 6750 §2.2 (the access_token form field, which SVC-4 does not allow)",
		Vary: func(r Request, env Env) []Variant {
			fields, ok := jsonBody(r)
			if !ok {
				return nil
			}
			form := url.Values{}
			for _, k := range slices.Sorted(maps.Keys(fields)) {
				if s, ok := fields[k].(string); ok {
					form.Set(k, s)
				} else {
					b, _ := json.Marshal(fields[k])
					form.Set(k, string(b))
				}
			}
			return tokenMoved(r, tokenParams[:2], func(v *Request, name string) string {
				withToken := maps.Clone(form)
				withToken.Set(name, env.Token)
				v.Body = []byte(withToken.Encode())
				v.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				return fmt.Sprintf("the body form-encoded, the token in its field %q", name)
			})
		},
	},
	{
		Name: "the token in a cookie", Family: FamilyCredentials, Parts: []string{PartAccessToken}, Way: ByPlace, On: OnWrite, As: WithToken,
		Source: "OWASP WSTG-SESS-02 (cookies); the cookies single-page front ends keep a token in",
		Vary: func(r Request, env Env) []Variant {
			return tokenMoved(r, tokenCookies, func(v *Request, name string) string {
				v.Header.Add("Cookie", name+"="+env.Token)
				return fmt.Sprintf("the token in the cookie %q", name)
			})
		},
	},
	{
		Name: "the token in another header", Family: FamilyCredentials, Parts: []string{PartAccessToken}, Way: ByPlace, On: OnWrite, As: WithToken,
		Source: "API gateways' and frameworks' token headers; RFC 9110 §11.7.1 (Proxy-Authorization is for the proxy)",
		Vary: func(r Request, env Env) []Variant {
			return tokenMoved(r, tokenHeaders, func(v *Request, h string) string {
				val := env.Token
				if h == "Proxy-Authorization" {
					val = "Bearer " + env.Token
				}
				v.Header.Set(h, val)
				return fmt.Sprintf("the token in the header %s", h)
			})
		},
	},
	{
		Name: "the token under another scheme", Family: FamilyCredentials, Parts: []string{PartAccessToken}, Way: BySpelling, On: OnWrite, As: WithToken,
		Source: "RFC 6750 §2.1 (the Bearer scheme); Django REST framework's \"Token\", passport-jwt's \"JWT\", OAuth 1's \"OAuth\", RFC draft MAC",
		Vary: func(r Request, env Env) []Variant {
			return tokenMoved(r, otherSchemes, func(v *Request, scheme string) string {
				v.Header.Set("Authorization", scheme+env.Token)
				if scheme == "" {
					return "the token in Authorization without a scheme"
				}
				return fmt.Sprintf("the token under the scheme %q", scheme[:len(scheme)-1])
			})
		},
	},
})

// alsoOnUpdates is ops, operators of creations, and each of them again
// as an operator of updates.
func alsoOnUpdates(ops []Operator) []Operator {
	out := ops
	for _, op := range ops {
		u := op
		u.Name += ", in an update"
		u.On = OnUpdate
		out = append(out, u)
	}
	return out
}

// tokenMoved is a variant of r for each of places, a copy of r without
// its Authorization header where put puts the token in that place, and
// says what the variant is.
func tokenMoved(r Request, places []string, put func(v *Request, place string) string) []Variant {
	return each(places, func(place string) Variant {
		v := r.clone()
		v.Header.Del("Authorization")
		what := put(&v, place)
		return Variant{Request: v, What: what}
	})
}
