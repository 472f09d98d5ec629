package oauth

import (
	"errors"
	"fmt"
	"net/url"

	"eventsvc/server/account"
)

// passwordGrant is the resource owner password credentials grant (RFC 6749
// §4.3, https://www.rfc-editor.org/rfc/rfc6749#section-4.3): the account's
// email as username and its password give an access and a refresh token in
// one exchange (spec TOK-3, TOK-7).
func (e *TokenEndpoint) passwordGrant(client Client, form url.Values) (Issued, error) {
	username, err := required(form, "username")
	if err != nil {
		return Issued{}, err
	}
	password, err := required(form, "password")
	if err != nil {
		return Issued{}, err
	}
	scopes, err := parseScope(form, client.Scopes)
	if err != nil {
		return Issued{}, err
	}
	if scopes == nil {
		scopes = client.Scopes
	}
	acc, err := e.Accounts.Authenticate(username, password)
	if errors.Is(err, account.ErrBadCredentials) {
		return Issued{}, ErrInvalidGrant.WithDescription("bad user credentials")
	} else if err != nil {
		return Issued{}, fmt.Errorf("authenticate account: %w", err)
	}
	return e.Store.Issue(Grant{
		ClientID:    client.ID,
		AccountID:   acc.ID,
		Username:    acc.Email,
		Scopes:      scopes,
		ResourceIDs: client.ResourceIDs,
	})
}
