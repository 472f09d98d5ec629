package control

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"eventsvc/server/oauth"
)

// handleTokens is GET /tokens: the live tokens, masked (oauth.TokenInfo).
func (c *Control) handleTokens(ctx *fiber.Ctx) error {
	live := c.opts.Server.Tokens().Live()
	if live == nil {
		live = []oauth.TokenInfo{}
	}
	return answer(ctx, http.StatusOK, fiber.Map{"tokens": live})
}

// tokenSelector is the body of POST /tokens/revoke and /tokens/expire:
// which live tokens, by the start GET /tokens shows of them, by user, by
// kind.
type tokenSelector struct {
	Token string `json:"token"`
	User  string `json:"user"`
	Kind  string `json:"kind"`
}

// handleRevokeTokens is POST /tokens/revoke: the tokens picked are
// forgotten, as revoked ones are.
func (c *Control) handleRevokeTokens(ctx *fiber.Ctx) error {
	return c.changeTokens(ctx, "revoked", c.opts.Server.Tokens().Revoke)
}

// handleExpireTokens is POST /tokens/expire: the tokens picked expire now,
// as if their time had come (their error then says so).
func (c *Control) handleExpireTokens(ctx *fiber.Ctx) error {
	return c.changeTokens(ctx, "expired", c.opts.Server.Tokens().Expire)
}

// changeTokens applies change to the tokens the body picks. It refuses a
// body that picks by neither token nor user, a kind other than access or
// refresh, a token start that picks several tokens (give kind or user
// too), and nothing to pick (404); a refused request changes nothing.
func (c *Control) changeTokens(ctx *fiber.Ctx, done string, change func(oauth.Selector) []oauth.TokenInfo) error {
	var in tokenSelector
	if err := decodeStrict(ctx.Body(), &in); err != nil {
		return err
	}
	switch {
	case in.Token == "" && in.User == "":
		return badRequest(`give the token to pick, by the start GET /tokens shows ("token": "Ab3x…"), or a user ("user": "user@email.com"), or both`)
	case in.Kind != "" && in.Kind != "access" && in.Kind != "refresh":
		return badRequest("kind %q must be access or refresh", in.Kind)
	}
	sel := oauth.Selector{Token: in.Token, User: in.User, Kind: in.Kind}
	store := c.opts.Server.Tokens()
	var picked []oauth.TokenInfo
	for _, t := range store.Live() {
		if sel.Picks(t) {
			picked = append(picked, t)
		}
	}
	switch {
	case len(picked) == 0:
		return &apiError{Status: http.StatusNotFound, Code: "not_found", Description: "no live token is picked by that: GET /tokens lists them"}
	case in.Token != "" && len(picked) > 1:
		return &apiError{Status: http.StatusConflict, Code: "ambiguous", Description: "that start picks several live tokens: give kind or user too", Content: picked}
	}
	changed := change(sel)
	if changed == nil {
		changed = []oauth.TokenInfo{}
	}
	said(ctx, "tokens: %s %d (token %q, user %q, kind %q)", done, len(changed), in.Token, in.User, in.Kind)
	return answer(ctx, http.StatusOK, fiber.Map{done: changed})
}
