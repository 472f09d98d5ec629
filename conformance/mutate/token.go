package mutate

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode"
)

// The token endpoint: a password grant with the run's exact credentials
// sent as JSON, or asking for a scope the client is not registered for
// (and, against the reference server, by another method, or with its
// parameters in the query); and grants with a
// near-miss of each credential. A token is issued for the registered
// client's and an account's exact credentials in a form-encoded POST, and
// for nothing else (spec TOK-1, TOK-2, TOK-3, TOK-10), with no scope
// beyond the client's (CLI-4, TOK-5).

var tokenOps = []Operator{
	{
		Name: "a near-miss of the refresh token", Family: FamilyToken, Parts: []string{PartRefreshToken}, Way: ByValue, On: OnRefresh, As: WithToken,
		Source: "OWASP WSTG-ATHN-04 (bypassing the authentication schema); RFC 6749 §6 and §5.2 (a refresh token that is invalid: invalid_grant); common faults: tokens kept in a column of a case-insensitive collation, compared by a prefix or a LIKE pattern",
		Vary: func(r Request, env Env) []Variant {
			form, _ := url.ParseQuery(string(r.Body))
			param := "refresh_token"
			if form.Get(param) != env.Refresh {
				param = "token"
			}
			if env.Refresh == "" || form.Get(param) != env.Refresh {
				return nil
			}
			return tokenNearMisses("the refresh token", env.Refresh, env.Credentials, func(v string) Request { return withParam(r, param, v) })
		},
	},
	{
		Name: CredentialNearMissOp, Family: FamilyToken, Parts: []string{PartPassword, PartUsername, PartClientSecret, PartClientID}, Way: ByValue, On: OnGrant, As: Anyone, NearMisses: true,
		Source: "OWASP WSTG-ATHN-04 (bypassing the authentication schema) and WSTG-ATHN-07 (weak password policy); common faults: passwords compared by a case-insensitive collation (MySQL's default) or by their first characters (crypt(3)'s eight, bcrypt's 72 bytes); client ids and usernames matched by a prefix or a LIKE pattern; RFC 6749 §2.3.1. No space is added or dropped: a verifier may normalise spaces (NIST SP 800-63B §5.1.1.2)",
		Vary: func(r Request, env Env) []Variant {
			// The likeliest faults first: a run's budget of failed logins
			// is small.
			with := map[string]func(string) Request{
				PartPassword:     func(v string) Request { return withParam(r, "password", v) },
				PartUsername:     func(v string) Request { return withParam(r, "username", v) },
				PartClientSecret: func(v string) Request { return withHeader(r, "Authorization", env.Basic(env.ClientID.Value, v)) },
				PartClientID:     func(v string) Request { return withHeader(r, "Authorization", env.Basic(v, env.ClientSecret.Value)) },
			}
			of := map[string]Var{PartPassword: env.Password, PartUsername: env.Username, PartClientSecret: env.ClientSecret, PartClientID: env.ClientID}
			var out []Variant
			for _, nm := range credentialNearMisses {
				if v, ok := nearMissOf(of[nm.part], nm.way, with[nm.part], env.Credentials); ok {
					v.Kind = nm.kind()
					out = append(out, v)
				}
			}
			return out
		},
	},
	{
		Name: "a username repeated, another account's in one copy", Family: FamilyToken, Parts: []string{PartUsername}, Way: ByMultiplicity, On: OnGrant, As: Anyone, NearMisses: true,
		Source: "RFC 6749 §3.1 (a parameter MUST NOT be sent more than once: a server may refuse it or read one copy); OWASP WSTG-INPV-04 (HTTP parameter pollution: the check reads one copy, the code that issues the token another)",
		Vary: func(r Request, env Env) []Variant {
			form, err := url.ParseQuery(string(r.Body))
			own := form.Get("username")
			if err != nil || own == "" || env.OtherUsername == "" || form.Get("grant_type") != "password" {
				return nil
			}
			return each([][]string{{own, env.OtherUsername}, {env.OtherUsername, own}}, func(users []string) Variant {
				v := r.clone()
				form["username"] = users
				v.Body = []byte(form.Encode())
				what := "username sent twice, the account's own then the other account's, with the account's password"
				if users[0] != own {
					what = "username sent twice, the other account's then the account's own, with the account's password"
				}
				return Variant{Request: v, What: what, NearMiss: true}
			})
		},
	},
	{
		Name: "a username beside the refresh token", Family: FamilyToken, Parts: []string{PartFormParam}, Way: ByMultiplicity, On: OnRefresh, As: WithToken,
		Source: "RFC 6749 §3.2 (a parameter the grant does not take is ignored) and §6 (a refresh issues a token of the refresh token's own user); a token handler shared by the grants that reads username when it is there",
		Vary: func(r Request, env Env) []Variant {
			form, err := url.ParseQuery(string(r.Body))
			if err != nil || env.OtherUsername == "" || form.Get("grant_type") != "refresh_token" {
				return nil
			}
			return []Variant{{Request: withParam(r, "username", env.OtherUsername), What: "the other account's username beside the refresh token"}}
		},
	},
	{
		Name: "the grant by another method", Family: FamilyToken, Parts: []string{PartMethod}, Way: ByValue, On: OnGrant, As: Anyone, Ref: true,
		Source: "RFC 6749 §3.2 (the client MUST use POST at the token endpoint; the reference server takes nothing else, TOK-2 with -ref)",
		Vary: func(r Request, _ Env) []Variant {
			return each([]string{http.MethodGet, http.MethodPut}, func(m string) Variant {
				v := paramsInQuery(r)
				v.Method = m
				return Variant{Request: v, What: fmt.Sprintf("sent with %s, its parameters in the query", m)}
			})
		},
	},
	{
		Name: "the grant's parameters in the query", Family: FamilyToken, Parts: []string{PartFormParam, PartQuery}, Way: ByPlace, On: OnGrant, As: Anyone, Ref: true,
		Source: "RFC 6749 §4.3.2 (the parameters are form-encoded in the body; the reference server reads them nowhere else, TOK-2 with -ref)",
		Vary: func(r Request, _ Env) []Variant {
			return []Variant{{Request: paramsInQuery(r), What: "a POST with its parameters in the query and no body"}}
		},
	},
	{
		Name: "the client's credentials in the form", Family: FamilyToken, Parts: []string{PartClientID, PartClientSecret}, Way: ByPlace, On: OnGrant, As: Anyone, Ref: true,
		Source: "RFC 6749 §2.3.1 (a server MAY take client_id and client_secret in the body, NOT RECOMMENDED); spec TOK-1 (HTTP Basic): the reference server takes Basic alone, with -ref",
		Vary: func(r Request, env Env) []Variant {
			if r.Header.Get("Authorization") == "" || env.ClientID.Value == "" {
				return nil
			}
			v := withParam(withParam(r, "client_id", env.ClientID.Value), "client_secret", env.ClientSecret.Value)
			v.Header.Del("Authorization")
			return []Variant{{Request: v, What: "the client's id and secret in the form, not in HTTP Basic"}}
		},
	},
	{
		Name: "the grant type in another case", Family: FamilyToken, Parts: []string{PartFormParam}, Way: BySpelling, On: OnGrant, As: Anyone, Ref: true,
		Source: "RFC 6749 §4.3.2 (grant_type MUST be set to \"password\"); spec TOK-9 (any other grant type is refused); the reference server takes the names as written, with -ref (a deployment may take them in any case)",
		Vary: func(r Request, _ Env) []Variant {
			form, err := url.ParseQuery(string(r.Body))
			if err != nil || form.Get("grant_type") == "" {
				return nil
			}
			g := form.Get("grant_type")
			return each([]string{strings.ToUpper(g), strings.ToUpper(g[:1]) + g[1:]}, func(spelt string) Variant {
				return Variant{Request: withParam(r, "grant_type", spelt), What: fmt.Sprintf("grant_type=%s", spelt)}
			})
		},
	},
	{
		Name: "the grant as JSON", Family: FamilyToken, Parts: []string{PartBody}, Way: ByType, On: OnGrant, As: Anyone,
		Source: "RFC 6749 §4.3.2 (application/x-www-form-urlencoded); spec TOK-2 (form-encoded, not JSON)",
		Vary: func(r Request, _ Env) []Variant {
			form, err := url.ParseQuery(string(r.Body))
			if err != nil {
				return nil
			}
			m := map[string]string{}
			for k := range form {
				m[k] = form.Get(k)
			}
			v := r.clone()
			v.Body, _ = json.Marshal(m)
			v.Header.Set("Content-Type", "application/json")
			return []Variant{{Request: v, What: "its parameters in a JSON body"}}
		},
	},
	{
		Name: "a scope beyond the client's", Family: FamilyToken, Parts: []string{PartFormParam}, Way: ByValue, On: OnGrant, As: Anyone,
		Source: "RFC 6749 §3.3 (the server may issue less than asked, never more than the client is registered for); spec CLI-4",
		Vary: func(r Request, _ Env) []Variant {
			return each([]string{"read write admin", "admin", "openid", "read write delete"}, func(scope string) Variant {
				return Variant{Request: withParam(r, "scope", scope), What: fmt.Sprintf("asking for the scope %q", scope)}
			})
		},
	},
}

