package oauth

import (
	"fmt"
	"net/http"
	"time"
)

// Error is an OAuth 2.0 error response: the fields of RFC 6749 §5.2
// (https://www.rfc-editor.org/rfc/rfc6749#section-5.2) and RFC 6750 §3.1
// (https://www.rfc-editor.org/rfc/rfc6750#section-3.1), plus the HTTP status
// it is sent with. Description never holds a secret or a token.
type Error struct {
	// Code is the "error" field, for example "invalid_grant".
	Code string `json:"error"`
	// Description is the "error_description" field: one human-readable
	// sentence saying what was wrong.
	Description string `json:"error_description,omitempty"`
	// Status is the HTTP status code the error is sent with.
	Status int `json:"-"`
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter time.Duration `json:"-"`
}

// The errors of the token endpoint (RFC 6749 §5.2) and of the resource server
// (RFC 6750 §3.1), with the status the reference server sends them with. Use
// WithDescription to say what exactly was wrong, and errors.Is to compare.
var (
	ErrInvalidRequest       = &Error{Code: "invalid_request", Status: http.StatusBadRequest}
	ErrInvalidClient        = &Error{Code: "invalid_client", Status: http.StatusUnauthorized}
	ErrInvalidGrant         = &Error{Code: "invalid_grant", Status: http.StatusBadRequest}
	ErrUnauthorizedClient   = &Error{Code: "unauthorized_client", Status: http.StatusBadRequest}
	ErrUnsupportedGrantType = &Error{Code: "unsupported_grant_type", Status: http.StatusBadRequest}
	ErrInvalidScope         = &Error{Code: "invalid_scope", Status: http.StatusBadRequest}

	// ErrUnauthorized is sent when a request that needs a token has none.
	// RFC 6750 §3.1 says such a response carries no error code in
	// WWW-Authenticate; the body still names the problem.
	ErrUnauthorized      = &Error{Code: "unauthorized", Status: http.StatusUnauthorized}
	ErrInvalidToken      = &Error{Code: "invalid_token", Status: http.StatusUnauthorized}
	ErrInsufficientScope = &Error{Code: "insufficient_scope", Status: http.StatusForbidden}
	ErrAccessDenied      = &Error{Code: "access_denied", Status: http.StatusForbidden}

	// ErrTooManyAttempts refuses a client or a user, from one address,
	// that failed to authenticate too often (RFC 6749 §4.3.2 asks for
	// such protection; it defines no error code for it).
	ErrTooManyAttempts = &Error{Code: "too_many_attempts", Status: http.StatusTooManyRequests}
)

// Error returns the code and the description.
func (e *Error) Error() string {
	if e.Description == "" {
		return e.Code
	}
	return e.Code + ": " + e.Description
}

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, ErrInvalidGrant) holds for every described copy.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// WithDescription returns a copy of e whose description is the formatted
// sentence.
func (e *Error) WithDescription(format string, args ...any) *Error {
	c := *e
	c.Description = fmt.Sprintf(format, args...)
	return &c
}
