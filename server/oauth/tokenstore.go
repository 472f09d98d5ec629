package oauth

// TokenStore keeps the tokens the token endpoint issues, for the resource
// server to check. Store keeps them in this process's memory; RedisStore
// in a Redis that every replica of the server shares. Implementations are
// safe for concurrent use, and keep tokens by digest, never as issued.
//
// An implementation that cannot reach its backend returns an error for
// which errors.Is(err, backend.ErrUnavailable) holds; the server answers
// it with 503.
type TokenStore interface {
	// Issue creates a new access token and refresh token for g.
	Issue(g Grant) (Issued, error)
	// Refresh exchanges a refresh token of clientID for a new access
	// token, revokes the access token it issued before, and keeps the
	// refresh token and its expiry; scopes, when not empty, narrows the
	// grant (RFC 6749 §6). Its *Error values are those of Store.Refresh.
	Refresh(refreshToken, clientID string, scopes []string) (Issued, error)
	// Access returns the grant behind a valid access token, or
	// ErrInvalidToken when it is unknown, revoked or expired.
	Access(token string) (AccessToken, error)
	// Lifetimes are those of the tokens it issues.
	Lifetimes() Lifetimes
}

var _ TokenStore = (*Store)(nil)