// paramsInQuery is r with its form's parameters in its query, and no
// body.
func paramsInQuery(r Request) Request {
	v := r.clone()
	form, _ := url.ParseQuery(string(r.Body))
	q := v.URL.Query()
	for k, vs := range form {
		q[k] = vs
	}
	v.URL.RawQuery = q.Encode()
	v.Body = nil
	v.Header.Del("Content-Type")
	return v
}

// withParam is r with its form parameter name set to value.
func withParam(r Request, name, value string) Request {
	v := r.clone()
	form, _ := url.ParseQuery(string(r.Body))
	form.Set(name, value)
	v.Body = []byte(form.Encode())
	return v
}

// withHeader is r with its header name set to value.
func withHeader(r Request, name, value string) Request {
	v := r.clone()
	v.Header.Set(name, value)
	return v
}

// CredentialNearMissOp is the operator whose near-misses of the grant's
// credentials a run sends the likeliest first, then from a place its seed
// chooses (CredentialNearMissHead).
const CredentialNearMissOp = "a near-miss of a credential"

// credentialNearMiss is a near-miss of one part of the grant's
// credentials by one way.
type credentialNearMiss struct{ part, way string }

// Near-misses of a credential: one step from it.
const (
	dropLast  = "its last character dropped"
	appendOne = "a character appended"
	swapCase  = "the case of its letters swapped"
	changeOne = "its first character changed"
	appendTwo = "two characters appended"
)

