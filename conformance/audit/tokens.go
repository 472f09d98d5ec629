package audit

import (
	"encoding/base64"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"eventsvc/conformance/jsonvalue"
)

// tokenPath is where the token endpoint is (spec: Endpoints).
const tokenPath = "/oauth/token"

// checkTokenAnswer checks an answer of the token endpoint that holds a
// token, whatever the grant (TokenAnswer: TOK-5, TOK-7, TOK-9, TOK-15),
// and learns the tokens it issues.
func (w *world) checkTokenAnswer(o *observed) []*Finding {
	access, _ := o.doc["access_token"].(string)
	if access == "" {
		return nil
	}
	grant := o.form.Get("grant_type")
	o.checked(TokenAnswerRules(grant)...)
	found := TokenAnswer(grant, o.form.Get("scope"), o.x.RespHeader, o.doc)
	switch grant {
	case "password", "refresh_token":
		refresh, _ := o.doc["refresh_token"].(string)
		if f := w.learnTokens(o, grant, access, refresh); f != nil {
			found = append(found, f)
		}
	}
	return found
}

// TokenAnswerRules are the rules TokenAnswer judges an answer to a grant
// of grant_type grant by.
func TokenAnswerRules(grant string) []string {
	switch grant {
	case "password":
		return []string{"TOK-15", "TOK-5", "TOK-7", "CLI-4"}
	case "refresh_token":
		return []string{"TOK-15", "TOK-5", "CLI-4"}
	case "":
		return []string{"TOK-15"}
	}
	return []string{"TOK-15", "TOK-9"}
}

// TokenAnswer is the registry's judgment of an answer of the token
// endpoint that holds a token, from the exchange alone, the one every
// runner's checks of it are: it must not be cached (TOK-15: RFC 6749
// §5.1's Cache-Control: no-store); it answers a grant the API supports
// (TOK-9); its fields are those of RFC 6749 §5.1 (TOK-5: tokenFields); the
// password grant's carries a refresh token (TOK-7). grant is the
// request's grant_type ("" when the request named none the audit could
// read: only TOK-15 is judged), asked the scope it asked for.
func TokenAnswer(grant, asked string, header http.Header, doc map[string]any) []*Finding {
	var found []*Finding
	if !namesItem(header.Values("Cache-Control"), "no-store", "=") {
		found = append(found, finding("TOK-15", "the answer to a %s grant holds a token, and does not say Cache-Control: no-store (it says %q)", grantName(grant), strings.Join(header.Values("Cache-Control"), ", ")))
	}
	switch grant {
	case "password", "refresh_token":
	case "":
		return found
	default:
		return append(found, finding("TOK-9", "a token was issued for the grant type %q: only password and refresh_token are supported", grant))
	}
	if f := tokenFields(doc, grant, asked); f != nil {
		found = append(found, f)
	}
	if refresh, _ := doc["refresh_token"].(string); grant == "password" && refresh == "" {
		found = append(found, finding("TOK-7", "the password grant's answer carries no refresh_token: the grant is one exchange that returns both tokens"))
	}
	if f := grantedScope(doc, asked); f != nil {
		found = append(found, f)
	}
	return found
}

// grantedScope checks that a token answer that says no scope was asked
// for none beyond the client's registration (CLI-4: read and write): an
// answer without scope grants the scope asked (RFC 6749 §5.1, §3.3), so
// a target that takes a scope it does not know must say what it granted.
func grantedScope(doc map[string]any, asked string) *Finding {
	if _, shown := doc["scope"]; shown {
		return nil // tokenFields judges it (TOK-5)
	}
	for _, sc := range strings.Fields(asked) {
		if sc != "read" && sc != "write" {
			return finding("CLI-4", "a token was issued to a request for the scope %q, and its answer says no scope: it grants the scope asked (RFC 6749 §5.1), and the client is registered for read and write alone", asked)
		}
	}
	return nil
}

