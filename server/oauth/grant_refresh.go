package oauth

import "net/url"

// refreshGrant exchanges a refresh token for a new access token (RFC 6749 §6,
// https://www.rfc-editor.org/rfc/rfc6749#section-6). The specification names
// the parameter "token" (spec TOK-4); the RFC's name "refresh_token" is
// accepted too, and when both are sent they must agree.
func (e *TokenEndpoint) refreshGrant(client Client, form url.Values) (Issued, error) {
	token, err := param(form, "token")
	if err != nil {
		return Issued{}, err
	}
	rfc, err := param(form, "refresh_token")
	if err != nil {
		return Issued{}, err
	}
	switch {
	case token == "" && rfc == "":
		return Issued{}, ErrInvalidRequest.WithDescription(`missing parameter "token" (the refresh token)`)
	case token == "":
		token = rfc
	case rfc != "" && rfc != token:
		return Issued{}, ErrInvalidRequest.WithDescription(`parameters "token" and "refresh_token" disagree`)
	}
	scopes, err := parseScope(form, client.Scopes)
	if err != nil {
		return Issued{}, err
	}
	return e.Store.Refresh(token, client.ID, scopes)
}
