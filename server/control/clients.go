package control

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"eventsvc/server/config"
	"eventsvc/server/oauth"
)

// ClientView is a client registration as the control API shows it, with
// the names of a configuration file's entries (config.ClientEntry):
// never its secret nor the secret's hash.
type ClientView struct {
	ClientID             string   `json:"clientId"`
	AuthorizedGrantTypes []string `json:"authorizedGrantTypes"`
	Scopes               []string `json:"scopes"`
	ResourceIDs          []string `json:"resourceIds"`
}

// clientOf is the ClientView of cl.
func clientOf(cl oauth.Client) ClientView {
	return ClientView{ClientID: cl.ID, AuthorizedGrantTypes: cl.GrantTypes, Scopes: cl.Scopes, ResourceIDs: cl.ResourceIDs}
}

// clientChange is the body of PATCH /clients/{id}: what changes; absent,
// it stays.
type clientChange struct {
	ClientSecret         *string   `json:"clientSecret"`
	AuthorizedGrantTypes *[]string `json:"authorizedGrantTypes"`
	Scopes               *[]string `json:"scopes"`
	ResourceIDs          *[]string `json:"resourceIds"`
}

// handleClients is GET /clients: the registrations, in order, without
// secrets.
func (c *Control) handleClients(ctx *fiber.Ctx) error {
	all := c.opts.Clients.All()
	clients := make([]ClientView, len(all))
	for i, cl := range all {
		clients[i] = clientOf(cl)
	}
	return answer(ctx, http.StatusOK, fiber.Map{"clients": clients})
}

// handleAddClient is POST /clients: a new registration, an entry of a
// configuration file (config.ClientEntry) whose clientSecret is plain,
// hashed with bcrypt at Options.Cost. It is checked as the file's are
// (oauth.CheckClient); an id a client has is refused with 409.
func (c *Control) handleAddClient(ctx *fiber.Ctx) error {
	var in config.ClientEntry
	if err := decodeStrict(ctx.Body(), &in); err != nil {
		return err
	}
	secretText := in.ClientSecret
	in.ClientSecret = placeholderHash
	cl, err := oauth.CheckClient(in.Client())
	if err != nil {
		return badRequest("invalid client %q: %v", in.ClientID, err)
	}
	c.credMu.Lock()
	defer c.credMu.Unlock()
	if _, ok := c.opts.Clients.Lookup(cl.ID); ok {
		return &apiError{Status: http.StatusConflict, Code: "conflict", Description: fmt.Sprintf("a client has the id %q already", cl.ID)}
	}
	if cl.SecretHash, err = c.hash("clientSecret", secretText); err != nil {
		return err
	}
	if err := c.opts.Clients.Replace(append(c.opts.Clients.All(), cl)); err != nil {
		return badRequest("invalid client %q: %v", cl.ID, err)
	}
	said(ctx, "clients: added %s", cl)
	return answer(ctx, http.StatusCreated, clientOf(cl))
}

// handleChangeClient is PATCH /clients/{id}: a new secret, grant types,
// scopes or resource ids. The client's tokens live on; its old secret is
// refused from now on.
func (c *Control) handleChangeClient(ctx *fiber.Ctx) error {
	id, err := pathParam(ctx, "id")
	if err != nil {
		return err
	}
	var in clientChange
	if err := decodeStrict(ctx.Body(), &in); err != nil {
		return err
	}
	if in == (clientChange{}) {
		return badRequest(`give what changes: "clientSecret", "authorizedGrantTypes", "scopes", "resourceIds" or several`)
	}
	c.credMu.Lock()
	defer c.credMu.Unlock()
	all := c.opts.Clients.All()
	i := slices.IndexFunc(all, func(cl oauth.Client) bool { return cl.ID == id })
	if i < 0 {
		return unknownClient(id)
	}
	cl := all[i]
	var changed []string
	for _, f := range []struct {
		name string
		in   *[]string
		to   *[]string
	}{
		{"authorizedGrantTypes", in.AuthorizedGrantTypes, &cl.GrantTypes},
		{"scopes", in.Scopes, &cl.Scopes},
		{"resourceIds", in.ResourceIDs, &cl.ResourceIDs},
	} {
		if f.in != nil {
			*f.to = *f.in
			changed = append(changed, f.name)
		}
	}
	if cl, err = oauth.CheckClient(cl); err != nil {
		return badRequest("invalid client %q: %v", cl.ID, err)
	}
	if in.ClientSecret != nil {
		if cl.SecretHash, err = c.hash("clientSecret", *in.ClientSecret); err != nil {
			return err
		}
		changed = append(changed, "clientSecret")
	}
	all[i] = cl
	if err := c.opts.Clients.Replace(all); err != nil {
		return badRequest("invalid client %q: %v", cl.ID, err)
	}
	said(ctx, "clients: changed %s of %s", strings.Join(changed, ", "), cl)
	return answer(ctx, http.StatusOK, clientOf(cl))
}

// handleRemoveClient is DELETE /clients/{id}: the registration goes, and
// the live tokens issued to it are revoked. The last client stays (409).
func (c *Control) handleRemoveClient(ctx *fiber.Ctx) error {
	id, err := pathParam(ctx, "id")
	if err != nil {
		return err
	}
	c.credMu.Lock()
	defer c.credMu.Unlock()
	all := c.opts.Clients.All()
	i := slices.IndexFunc(all, func(cl oauth.Client) bool { return cl.ID == id })
	switch {
	case i < 0:
		return unknownClient(id)
	case len(all) == 1:
		return &apiError{Status: http.StatusConflict, Code: "last_client", Description: fmt.Sprintf("%q is the last client: the server keeps at least one (add another first)", id)}
	}
	gone := all[i]
	if err := c.opts.Clients.Replace(slices.Delete(all, i, i+1)); err != nil {
		return fmt.Errorf("remove client %q: %w", id, err)
	}
	revoked := c.opts.Server.Tokens().Revoke(oauth.Selector{Client: gone.ID})
	said(ctx, "clients: removed %s, revoked %d tokens", gone.ID, len(revoked))
	return answer(ctx, http.StatusOK, fiber.Map{"removed": clientOf(gone), "revokedTokens": len(revoked)})
}

// unknownClient is the 404 of an id no client has.
func unknownClient(id string) *apiError {
	return &apiError{Status: http.StatusNotFound, Code: "not_found", Description: fmt.Sprintf("no client has the id %q: GET /clients lists them", id)}
}
