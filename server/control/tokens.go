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
