package control

import (
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"eventsvc/server/journal"
)

// handleJournal is GET /journal?limit=N: the last N requests to the public
// server and their answers, masked, oldest first (default: all the journal
// keeps).
func (c *Control) handleJournal(ctx *fiber.Ctx) error {
	n := 0
	if v := ctx.Query("limit"); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		if err != nil || n < 1 {
			return badRequest("limit %q must be a whole number from 1", v)
		}
	}
	entries := c.opts.Journal.Last(n)
	if entries == nil {
		entries = []journal.Entry{}
	}
	return answer(ctx, http.StatusOK, fiber.Map{"entries": entries})
}
