package oauth

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"eventsvc/server/account"
	"eventsvc/server/secret"
	"eventsvc/server/throttle"
)

// TokenTypeBearer is the token_type of every token response (spec TOK-5).
const TokenTypeBearer = "bearer"

// TokenResponse is the body of a successful token response (RFC 6749 §5.1,
// https://www.rfc-editor.org/rfc/rfc6749#section-5.1).
type TokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"`
}

// TokenEndpoint answers POST /oauth/token.
type TokenEndpoint struct {
	Clients  *Clients
	Accounts *account.Registry
	Store    TokenStore
	// Guard refuses, for a while, a client or a user that failed too often
	// from one address; every attempt is reserved with it before its
	// credentials are checked. Nil: no limit. A *throttle.Throttle keeps
	// the count in this process, a *throttle.RedisGuard shares it between
	// replicas.
	Guard throttle.Guard
	// Budget bounds the requests of one address, whatever client or user
	// they name: each spends one unit before anything else, and a client
	// authentication that checks the credentials both form-decoded and as
	// sent spends one more, for its second bcrypt. Nil: no limit.
	Budget *throttle.Budget
	// OnLockout, when set, is told of every user ("user") or client
	// ("client") that a failure locks out, for the metrics.
	OnLockout func(kind string)

	// verified remembers client credentials that passed bcrypt, so that
	// bcrypt is paid once per client (see verifiedClients).
	verified verifiedClients
}

// Exchange is ExchangeFrom for a caller whose address is unknown: the
// Guard counts all such callers as one.
func (e *TokenEndpoint) Exchange(authorization, contentType string, body []byte) (TokenResponse, error) {
	return e.ExchangeFrom("", authorization, contentType, body)
}

// ExchangeFrom handles one token request from the address remote, given the raw Authorization header,
// Content-Type header and body. It returns the response to send, or an
// *Error. The client is authenticated first, so that nothing about the
// request is answered to an unknown client. Its credentials are
// form-decoded (RFC 6749 §2.3.1); when they do not match so, they are tried
// as sent, for clients that do not form-encode them.
func (e *TokenEndpoint) ExchangeFrom(remote, authorization, contentType string, body []byte) (TokenResponse, error) {
	if wait, ok := e.Budget.Take(remote, 1); !ok {
		return TokenResponse{}, tooManyRequests(wait)
	}
	client, err := e.authenticateClient(remote, authorization)
	if err != nil {
		return TokenResponse{}, err
	}
	form, err := ParseForm(contentType, body)
	if err != nil {
		return TokenResponse{}, err
	}
	if _, ok := form["client_secret"]; ok {
		return TokenResponse{}, ErrInvalidRequest.WithDescription("the client authenticates with HTTP Basic only; do not send client_secret in the body")
	}
	if v, err := param(form, "client_id"); err != nil {
		return TokenResponse{}, err
	} else if v != "" && v != client.ID {
		return TokenResponse{}, ErrInvalidRequest.WithDescription("client_id does not match the authenticated client")
	}
	grantType, err := required(form, "grant_type")
	if err != nil {
		return TokenResponse{}, err
	}
	var issued Issued
	switch grantType {
	case GrantPassword, GrantRefreshToken:
		if !client.AllowsGrant(grantType) {
			return TokenResponse{}, ErrUnauthorizedClient.WithDescription("the client may not use the %s grant", grantType)
		}
	default:
		return TokenResponse{}, ErrUnsupportedGrantType.WithDescription("grant type %q is not supported; use password or refresh_token", grantType)
	}
	if grantType == GrantPassword {
		issued, err = e.passwordGrant(remote, client, form)
	} else {
		issued, err = e.refreshGrant(client, form)
	}
	if err != nil {
		return TokenResponse{}, err
	}
	return TokenResponse{
		AccessToken:  issued.AccessToken,
		TokenType:    TokenTypeBearer,
		RefreshToken: issued.RefreshToken,
		ExpiresIn:    issued.ExpiresIn,
		Scope:        strings.Join(issued.Scopes, " "),
	}, nil
}

