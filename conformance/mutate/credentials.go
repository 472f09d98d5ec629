package mutate

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
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
		Name: "the token in a query parameter", Family: FamilyCredentials, On: OnWrite, As: WithToken,
		Source: "RFC 6750 §2.3 (the access_token query parameter, which SVC-4 does not allow); names of common frameworks' token getters (express-jwt, Laravel, Spring's BearerTokenResolver)",
		Vary: func(r Request, env Env) []Variant {
			return each(tokenParams, func(name string) Variant {
				v := withoutToken(r)
				q := v.URL.Query()
				q.Set(name, env.Token)
				v.URL.RawQuery = q.Encode()
				return Variant{Request: v, What: fmt.Sprintf("the token in the query parameter %q, not in Authorization", name)}
			})
		},
	},
	{
		Name: "the token in a form field", Family: FamilyCredentials, On: OnWrite, As: WithToken,
		Source: "RFC 6750 §2.2 (the access_token form field, which SVC-4 does not allow)",
		Vary: func(r Request, env Env) []Variant {
			fields, ok := jsonBody(r)
			if !ok {
				return nil
			}
			form := url.Values{}
			for _, k := range sortedKeys(fields) {
				if s, ok := fields[k].(string); ok {
					form.Set(k, s)
				} else {
					b, _ := json.Marshal(fields[k])
					form.Set(k, string(b))
				}
			}
			return each(tokenParams[:2], func(name string) Variant {
				v := withoutToken(r)
				withToken := maps.Clone(form)
				withToken.Set(name, env.Token)
				v.Body = []byte(withToken.Encode())
				v.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				return Variant{Request: v, What: fmt.Sprintf("the body form-encoded, the token in its field %q", name)}
			})
		},
	},
	{
		Name: "the token in a cookie", Family: FamilyCredentials, On: OnWrite, As: WithToken,
		Source: "OWASP WSTG-SESS-02 (cookies); the cookies single-page front ends keep a token in",
		Vary: func(r Request, env Env) []Variant {
			return each(tokenCookies, func(name string) Variant {
				v := withoutToken(r)
				v.Header.Add("Cookie", name+"="+env.Token)
				return Variant{Request: v, What: fmt.Sprintf("the token in the cookie %q", name)}
			})
		},
	},
	{
		Name: "the token in another header", Family: FamilyCredentials, On: OnWrite, As: WithToken,
		Source: "API gateways' and frameworks' token headers; RFC 9110 §11.7.1 (Proxy-Authorization is for the proxy)",
		Vary: func(r Request, env Env) []Variant {
			return each(tokenHeaders, func(h string) Variant {
				v := withoutToken(r)
				val := env.Token
				if h == "Proxy-Authorization" {
					val = "Bearer " + env.Token
				}
				v.Header.Set(h, val)
				return Variant{Request: v, What: fmt.Sprintf("the token in the header %s", h)}
			})
		},
	},
	{
		Name: "the token under another scheme", Family: FamilyCredentials, On: OnWrite, As: WithToken,
		Source: "RFC 6750 §2.1 (the Bearer scheme); Django REST framework's \"Token\", passport-jwt's \"JWT\", OAuth 1's \"OAuth\", RFC draft MAC",
		Vary: func(r Request, env Env) []Variant {
			return each(otherSchemes, func(scheme string) Variant {
				v := withoutToken(r)
				v.Header.Set("Authorization", scheme+env.Token)
				what := fmt.Sprintf("the token under the scheme %q", scheme[:max(0, len(scheme)-1)])
				if scheme == "" {
					what = "the token in Authorization without a scheme"
				}
				return Variant{Request: v, What: what}
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

// withoutToken is a copy of r without its Authorization header.
func withoutToken(r Request) Request {
	v := r.clone()
	v.Header.Del("Authorization")
	return v
}
