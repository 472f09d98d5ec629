package server

import (
	"eventsvc/server/hal"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// handleIndex is GET /api, the API root (spec API-1): it links to the event
// list and to its documentation. While a backend does not answer, it
// answers 503 instead, naming the backends down, so that a client or an
// operator sees why the API cannot serve. The body is written by hand, as
// encoding/json writes hal.Links (render.go).
func (s *Server) handleIndex(c *fiber.Ctx) error {
	if down := s.health.unavailable(c.UserContext()); len(down) > 0 {
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(retryUnavailable))
		return hal.Write(c, fiber.StatusServiceUnavailable, map[string]any{
			"error":             "temporarily_unavailable",
			"error_description": "the API cannot serve now: " + strings.Join(down, ", ") + " cannot be reached; try again shortly",
			"unavailable":       down,
		})
	}
	var bb baseBuffer
	base := appendBaseURL(bb[:0], c)
	buf := s.body()
	b := append(buf.b, `{"_links":{`...)
	b = appendLink(b, "events", base, "/api/events")
	b = append(b, ',')
	b = appendLink(b, "profile", base, "/docs/index.html#resources-index-access")
	buf.b = append(b, "}}"...)
	return s.writeHAL(c, fiber.StatusOK, buf)
}
