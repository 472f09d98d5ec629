package control

import (
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
)

// advanceRequest is the body of POST /clock.
type advanceRequest struct {
	// Advance is how far to move the clock forward, as Go writes a
	// duration: "90s", "10m", "1h".
	Advance *string `json:"advance"`
}

// handleClock is GET /clock.
func (c *Control) handleClock(ctx *fiber.Ctx) error {
	return answer(ctx, http.StatusOK, c.clock())
}

// handleAdvance is POST /clock {"advance": "10m"}: the server's clock moves
// forward, so that tokens expire and lockouts end without waiting. It
// never moves back (POST /reset puts it back on the machine's time).
func (c *Control) handleAdvance(ctx *fiber.Ctx) error {
	var req advanceRequest
	if err := decodeStrict(ctx.Body(), &req); err != nil {
		return err
	}
	if req.Advance == nil {
		return badRequest(`advance is required, a duration such as "90s" or "10m"`)
	}
	d, err := time.ParseDuration(*req.Advance)
	if err != nil {
		return badRequest(`advance %q is not a duration such as "90s" or "10m"`, *req.Advance)
	}
	if d < 0 {
		return badRequest("advance %v must not be negative: the clock only moves forward (POST /reset puts it back)", d)
	}
	if _, err := c.opts.Clock.Advance(d); err != nil {
		return badRequest("advance %v: %v, and it has moved %v already (POST /reset puts it back)", d, err, c.opts.Clock.Moved())
	}
	said(ctx, "clock: moved forward %v, %v in all", d, c.opts.Clock.Moved())
	return answer(ctx, http.StatusOK, c.clock())
}