// tokenFields checks the fields of a token answer (TOK-5): token_type
// "bearer" in any case (RFC 6749 §5.1), expires_in a whole number of
// seconds up to 600, and scope the set "read write" when the client asked
// for none. The refresh grant's answer is not shown by the specification:
// its expires_in and scope are checked when it has them (RFC 6749 §5.1
// makes both optional there).
func tokenFields(doc map[string]any, grant, asked string) *Finding {
	if tt, _ := doc["token_type"].(string); !strings.EqualFold(tt, "bearer") {
		return finding("TOK-5", "token_type is %s, want \"bearer\"", jsonvalue.Describe(doc["token_type"]))
	}
	exp, shown := doc["expires_in"]
	if shown || grant == "password" {
		n, ok := exp.(float64)
		if !ok || n != math.Trunc(n) || n <= 0 || n > 600 {
			return finding("TOK-5", "expires_in is %s, want a whole number of seconds from 1 to 600", jsonvalue.Describe(exp))
		}
	}
	scope, shown := doc["scope"]
	switch {
	case shown:
		s, ok := scope.(string)
		if !ok || len(strings.Fields(s)) == 0 {
			return finding("TOK-5", "scope is %s, want the granted scopes separated by spaces", jsonvalue.Describe(scope))
		}
		for _, sc := range strings.Fields(s) {
			if sc != "read" && sc != "write" {
				return finding("TOK-5", "scope is %s: the scopes are read and write", jsonvalue.Describe(scope))
			}
		}
		if grant == "password" && asked == "" && !jsonvalue.SameWords(s, "read write") {
			return finding("TOK-5", "scope is %s, want \"read write\"", jsonvalue.Describe(scope))
		}
	case grant == "password" && asked == "":
		return finding("TOK-5", "the answer has no scope, want \"read write\"")
	}
	return nil
}

