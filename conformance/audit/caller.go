package audit

import (
	"net/http"
	"slices"
	"strings"
	"time"
)

// token is a token the audit saw issued.
type token struct {
	value     string // the token itself
	refresh   bool   // a refresh token; else an access token
	account   string // the username it acts for
	client    string // the client it was issued to
	scope     []string
	issued    span          // the request that issued it, in the world's time
	lifetime  time.Duration // expires_in of an access token; 0: unknown
	refreshed bool          // issued by a refresh grant
	// spentAt is when the refresh grant that spent the refresh token
	// issued with it was sent, in the world's time: a target may revoke it
	// from then on.
	spentAt time.Time
	partner string // the other token of the same answer
	// from is the refresh token whose refresh grant issued it; "" for
	// a password grant's.
	from string
	// uses are the refresh grants that sent a refresh token, in the
	// world's time.
	uses []refreshUse
}

// caller is who sent a request, as far as the audit can tell.
type caller struct {
	class   string // one of the classes below
	account string // the account of a valid token
	tok     *token
	// scheme is the Authorization scheme as the request wrote it.
	scheme string
}

// Classes of callers. A caller the audit cannot tell (a token it did not
// see issued, one about to expire, one whose refresh token was spent) is
// uncertain: no check depends on whether it holds a valid token.
const (
	callerAnonymous = "anonymous"            // no credentials at all
	callerValid     = "a valid access token" // one the audit saw issued to the run's client, alive
	callerInvalid   = "an invalid token"     // made up
	callerRefresh   = "a refresh token"      // a refresh token sent as an access token
	callerBasic     = "client credentials"   // HTTP Basic on the API
	callerElsewhere = "a token elsewhere"    // a token in a query, a form field or a cookie (SVC-4)
	callerUncertain = "a caller the audit cannot tell"
)

// margin is how close to its expiry a token is not judged either way.
const margin = 2 * time.Second

// callerOf classifies the caller of o.
func (w *world) callerOf(o *observed) caller {
	auth := o.x.Header.Get("Authorization")
	scheme, cred, _ := strings.Cut(strings.TrimSpace(auth), " ")
	cred = strings.TrimSpace(cred)
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case auth == "":
		if w.tokenElsewhereLocked(o) {
			return caller{class: callerElsewhere}
		}
		return caller{class: callerAnonymous}
	case strings.EqualFold(scheme, "Basic"):
		return caller{class: callerBasic, scheme: scheme}
	case !strings.EqualFold(scheme, "Bearer"):
		// An access token under another scheme, or none, is a token
		// elsewhere than "Authorization: Bearer" (SVC-4).
		if w.accessTokenLocked(cred) || cred == "" && w.accessTokenLocked(scheme) {
			return caller{class: callerElsewhere, scheme: scheme}
		}
		return caller{class: callerUncertain, scheme: scheme}
	case w.madeUps[cred]:
		return caller{class: callerInvalid, scheme: scheme}
	}
	t, ok := w.tokens[cred]
	switch {
	case !ok:
		return caller{class: callerUncertain, scheme: scheme}
	case t.refresh:
		return caller{class: callerRefresh, scheme: scheme, tok: t}
	}
	start, end := o.x.Start.Add(w.offset), o.x.End.Add(w.offset)
	if t.lifetime > 0 && start.After(t.issued.end.Add(t.lifetime+margin)) {
		// Whether it still works is the lifetime rules' (LIM-1): the
		// target's clock may run apart from the run's (a control API, a
		// clock of its own), and those rules' scenarios check it.
		return caller{class: callerUncertain, scheme: scheme, tok: t}
	}
	if t.account == "" || t.client != w.a.o.ClientID || !t.spentAt.IsZero() && t.spentAt.Before(end) || !hasScopes(t.scope, "read", "write") ||
		t.lifetime == 0 || !end.Before(t.issued.start.Add(t.lifetime-margin)) {
		return caller{class: callerUncertain, scheme: scheme, tok: t}
	}
	return caller{class: callerValid, account: t.account, tok: t, scheme: scheme}
}

// tokenElsewhereLocked reports whether o, sent without an Authorization
// header, carries an access token the audit saw issued anywhere else a
// server or a framework might read one: a query parameter or a form
// field of any name (RFC 6750 §2.2 and §2.3 name access_token), a cookie,
// any other header, with a scheme or without. The specification counts
// none of them (SVC-4).
func (w *world) tokenElsewhereLocked(o *observed) bool {
	for _, vs := range o.url.Query() {
		if slices.ContainsFunc(vs, w.accessTokenLocked) {
			return true
		}
	}
	for _, vs := range o.form {
		if slices.ContainsFunc(vs, w.accessTokenLocked) {
			return true
		}
	}
	for _, c := range (&http.Request{Header: http.Header{"Cookie": o.x.Header.Values("Cookie")}}).Cookies() {
		if w.accessTokenLocked(c.Value) {
			return true
		}
	}
	for name, vs := range o.x.Header {
		if name == "Authorization" || name == "Cookie" {
			continue
		}
		for _, v := range vs {
			_, cred, _ := strings.Cut(strings.TrimSpace(v), " ")
			if w.accessTokenLocked(strings.TrimSpace(v)) || w.accessTokenLocked(strings.TrimSpace(cred)) {
				return true
			}
		}
	}
	return false
}

// accessTokenLocked reports whether v is an access token the audit saw
// issued. w.mu is held.
func (w *world) accessTokenLocked(v string) bool {
	t, ok := w.tokens[v]
	return ok && !t.refresh
}

// hasScopes reports whether a token's scope holds every one of want; a
// token whose scope the answer did not say holds what was asked.
func hasScopes(scope []string, want ...string) bool {
	for _, s := range want {
		if !contains(scope, s) {
			return false
		}
	}
	return true
}

// refusedRule is the rule a caller without a valid token breaks when it
// is let do what only a valid token may: write (AUTH-3), or be offered a
// link for that.
func refusedRule(c caller, write bool) string {
	switch c.class {
	case callerRefresh:
		return "TOK-13"
	case callerBasic:
		return "AUTH-1"
	case callerElsewhere:
		return "SVC-4"
	}
	if write {
		return "AUTH-3"
	}
	return "API-3"
}

// who names a caller in a message.
func (c caller) who() string {
	switch c.class {
	case callerValid:
		return c.account + ", with a valid access token"
	case callerAnonymous:
		return "an anonymous caller"
	case callerUncertain:
		return c.class
	}
	return "a caller with " + c.class
}

// holds reports whether c still holds a valid token for the request that
// ended at end (real time), now that the audit knows more: a refresh of
// its token sent before then, whose answer came later, may have revoked
// it. A finding about a valid caller stands only while it holds.
func (w *world) holds(c caller, end time.Time) bool {
	if c.class != callerValid || c.tok == nil {
		return true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return c.tok.spentAt.IsZero() || !c.tok.spentAt.Before(end.Add(w.offset))
}
