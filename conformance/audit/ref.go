package audit

import (
	"net/http"
	"strings"
)

// The reference server's choices where the specification leaves one
// open (rules of kind ref), judged in a run whose target is taken for the
// reference server (Options.Ref): a request refused for want of a valid
// token is answered 401 and challenged for Bearer (AUTH-7, RFC 6750 §3);
// a refused token request carries the RFC 6749 §5.2 error the reference
// server chose for its fault (TOK-11).

// refusedAsRef judges o, a write refused for want of a valid token, by
// AUTH-7.
func (w *world) refusedAsRef(o *observed) *Finding {
	switch o.x.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return nil // a method the server need not know: refused before any security filter (RFC 9110 §9.1)
	}
	if !w.a.o.Ref {
		return nil
	}
	o.checked("AUTH-7")
	if o.x.Status != http.StatusUnauthorized || !namesItem(o.x.RespHeader.Values("WWW-Authenticate"), "bearer", " ") {
		return finding("AUTH-7", "%s %s, without a valid token, is answered %d (WWW-Authenticate: %q), not 401 challenged for Bearer", o.x.Method, o.path, o.x.Status, strings.Join(o.x.RespHeader.Values("WWW-Authenticate"), ", "))
	}
	return nil
}

// tokenErrorAsRef judges o, a token request refused for r, by TOK-11: a
// client whose Basic authentication failed gets 401 invalid_client; a
// request without a parameter it needs, 400 invalid_request; wrong
// credentials of an account, an access token or a made-up token
// as the refresh token, 400 invalid_grant. The other refusals' errors
// are not judged here.
func (w *world) tokenErrorAsRef(o *observed, r *refusal) *Finding {
	if !w.a.o.Ref {
		return nil
	}
	status, code := http.StatusBadRequest, "invalid_grant"
	switch {
	case r.clientFailed:
		status, code = http.StatusUnauthorized, "invalid_client"
	case r.missing:
		code = "invalid_request"
	case r.rule == "TOK-1" || r.rule == "TOK-2":
		return nil
	}
	o.checked("TOK-11")
	if got, _ := o.doc["error"].(string); o.x.Status != status || got != code {
		return finding("TOK-11", "a token request with %s is refused %d %q, want %d %q", r.why, o.x.Status, got, status, code)
	}
	return nil
}