// credentialNearMisses are the near-misses of the grant's credentials, by
// part and way, in the order a run sends them: the scenarios' wrong
// logins send a near-miss of the password's case and every kind of the
// client secret's (NearMissWays), so the password's other kinds come
// first (CredentialNearMissHead); the rest, a run's small budget of
// failed logins sends from a place its seed chooses.
var credentialNearMisses = []credentialNearMiss{
	{PartPassword, appendOne}, {PartPassword, dropLast}, {PartPassword, changeOne},
	{PartUsername, appendOne}, {PartClientSecret, swapCase}, {PartClientSecret, appendOne},
	{PartUsername, dropLast}, {PartClientID, appendOne}, {PartClientSecret, dropLast},
	{PartClientID, dropLast}, {PartPassword, swapCase}, {PartClientSecret, changeOne},
}

// kind names a near-miss of a credential for people: "the password with
// a character appended".
func (nm credentialNearMiss) kind() string { return "the " + nm.part + " with " + nm.way }

// CredentialNearMissKinds names every near-miss of the grant's
// credentials, in the order a run sends them (Variant.Kind).
func CredentialNearMissKinds() []string {
	return each(credentialNearMisses, credentialNearMiss.kind)
}

// CredentialNearMissHead is how many near-misses of the grant's
// credentials every run sends first, in their order, when its budget of
// failed logins allows; CredentialNearMisses is how many there are.
const CredentialNearMissHead = 3

// CredentialNearMisses is how many near-misses of the grant's credentials
// the operator "a near-miss of a credential" has.
func CredentialNearMisses() int { return len(credentialNearMisses) }

// NearMissWays are the kinds of near-miss of a credential, the
// scenarios' wrong logins's turn by turn.
var NearMissWays = []string{swapCase, appendOne, dropLast, changeOne}

