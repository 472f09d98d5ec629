package oauth

import (
	"errors"
	"fmt"
	"strings"

	"eventsvc/server/account"
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
	Store    *Store
}

// Exchange handles one token request, given the raw Authorization header,
// Content-Type header and body. It returns the response to send, or an
// *Error. The client is authenticated first, so that nothing about the
// request is answered to an unknown client. Its credentials are
// form-decoded (RFC 6749 §2.3.1); when they do not match so, they are tried
// as sent, for clients that do not form-encode them.
func (e *TokenEndpoint) Exchange(authorization, contentType string, body []byte) (TokenResponse, error) {
	client, err := e.authenticateClient(authorization)
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
		issued, err = e.passwordGrant(client, form)
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
// for clients such as curl -u that do not form-encode them.
func (e *TokenEndpoint) authenticateClient(authorization string) (Client, error) {
	id, secret, parseErr := ParseBasic(authorization)
	rawID, rawSecret, rawOK := rawBasic(authorization)
	err := parseErr
	var client Client
	if parseErr == nil {
		client, err = e.Clients.Authenticate(id, secret)
	}
	if (parseErr != nil || errors.Is(err, ErrClientNotAuthenticated)) && rawOK && rawID != "" && (rawID != id || rawSecret != secret) {
		client, err = e.Clients.Authenticate(rawID, rawSecret)
	}
	switch {
	case err == nil:
		return client, nil
	case errors.Is(err, ErrClientNotAuthenticated):
		return Client{}, ErrInvalidClient.WithDescription("client authentication failed")
	case errors.Is(err, ErrInvalidClient):
		return Client{}, err
	}
	return Client{}, fmt.Errorf("authenticate client: %w", err)
}
