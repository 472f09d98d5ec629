// Package oauth is the reference server's OAuth 2.0 authorization server: the
// client registrations, the token store and the token endpoint's grants
// (password and refresh_token), with errors as RFC 6749 §5.2 and RFC 6750 §3
// describe them.
//
// It knows nothing of HTTP frameworks: the server package parses nothing
// itself and hands the raw header and body to ParseTokenRequest, then writes
// the TokenResponse or *Error that comes back.
//
// See https://www.rfc-editor.org/rfc/rfc6749 and
// https://www.rfc-editor.org/rfc/rfc6750.
package oauth
