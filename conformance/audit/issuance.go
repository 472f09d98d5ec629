package audit

import (
	"encoding/base64"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Issuance: the token endpoint issues a token for the registered client's
// exact credentials and an account's exact credentials, sent in a
// form-encoded POST, and for nothing else (spec TOK-1, TOK-2, TOK-3,
// TOK-4, TOK-10, TOK-14); a well-formed grant with them is answered with a
// token (TOK-3, TOK-4); a client whose Basic authentication failed is
// answered 401 and challenged for Basic (TOK-16). The checks judge by the
// run's credentials (Options.ClientSecret, Options.Logins), in a world
// whose server holds them (Scope.Move), and by the credentials the run
// made up (Scope.MadeUp), which no target holds. A credential the audit
// does not know (another client, an account that is not the run's) is not
// judged either way.

// refreshLifetime is how long a refresh token works by default (spec
// CLI-6; Options.RefreshLifetime): one older is not judged either way.
const refreshLifetime = 3600 * time.Second

// tokenAsk is a request of the token endpoint as the issuance checks
// read it.
type tokenAsk struct {
	params url.Values // its parameters, wherever they were sent
	// where is where they were: "" for a form-encoded POST body, else
	// what breaks TOK-2 ("the query of a GET").
	where string
	// scheme, id and secret are those of its Authorization header, when
	// it is Basic; rawID and rawSecret before form-decoding (RFC 6749
	// §2.3.1).
	scheme, id, secret, rawID, rawSecret string
	basic                                bool
}

// askOf reads o as a token request.
func askOf(o *observed) tokenAsk {
	var t tokenAsk
	mt, _, _ := mime.ParseMediaType(o.x.Header.Get("Content-Type"))
	switch {
	case o.x.Method != http.MethodPost:
		t.params, t.where = o.url.Query(), "the query of a "+o.x.Method
	case mt == "application/x-www-form-urlencoded" && (o.form.Has("grant_type") || !o.url.Query().Has("grant_type")):
		t.params = o.form
	case o.reqJSON != nil:
		t.params, t.where = url.Values{}, "a JSON body"
		for k, v := range o.reqJSON {
			if s, ok := v.(string); ok {
				t.params.Set(k, s)
			}
		}
	default:
		t.params, t.where = o.url.Query(), "the query of a POST"
	}
	if t.params == nil {
		t.params = url.Values{}
	}
	scheme, cred, _ := strings.Cut(strings.TrimSpace(o.x.Header.Get("Authorization")), " ")
	if strings.EqualFold(scheme, "Basic") {
		if raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred)); err == nil {
			t.basic, t.scheme = true, scheme
			t.rawID, t.rawSecret, _ = strings.Cut(string(raw), ":")
			t.id, t.secret = formDecoded(t.rawID), formDecoded(t.rawSecret)
		}
	}
	return t
}

// formDecoded is s form-decoded, or s when it does not decode.
func formDecoded(s string) string {
	if d, err := url.QueryUnescape(s); err == nil {
		return d
	}
	return s
}

// refusal is why a token request must not yield a token: the rule, and
// what was wrong, for a message; clientFailed for a client whose Basic
// authentication failed (TOK-16).
type refusal struct {
	rule, why    string
	clientFailed bool
	// missing is set for a request without a parameter it needs.
	missing bool
}

// mustRefuse says why t must yield no token, or nil when it may, or
// when the audit cannot tell. w.mu is held.
func (w *world) mustRefuse(t tokenAsk) *refusal {
	if t.params.Get("grant_type") == "" && t.where != "" {
		return nil // not a token request the audit can read
	}
	c := w.a.o
	if f := w.clientRefusal(t); f != nil {
		return f
	}
	if t.where != "" && (strings.HasPrefix(t.where, "a JSON") || c.Ref) {
		// A JSON body breaks TOK-2 as written; parameters in the query
		// (of a POST, or of another method) only the reference server's
		// choice: RFC 6749 §3.2 and §4.3.2 say what a client sends,
		// not what a server must refuse.
		return &refusal{rule: "TOK-2", why: "its parameters in " + t.where + ", not in a form-encoded POST body"}
	}
	if t.where != "" {
		return nil
	}
	switch t.params.Get("grant_type") {
	case "password":
		if w.someCopyLogsIn(t.params) {
			return nil // sent twice: a target may read the copy that logs in
		}
		user, pass := t.params.Get("username"), t.params.Get("password")
		switch {
		case user == "" || pass == "":
			return &refusal{rule: "TOK-3", why: "a password grant without a username or a password", missing: true}
		case user == c.ClientID && pass == c.ClientSecret:
			return &refusal{rule: "TOK-10", why: "the client's credentials as an account's username and password"}
		case w.madeUps[user]:
			return &refusal{rule: "TOK-3", why: "a password grant for a username no account has"}
		case w.madeUps[pass]:
			return &refusal{rule: "TOK-3", why: "a password grant with a made-up password"}
		}
		if want, known := w.loginOf(user); known && pass != want {
			return &refusal{rule: "TOK-3", why: fmt.Sprintf("a password grant for %s with a password other than theirs", user)}
		}
	case "refresh_token":
		spent := refreshParam(t.params)
		tok, known := w.tokens[spent]
		switch {
		case spent == "":
			return &refusal{rule: "TOK-4", why: "a refresh grant without a refresh token", missing: true}
		case w.madeUps[spent]:
			return &refusal{rule: "TOK-4", why: "a refresh grant with a made-up refresh token"}
		case known && !tok.refresh:
			return &refusal{rule: "TOK-14", why: "a refresh grant with an access token as its refresh token"}
		case known && tok.client != c.ClientID && t.id == c.ClientID:
			return &refusal{rule: "TOK-4", why: "a refresh grant with a refresh token issued to another client (RFC 6749 §6)"}
		}
	}
	return nil
}

