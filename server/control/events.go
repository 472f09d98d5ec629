package control

import (
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"eventsvc/server/account"
	"eventsvc/server/event"
)

// handleSeed is PUT /events: the body, a JSON array of events (see
// event.ParseSeed), replaces every event. A seed with any invalid event is
// refused whole with 400, listing the problems of its first
// event.MaxSeedProblems invalid events and counting the others in "more",
// and nothing changes.
func (c *Control) handleSeed(ctx *fiber.Ctx) error {
	events, err := event.ParseSeed(ctx.Body(), c.managerOf)
	var serr *event.SeedError
	switch {
	case errors.As(err, &serr):
		e := badRequest("%s", serr.Error())
		e.Content, e.More = serr.Problems, serr.More
		return e
	case err != nil:
		return badRequest("%s", err.Error())
	}
	n := c.opts.Events.Replace(events)
	said(ctx, "seed: %d events replace all", n)
	return answer(ctx, http.StatusOK, fiber.Map{"events": n})
}

// managerOf finds an account by email; "" is the first account.
func (c *Control) managerOf(email string) (int64, bool) {
	return ManagerOf(c.opts.Accounts)(email)
}

// ManagerOf returns the lookup event.ParseSeed needs: an account's id by
// its email, and for "" the first account's (the first listed: its id
// need not be 1 once accounts were removed).
func ManagerOf(accounts *account.Registry) func(email string) (int64, bool) {
	return func(email string) (int64, bool) {
		if email == "" {
			a, ok := accounts.First()
			return a.ID, ok
		}
		a, ok := accounts.ByEmail(email)
		return a.ID, ok
	}
}