// authenticateClient checks the Basic credentials: form-decoded (RFC 6749
// §2.3.1) first, then, when they do not match or do not decode, as sent,
// for clients such as curl -u that do not form-encode them. A client id
// longer than MaxClientIDLen or a secret longer than secret.MaxLen bytes
// is refused before anything is looked up. Otherwise the attempt is
// reserved with the Guard before any check, so that a client id that
// failed too often from remote is refused, however many attempts arrive
// at once.
func (e *TokenEndpoint) authenticateClient(remote, authorization string) (Client, error) {
	id, secretText, parseErr := ParseBasic(authorization)
	rawID, rawSecret, rawOK := rawBasic(authorization)
	type credentials struct{ id, secret string }
	var tries []credentials
	if parseErr == nil {
		tries = append(tries, credentials{id, secretText})
	}
	if rawOK && rawID != "" && (parseErr != nil || rawID != id || rawSecret != secretText) {
		tries = append(tries, credentials{rawID, rawSecret})
	}
	if len(tries) == 0 {
		return Client{}, parseErr
	}
	for _, c := range tries {
		switch {
		case len(c.id) > MaxClientIDLen:
			return Client{}, ErrInvalidClient.WithDescription("the client id is longer than %d bytes", MaxClientIDLen)
		case len(c.secret) > secret.MaxLen:
			return Client{}, ErrInvalidClient.WithDescription("the client secret is longer than %d bytes", secret.MaxLen)
		}
	}
	key := throttle.KeyOf("client", remote, tries[0].id)
	for _, c := range tries {
		if client, ok := e.verifiedClient(c.id, c.secret); ok {
			// No bcrypt to pay, so nothing to reserve; but a locked key
			// is refused even the right secret, and a success clears
			// the count as it does after bcrypt.
			if err := e.pass("client", key); err != nil {
				return Client{}, err
			}
			return client, nil
		}
	}
	if len(tries) > 1 {
		if wait, ok := e.Budget.Take(remote, 1); !ok {
			return Client{}, tooManyRequests(wait)
		}
	}
	if err := e.reserve("client", key); err != nil {
		return Client{}, err
	}
	var client Client
	var err error
	for _, c := range tries {
		if client, err = e.Clients.Authenticate(c.id, c.secret); err == nil {
			e.verified.store(c.id, c.secret, client)
			break
		}
	}
	if err != nil {
		if gerr := e.end("client", key, false, tries[0].secret); gerr != nil {
			return Client{}, gerr
		}
		if errors.Is(err, ErrClientNotAuthenticated) {
			return Client{}, ErrInvalidClient.WithDescription("client authentication failed")
		}
		return Client{}, fmt.Errorf("authenticate client: %w", err)
	}
	if err := e.end("client", key, true, ""); err != nil {
		return Client{}, err
	}
	return client, nil
}

// verifiedClient returns the client whose id and secret passed bcrypt
// before, if they did and the client is still registered with the secret
// they passed against: a secret replaced or a client removed (Clients.Replace)
// is checked by bcrypt again, and fails, at once. The client returned is
// the registration as it is now.
func (e *TokenEndpoint) verifiedClient(id, secret string) (Client, bool) {
	was, ok := e.verified.load(id, secret)
	if !ok {
		return Client{}, false
	}
	now, ok := e.Clients.Lookup(id)
	if !ok || now.SecretHash != was.SecretHash {
		return Client{}, false
	}
	return now, true
}

// reserve reserves an attempt of key with the Guard, or returns why not:
// too_many_attempts for a key locked out or busy, or the Guard's error
// when it cannot count (a shared lockout whose Redis is unreachable).
func (e *TokenEndpoint) reserve(who string, key throttle.Key) error {
	return e.admit(who, key, throttle.Guard.Begin, "reserve a %s attempt")
}

// pass is reserve and a success in one, without reserving, for a
// credential known to be right (Guard.Pass).
func (e *TokenEndpoint) pass(who string, key throttle.Key) error {
	return e.admit(who, key, throttle.Guard.Pass, "check the %s lockout")
}

// admit asks the Guard through step (its Begin or its Pass) whether key
// may go on: nil when it may or there is no Guard, too_many_attempts when
// it is refused, or the Guard's error, wrapped as doing says (a format
// of who, written only when there is an error).
func (e *TokenEndpoint) admit(who string, key throttle.Key, step func(throttle.Guard, throttle.Key) (time.Duration, bool, error), doing string) error {
	if e.Guard == nil {
		return nil
	}
	left, ok, err := step(e.Guard, key)
	if err != nil {
		return fmt.Errorf("%s: %w", fmt.Sprintf(doing, who), err)
	}
	if !ok {
		return tooManyAttempts(who, left)
	}
	return nil
}

// end ends an attempt of reserve, failed with the secret wrong or
// succeeded, and tells OnLockout when its failure locked the key.
func (e *TokenEndpoint) end(who string, key throttle.Key, succeeded bool, wrong string) error {
	if e.Guard == nil {
		return nil
	}
	locked, err := e.Guard.End(key, succeeded, wrong)
	if err != nil {
		return fmt.Errorf("count a login attempt: %w", err)
	}
	if locked && e.OnLockout != nil {
		e.OnLockout(who)
	}
	return nil
}

// tooManyAttempts is the refusal of a guarded key, retry in left.
func tooManyAttempts(who string, left time.Duration) *Error {
	secs := wholeSeconds(left)
	err := ErrTooManyAttempts.WithDescription("too many failed attempts for this %s from this address; try again in %d seconds", who, secs)
	err.RetryAfter = time.Duration(secs) * time.Second
	return err
}

// tooManyRequests is the refusal of an address past its Budget, retry in
// wait.
func tooManyRequests(wait time.Duration) *Error {
	secs := wholeSeconds(wait)
	err := ErrTooManyAttempts.WithDescription("too many token requests from this address; try again in %d seconds", secs)
	err.RetryAfter = time.Duration(secs) * time.Second
	return err
}

// wholeSeconds is d rounded up to whole seconds, at least 1.
func wholeSeconds(d time.Duration) int64 {
	return max(int64((d+time.Second-1)/time.Second), 1)
}
