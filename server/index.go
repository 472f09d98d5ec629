package server

import (
	"github.com/gofiber/fiber/v2"

	"eventsvc/server/hal"
)

// handleIndex is GET /api, the API root (spec API-1): it links to the event
// list and to its documentation.
func (s *Server) handleIndex(c *fiber.Ctx) error {
	base := c.BaseURL()
	return hal.Write(c, fiber.StatusOK, hal.Links{
		"events":  {Href: base + "/api/events"},
		"profile": {Href: base + "/docs/index.html#resources-index-access"},
	}.Resource())
}