// NearMiss is the near-miss of c by way (one of NearMissWays), with the
// shell expression of c's variable that writes it; false when there is
// none that is not c itself or one of others, the run's credentials.
func NearMiss(c Var, way string, others []string) (Var, bool) {
	v, ok := nearMissOf(c, way, func(string) Request { return Request{} }, others)
	if !ok {
		return Var{}, false
	}
	return v.Vars[0], true
}

// nearMissOf is the variant, built by with, that sends the near-miss of
// c by way; false when it is c itself or another credential of others,
// or cannot be written as a change of c's variable.
func nearMissOf(c Var, way string, with func(string) Request, others []string) (Variant, bool) {
	if c.Value == "" || c.Name == "" {
		return Variant{}, false
	}
	name := strings.TrimSuffix(strings.TrimPrefix(c.Name, "${"), "}")
	value, expr := nearMiss(c.Value, name, way)
	if value == c.Value || value == "" || slices.Contains(others, value) {
		return Variant{}, false // a near-miss that is a credential of the run is none
	}
	if way == dropLast && c.Value[len(c.Value)-1] >= 0x80 || way == changeOne && c.Value[0] >= 0x80 {
		return Variant{}, false // "${V%?}" and "${V#?}" drop a byte in the C locale, not a character
	}
	if !keepsMeaning(c.Value, way) {
		return Variant{}, false
	}
	return Variant{Request: with(value), What: fmt.Sprintf("%s with %s", c.Name, way), NearMiss: true, Vars: []Var{{Value: value, Name: expr}}}, true
}

// keepsMeaning reports whether value changed by way is another
// credential to a correct verifier: bcrypt reads 72 bytes of a password
// and no more (so a character appended past them, or the last of a
// longer one dropped, changes nothing it compares), and a verifier may
// normalise spaces (NIST SP 800-63B §5.1.1.2), a trailing one too.
func keepsMeaning(value, way string) bool {
	switch way {
	case appendOne:
		return len(value) < bcryptBytes
	case dropLast:
		return len(value) <= bcryptBytes && !unicode.IsSpace(rune(value[len(value)-1]))
	}
	return true
}

// bcryptBytes is how much of a password bcrypt reads.
const bcryptBytes = 72

// tokenNearMisses are the variants, built by with, that send a
// near-miss of token (named what) instead of it, each made up and
// written from the token's variable (Derived): its case swapped, but of
// a token of hex digits (a UUID), which names the same value in either
// case; two characters appended, which change the bytes a lenient
// base64url decoder reads (one alone may be ignored as the leftover of a
// group of four); its last one dropped. None is one of credentials.
func tokenNearMisses(what, token string, credentials []string, with func(string) Request) []Variant {
	ways := []string{appendTwo, dropLast}
	if strings.Trim(token, "0123456789abcdefABCDEF-") != "" {
		ways = append([]string{swapCase}, ways...)
	}
	var out []Variant
	for _, way := range ways {
		value, expr := nearMiss(token, tokenVar, way)
		if value == token || value == "" || slices.Contains(credentials, value) {
			continue
		}
		out = append(out, Variant{Request: with(value), What: what + " with " + way, Derived: []Derived{{Value: value, Of: token, Expr: expr}}})
	}
	return out
}

// nearMiss is value changed by way, and the shell expression that
// writes it from the variable name.
func nearMiss(value, name, way string) (string, string) {
	switch way {
	case dropLast:
		r := []rune(value)
		return string(r[:len(r)-1]), "${" + name + "%?}"
	case appendOne:
		return value + "x", "${" + name + "}x"
	case appendTwo:
		return value + "xx", "${" + name + "}xx"
	case swapCase:
		return swapped(value), `$(printf %s "${` + name + `}" | tr a-zA-Z A-Za-z)`
	case changeOne:
		first := "x"
		if value[0] == 'x' {
			first = "y"
		}
		return first + value[1:], first + "${" + name + "#?}"
	}
	return value, "${" + name + "}"
}

// swapped is s with the case of its ASCII letters swapped, as tr does.
func swapped(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z':
			b[i] = c - 'a' + 'A'
		case 'A' <= c && c <= 'Z':
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}