// learnTokens keeps the tokens of a token answer: whose they are, their
// client and life. A token issued before for another account is a
// finding: the account's email is the username of its grant (ACC-1), and
// a token acts for one account.
func (w *world) learnTokens(o *observed, grant, access, refresh string) *Finding {
	// Every token issued in the run is masked wherever the run's
	// redactor writes (a finding, a script), whichever runner got it.
	w.a.o.Redactor.Add(access)
	w.a.o.Redactor.Add(refresh)
	client := basicUser(o.x.Header.Get("Authorization"))
	scope := strings.Fields(o.form.Get("scope"))
	if s, ok := o.doc["scope"].(string); ok {
		scope = strings.Fields(s)
	} else if len(scope) == 0 {
		scope = []string{"read", "write"}
	}
	var lifetime time.Duration
	if n, ok := o.doc["expires_in"].(float64); ok && n > 0 {
		lifetime = time.Duration(n) * time.Second
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	issued := span{o.x.Start.Add(w.offset), o.x.End.Add(w.offset)}
	account, refreshed, spent := w.grantAccount(o.form), false, ""
	var revoked time.Time // when a reuse of the refresh token sent may have revoked what it issues
	if grant == "refresh_token" {
		refreshed = true
		spent = refreshParam(o.form)
		old, ok := w.tokens[spent]
		if !ok || !old.refresh {
			return nil // a refresh token the audit did not see: whose it is is not known
		}
		account = old.account
		if refresh == "" || refresh == spent {
			// The refresh token stays: a refresh of it later spends
			// this access token.
			old.partner = access
		}
		revoked, _ = reusedAt(old)
	}
	if before, ok := w.tokens[access]; ok && before.account != account && account != "" {
		o.checked("ACC-1")
		return finding("ACC-1", "the %s grant for %s was answered with an access token issued before to %s: a token acts for the account whose email the grant names", grantName(grant), account, before.account)
	}
	w.tokens[access] = &token{value: access, account: account, client: client, scope: scope, issued: issued, lifetime: lifetime, refreshed: refreshed, partner: refresh, from: spent, spentAt: revoked}
	if !refreshed && account != "" {
		w.a.grants.issued(w.base, access, account, span{o.x.Start, o.x.End})
	}
	for _, u := range o.form["username"] {
		if u != "" && account != "" && !strings.EqualFold(u, account) {
			w.a.grants.named(access, u)
		}
	}
	if refresh != "" && refresh != spent {
		if _, seen := w.tokens[refresh]; !seen {
			w.tokens[refresh] = &token{refresh: true, account: account, client: client, scope: scope, issued: issued, partner: access, from: spent, spentAt: revoked}
		} else {
			w.tokens[refresh].partner = access
		}
	}
	return nil
}

// grantAccount is the account a password grant's form logs in: its
// username, or, of a form that sends the username more than once (which
// a target may refuse or read once, RFC 6749 §3.1), the one whose
// password it sent; "" when that is not one account (two that share the
// password). w.mu is held.
func (w *world) grantAccount(form url.Values) string {
	users := form["username"]
	if len(users) < 2 {
		return form.Get("username")
	}
	logsIn := w.loggingIn(form)
	if len(logsIn) != 1 {
		return "" // none, or accounts of one password: whichever copy it read, the target was right
	}
	return logsIn[0]
}

// reusedAt reports whether the refresh token r was sent again once a
// refresh of it had replaced it, and from when: a target that detects
// the reuse of a rotated refresh token may revoke every token issued
// from it (RFC 6749 §10.4), so none of them is taken for valid from
// then on. w.mu is held.
func reusedAt(r *token) (time.Time, bool) {
	var at time.Time
	for _, v := range r.uses {
		if !v.rotated {
			continue
		}
		for _, u := range r.uses {
			if u.by != v.by && (at.IsZero() || u.when.start.Before(at)) {
				at = u.when.start
			}
		}
	}
	return at, !at.IsZero()
}

// revokeFrom marks every token issued from the refresh token key, and
// from those in turn, as possibly revoked from at. w.mu is held.
func (w *world) revokeFrom(key string, at time.Time) {
	for k, t := range w.tokens {
		if t.from != key || !t.spentAt.IsZero() && !t.spentAt.After(at) {
			continue
		}
		t.spentAt = at
		if t.refresh {
			w.revokeFrom(k, at)
		}
	}
}

// noteSpent marks, for a refresh grant however it was answered, the
// access token issued with the refresh token it spent: the target may
// have revoked it.
func (w *world) noteSpent(o *observed) {
	if o.x.Method != http.MethodPost || o.path != tokenPath || o.form.Get("grant_type") != "refresh_token" {
		return
	}
	spent := refreshParam(o.form)
	w.mu.Lock()
	defer w.mu.Unlock()
	if old, ok := w.tokens[spent]; ok {
		answered, _ := o.doc["refresh_token"].(string)
		_, taken := o.doc["access_token"].(string)
		old.uses = append(old.uses, refreshUse{
			by:   o,
			when: span{o.x.Start.Add(w.offset), o.x.End.Add(w.offset)},
			// An answer the audit cannot read (a gateway's 5xx) may
			// hide a refresh the target took and rotated.
			rotated: taken && answered != "" && answered != spent || o.x.Status >= 500,
		})
		if at, reused := reusedAt(old); reused {
			w.revokeFrom(spent, at)
		}
		if partner, ok := w.tokens[old.partner]; ok && !partner.refresh && partner.spentAt.IsZero() {
			partner.spentAt = o.x.Start.Add(w.offset)
		}
	}
}

// refreshUse is a refresh grant that sent a refresh token: when, and
// whether it was taken with another refresh token in its answer, which
// replaces the one sent (RFC 6749 §6).
type refreshUse struct {
	by      *observed
	when    span
	rotated bool
}

// basicUser is the user of an HTTP Basic Authorization header, form-
// decoded (RFC 6749 §2.3.1); "" for any other.
func basicUser(auth string) string {
	scheme, cred, _ := strings.Cut(strings.TrimSpace(auth), " ")
	if !strings.EqualFold(scheme, "Basic") {
		return ""
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
	if err != nil {
		return ""
	}
	id, _, _ := strings.Cut(string(raw), ":")
	if u, err := url.QueryUnescape(id); err == nil {
		return u
	}
	return id
}

// grantName names a grant type in a message.
func grantName(g string) string {
	if g == "" {
		return "token request's"
	}
	return g
}

// namesItem reports whether a header whose values are comma-separated
// lists holds an item named name, case aside; an item's name ends at
// end: a space for a challenge's scheme (WWW-Authenticate), "=" for a
// directive (Cache-Control).
func namesItem(values []string, name, end string) bool {
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			first, _, _ := strings.Cut(strings.TrimSpace(item), end)
			if strings.EqualFold(first, name) {
				return true
			}
		}
	}
	return false
}
