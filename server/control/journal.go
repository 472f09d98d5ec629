package control

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"eventsvc/server/journal"
)

// journalQuery reads the journal's filter from a request's query; limit,
// when allowed, is read apart. A parameter it does not know, or cannot
// read, is refused with 400 saying which.
func journalQuery(ctx *fiber.Ctx, allowLimit bool) (journal.Filter, int, error) {
	q, err := url.ParseQuery(string(ctx.Request().URI().QueryString()))
	if err != nil {
		return journal.Filter{}, 0, badRequest("the query cannot be read: %v", err)
	}
	var extra []string
	if allowLimit {
		extra = append(extra, "limit")
	}
	f, err := journal.ParseFilter(q, extra...)
	if err != nil {
		return f, 0, badRequest("%s", err.Error())
	}
	n := 0
	if v := q.Get("limit"); v != "" {
		n, err = strconv.Atoi(v)
		if err != nil || n < 1 {
			return f, 0, badRequest("limit %q must be a whole number from 1", v)
		}
	}
	return f, n, nil
}

// handleJournal is GET /journal: the last requests to the public server
// and their answers, masked, oldest first, each with its request as a
// curl command; filtered by method, path, status, fault, grant type and
// since, the last limit of them (default: all the journal keeps).
func (c *Control) handleJournal(ctx *fiber.Ctx) error {
	f, n, err := journalQuery(ctx, true)
	if err != nil {
		return err
	}
	entries := c.opts.Journal.Find(f, n)
	if entries == nil {
		entries = []journal.Entry{}
	}
	return answer(ctx, http.StatusOK, fiber.Map{"entries": entries})
}

// handleJournalCount is GET /journal/count: how many entries the filter
// picks, to verify what a client sent without reading them.
func (c *Control) handleJournalCount(ctx *fiber.Ctx) error {
	f, _, err := journalQuery(ctx, false)
	if err != nil {
		return err
	}
	return answer(ctx, http.StatusOK, fiber.Map{"count": c.opts.Journal.Count(f)})
}

// handleClearJournal is DELETE /journal: forget every entry; their ids go
// on from where they were.
func (c *Control) handleClearJournal(ctx *fiber.Ctx) error {
	n := c.opts.Journal.Len()
	c.opts.Journal.Clear()
	said(ctx, "journal: cleared %d entries", n)
	return answer(ctx, http.StatusOK, fiber.Map{"cleared": n})
}
