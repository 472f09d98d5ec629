package oauth

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"eventsvc/server/account"
)

// passwordGrant is the resource owner password credentials grant (RFC 6749
// §4.3, https://www.rfc-editor.org/rfc/rfc6749#section-4.3): the account's
// email as username and its password give an access and a refresh token in
// one exchange (spec TOK-3, TOK-7).
//
// A username that failed too often from remote is refused before its
// password is checked; a success forgets its failures.
func (e *TokenEndpoint) passwordGrant(remote string, client Client, form url.Values) (Issued, error) {
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
	key := "user\x00" + remote + "\x00" + strings.ToLower(username)
	if left, blocked := e.Guard.Blocked(key); blocked {
		return Issued{}, tooManyAttempts("user", left)
	}
	acc, err := e.Accounts.Authenticate(username, password)
	if errors.Is(err, account.ErrBadCredentials) {
		e.Guard.Fail(key)
		return Issued{}, ErrInvalidGrant.WithDescription("bad user credentials")
	} else if err != nil {
		return Issued{}, fmt.Errorf("authenticate account: %w", err)
	}
	e.Guard.Reset(key)
	return e.Store.Issue(Grant{
		ClientID:    client.ID,
		AccountID:   acc.ID,
		Username:    acc.Email,
		Scopes:      scopes,
		ResourceIDs: client.ResourceIDs,
	})
}
