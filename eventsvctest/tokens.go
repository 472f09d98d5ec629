package eventsvctest

import (
	"net/http"
	"testing"

	"eventsvc/server/oauth"
)

// Token is a live token as the control API lists it, masked: its kind
// ("access" or "refresh"), its first four characters and an ellipsis, its
// user, client, scope, and when it was issued and expires.
type Token = oauth.TokenInfo

// TokenSelector picks live tokens: by Token, the start Tokens shows of
// one ("Ab3x" or "Ab3x…"), by User, an email, or both; Kind, "access" or
// "refresh", narrows either. Token or User is required.
type TokenSelector struct {
	Token string `json:"token,omitempty"`
	User  string `json:"user,omitempty"`
	Kind  string `json:"kind,omitempty"`
}

// Tokens returns the live tokens (GET /tokens), access tokens first.
func (s *Server) Tokens(tb testing.TB) []Token {
	tb.Helper()
	return member[[]Token](tb, s, http.MethodGet, "/tokens", nil, "tokens")
}

// RevokeTokens forgets the tokens sel picks, as a revocation does (POST
// /tokens/revoke): a client that sends one then gets 401 invalid_token.
// It returns them, and fails tb when sel picks none, or when its Token
// start picks several.
func (s *Server) RevokeTokens(tb testing.TB, sel TokenSelector) []Token {
	tb.Helper()
	return member[[]Token](tb, s, http.MethodPost, "/tokens/revoke", sel, "revoked")
}

// ExpireTokens makes the tokens sel picks expire now (POST
// /tokens/expire): a client that sends one then gets 401 with an error
// that says it expired. It returns them, and fails tb as RevokeTokens
// does.
func (s *Server) ExpireTokens(tb testing.TB, sel TokenSelector) []Token {
	tb.Helper()
	return member[[]Token](tb, s, http.MethodPost, "/tokens/expire", sel, "expired")
}
