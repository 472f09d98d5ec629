package oauth

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"eventsvc/server/account"
	"eventsvc/server/secret"
	"eventsvc/server/throttle"
)

// passwordGrant is the resource owner password credentials grant (RFC 6749
// §4.3, https://www.rfc-editor.org/rfc/rfc6749#section-4.3): the account's
// email as username and its password give an access and a refresh token in
// one exchange (spec TOK-3, TOK-7).
//
// A username longer than account.MaxEmailLen or a password longer than
// secret.MaxLen bytes cannot match any account and is refused before
// anything is looked up. Otherwise the attempt is reserved with the Guard
// before the password is checked, so that a username that failed too often
// from remote, or has as many attempts in progress, is refused, however
// many arrive at once; a success forgets its failures.
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
	switch {
	case len(username) > account.MaxEmailLen:
		return Issued{}, ErrInvalidRequest.WithDescription("username is longer than %d bytes", account.MaxEmailLen)
	case len(password) > secret.MaxLen:
		return Issued{}, ErrInvalidRequest.WithDescription("password is longer than %d bytes", secret.MaxLen)
	}
	key := throttle.KeyOf("user", remote, strings.ToLower(username))
	if err := e.reserve("user", key); err != nil {
		return Issued{}, err
	}
	acc, err := e.Accounts.Authenticate(username, password)
	if err != nil {
		if gerr := e.end("user", key, false, password); gerr != nil {
			return Issued{}, gerr
		}
		if errors.Is(err, account.ErrBadCredentials) {
			return Issued{}, ErrInvalidGrant.WithDescription("bad user credentials")
		}
		return Issued{}, fmt.Errorf("authenticate account: %w", err)
	}
	if err := e.end("user", key, true, ""); err != nil {
		return Issued{}, err
	}
	issued, err := e.Store.Issue(Grant{
		ClientID:    client.ID,
		AccountID:   acc.ID,
		Username:    acc.Email,
		Scopes:      scopes,
		ResourceIDs: client.ResourceIDs,
	})
	if err != nil {
		return Issued{}, err
	}
	if !e.stillRegistered(client, acc) {
		return Issued{}, ErrInvalidGrant.WithDescription("bad user credentials")
	}
	return issued, nil
}

// stillRegistered reports whether the client and the account a password
// grant checked are still registered, after its tokens were issued. One
// removed in between (Clients.Replace, account.Registry.Replace) may have
// had its tokens revoked before these were issued: they are revoked here,
// with the rest of the account's or the client's, when the store can
// revoke, and never handed out.
func (e *TokenEndpoint) stillRegistered(client Client, acc account.Account) bool {
	a, ok := e.Accounts.ByID(acc.ID)
	accountGone := !ok || a.Email != acc.Email
	_, ok = e.Clients.Lookup(client.ID)
	clientGone := !ok
	if !accountGone && !clientGone {
		return true
	}
	if r, ok := e.Store.(interface{ Revoke(Selector) []TokenInfo }); ok {
		if accountGone {
			r.Revoke(Selector{User: acc.Email})
		}
		if clientGone {
			r.Revoke(Selector{Client: client.ID})
		}
	}
	return false
}