// someCopyLogsIn reports whether a form that sends the username or the
// password more than once holds, among its copies, an account's exact
// credentials. w.mu is held.
func (w *world) someCopyLogsIn(params url.Values) bool {
	return (len(params["username"]) > 1 || len(params["password"]) > 1) && len(w.loggingIn(params)) > 0
}

// loggingIn are the usernames of a password grant's form, each once
// whatever its case, whose account's password the form sent too. w.mu is
// held.
func (w *world) loggingIn(form url.Values) []string {
	var out []string
	for _, u := range form["username"] {
		if want, known := w.loginOf(u); known && slices.Contains(form["password"], want) && !slices.ContainsFunc(out, func(v string) bool { return strings.EqualFold(u, v) }) {
			out = append(out, u)
		}
	}
	return out
}

// clientRefusal says why the client authentication of t fails, or nil
// when it succeeds or the audit cannot tell. w.mu is held.
func (w *world) clientRefusal(t tokenAsk) *refusal {
	c := w.a.o
	if t.basic {
		_, account := w.loginOf(t.id)
		switch {
		case t.id == c.ClientID && t.secret != c.ClientSecret && t.rawSecret != c.ClientSecret:
			return &refusal{rule: "TOK-1", why: "the client's id with a wrong secret", clientFailed: true}
		case account:
			return &refusal{rule: "TOK-10", why: "an account's username and password as the client's credentials", clientFailed: true}
		case w.madeUps[t.id] || w.madeUps[t.secret]:
			return &refusal{rule: "TOK-1", why: "made-up client credentials", clientFailed: true}
		}
		return nil
	}
	// RFC 6749 §2.3.1 lets a server take the client's credentials from
	// the form too: the right ones there are no fault.
	id, secret := t.params.Get("client_id"), t.params.Get("client_secret")
	switch {
	case id == c.ClientID && secret == c.ClientSecret && c.Ref:
		return &refusal{rule: "TOK-1", why: "the client's credentials in the form, not in HTTP Basic, which the reference server alone takes (RFC 6749 §2.3.1 lets a server take them there too)"}
	case id == c.ClientID && secret == c.ClientSecret:
		return nil
	case id == c.ClientID && secret != "":
		return &refusal{rule: "TOK-1", why: "the client's id with a wrong secret in the form"}
	case id == "" || id == c.ClientID:
		return &refusal{rule: "TOK-1", why: "no client authentication (HTTP Basic)"}
	}
	return nil // another client, whose secret the audit does not know
}

// mustIssue reports whether t is a well-formed grant with the client's
// and an account's exact credentials, or with a live refresh token the
// audit saw issued to the client (spent): the target must answer it with
// a token, unless another request replaced that refresh token before
// (replacedBefore). rule is the rule a refusal breaks. w.mu is held.
func (w *world) mustIssue(o *observed, t tokenAsk) (rule string, spent *token, ok bool) {
	c := w.a.o
	if t.where != "" || !t.basic || t.rawID != c.ClientID || t.rawSecret != c.ClientSecret {
		return "", nil, false
	}
	for k, v := range t.params {
		if len(v) != 1 || !slices.Contains([]string{"grant_type", "username", "password", "scope", "token", "refresh_token"}, k) {
			return "", nil, false
		}
	}
	if s, asked := t.params["scope"]; asked {
		for _, sc := range strings.Fields(s[0]) {
			if sc != "read" && sc != "write" {
				return "", nil, false
			}
		}
		if len(strings.Fields(s[0])) == 0 {
			return "", nil, false
		}
	}
	rule = "TOK-3"
	switch t.params.Get("grant_type") {
	case "password":
		want, known := c.Logins[t.params.Get("username")]
		if !known || want != t.params.Get("password") {
			return "", nil, false
		}
	case "refresh_token":
		rule = "TOK-4"
		if len(t.params["token"])+len(t.params["refresh_token"]) != 1 || t.params.Has("username") || t.params.Has("password") {
			return "", nil, false // a password grant's parameters beside: a strict server may refuse them (RFC 6749 §3.2 aside)
		}
		var known bool
		spent, known = w.tokens[refreshParam(t.params)]
		start := o.x.Start.Add(w.offset)
		if !known || !spent.refresh || spent.client != c.ClientID || !start.Before(spent.issued.start.Add(w.a.refreshLifetime()-time.Minute)) ||
			!spent.spentAt.IsZero() && spent.spentAt.Before(o.x.End.Add(w.offset)) {
			return "", nil, false
		}
	default:
		return "", nil, false
	}
	if t.scheme != "Basic" {
		rule = "SVC-7" // a refusal of "basic" spelt otherwise
	}
	return rule, spent, true
}

