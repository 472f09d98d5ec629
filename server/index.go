package server

import (
	"github.com/gofiber/fiber/v2"
)

// handleIndex is GET /api, the API root (spec API-1): it links to the event
// list and to its documentation. The body is written by hand, as
// encoding/json writes hal.Links (render.go).
func (s *Server) handleIndex(c *fiber.Ctx) error {
	base := c.BaseURL()
	buf := s.body()
	b := append(buf.b, `{"_links":{`...)
	b = appendLink(b, "events", base, "/api/events")
	b = append(b, ',')
	b = appendLink(b, "profile", base, "/docs/index.html#resources-index-access")
	buf.b = append(b, "}}"...)
	return s.writeHAL(c, fiber.StatusOK, buf)
}
