package server

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"eventsvc/server/oauth"
	"eventsvc/server/throttle"
)

// handleToken is POST /oauth/token (spec TOK). Every answer, success or
// error, carries Cache-Control: no-store and Pragma: no-cache (RFC 6749 §5.1).
func (s *Server) handleToken(c *fiber.Ctx) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set(fiber.HeaderPragma, "no-cache")
	if c.Method() != fiber.MethodPost {
		c.Set(fiber.HeaderAllow, fiber.MethodPost)
		return &oauth.Error{Code: "invalid_request", Description: "the token endpoint accepts POST only", Status: http.StatusMethodNotAllowed}
	}
	resp, err := s.token.ExchangeFrom(
		throttle.Network(clientIP(c)),
		c.Get(fiber.HeaderAuthorization),
		c.Get(fiber.HeaderContentType),
		c.Body(),
	)
	s.metrics.grant(c.Body(), err)
	if err != nil {
		var oe *oauth.Error
		if errors.As(err, &oe) && errors.Is(oe, oauth.ErrInvalidClient) {
			c.Set(fiber.HeaderWWWAuthenticate, `Basic realm="oauth"`)
		}
		if oe != nil && oe.RetryAfter > 0 {
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(int(oe.RetryAfter/time.Second)))
		}
		return err
	}
	return c.JSON(resp, mediaJSON)
}

// handleAuthorize is /oauth/authorize (reference rule TOK-12). No client may
// use a redirect-based grant, so it answers an error and never redirects,
// since no redirect URI is registered (RFC 6749 §4.1.2.1).
func (s *Server) handleAuthorize(c *fiber.Ctx) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	if c.Method() != fiber.MethodGet {
		c.Set(fiber.HeaderAllow, fiber.MethodGet)
		return fiber.ErrMethodNotAllowed
	}
	return oauth.ErrUnauthorizedClient.WithDescription("no client is registered for a redirect-based grant; use POST /oauth/token with the password grant")
}