// replacedBefore reports whether the refresh token tok was replaced by
// another refresh grant than o that began before o's answer came, s
// being o's span in the world's time: one taken that answered another refresh token, after which a
// target may revoke it (RFC 6749 §6). A refresh token no answer replaced
// stays valid, however often it was sent, at once or not.
func (w *world) replacedBefore(tok *token, o *observed, s span) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, u := range tok.uses {
		if u.by != o && u.rotated && u.when.start.Before(s.end) {
			return true
		}
	}
	return false
}

// refreshParam is the refresh token of a refresh grant's parameters:
// "token", as the specification names it, or "refresh_token", as RFC
// 6749 §6 does.
func refreshParam(p url.Values) string {
	if v := p.Get("token"); v != "" {
		return v
	}
	return p.Get("refresh_token")
}

// loginOf is the password of the run's account whose username is user,
// in any case (an email's domain is, and a target may take all of it
// so); known is false for an account the audit does not know.
func (w *world) loginOf(user string) (password string, known bool) {
	for name, pass := range w.a.o.Logins {
		if strings.EqualFold(name, user) {
			return pass, true
		}
	}
	return "", false
}

// judgesLogins reports whether the world's server holds the run's
// credentials, so that issuance is judged by them.
func (w *world) judgesLogins() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.logins && w.a.o.ClientSecret != "" && len(w.a.o.Logins) > 0
}

// checkIssuance judges an answer of the token endpoint by the request it
// answers: a token for what must be refused, a refusal of what must be
// taken, a failed Basic client not challenged.
func (w *world) checkIssuance(o *observed) []*Finding {
	if !w.judgesLogins() {
		return nil
	}
	t := askOf(o)
	w.mu.Lock()
	refuse := w.mustRefuse(t)
	rule, spent, issue := w.mustIssue(o, t)
	at := span{o.x.Start.Add(w.offset), o.x.End.Add(w.offset)}
	w.mu.Unlock()
	access, _ := o.doc["access_token"].(string)
	switch {
	case refuse != nil:
		o.checked(refuse.rule)
		if access != "" {
			return []*Finding{finding(refuse.rule, "a token was issued for %s", refuse.why)}
		}
		if o.x.Status < 400 || o.x.Status > 499 {
			return []*Finding{finding(refuse.rule, "a token request with %s was answered %d, not refused with a 4xx", refuse.why, o.x.Status)}
		}
		if f := w.tokenErrorAsRef(o, refuse); f != nil {
			return []*Finding{f}
		}
		if refuse.clientFailed && t.where == "" {
			o.checked("TOK-16")
			if o.x.Status != http.StatusUnauthorized {
				return []*Finding{finding("TOK-16", "a client whose Basic authentication failed (%s) is answered %d, not 401", refuse.why, o.x.Status)}
			}
			if !namesItem(o.x.RespHeader.Values("WWW-Authenticate"), "basic", " ") {
				return []*Finding{finding("TOK-16", "the 401 to a client whose Basic authentication failed does not challenge it for Basic (WWW-Authenticate: %q)", strings.Join(o.x.RespHeader.Values("WWW-Authenticate"), ", "))}
			}
		}
	case issue:
		o.checked(rule)
		if access != "" || o.x.Status == http.StatusTooManyRequests {
			break
		}
		what := "the exact credentials of the client and the account"
		if spent != nil {
			what = "the client's exact credentials and a live refresh token issued to it"
		}
		f := finding(rule, "a %s grant with %s was answered %d, with no token", t.params.Get("grant_type"), what, o.x.Status)
		if spent != nil {
			f.Message += ": no answer replaced the refresh token, which stays valid (RFC 6749 §6)"
			f.stands = func() bool { return !w.replacedBefore(spent, o, at) }
		}
		return []*Finding{f}
	}
	return nil
}
