package control

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"eventsvc/server/fault"
)

// handleFaults is GET /faults: the rules in force, with their hits.
func (c *Control) handleFaults(ctx *fiber.Ctx) error {
	rules := c.opts.Faults.List()
	return answer(ctx, http.StatusOK, fiber.Map{"faults": rules})
}

// handleAddFault is POST /faults: one rule (fault.Parse), answered 201 with
// its id.
func (c *Control) handleAddFault(ctx *fiber.Ctx) error {
	r, err := fault.Parse(ctx.Body())
	if errors.Is(err, fault.ErrInvalid) {
		return badRequest("%s", err.Error())
	} else if err != nil {
		return err
	}
	r, err = c.opts.Faults.Add(r)
	if err != nil {
		return badRequest("%s", err.Error())
	}
	said(ctx, "faults: added rule %d: %s %s latency %v status %d drop %v fraction %v", r.ID, orAny(r.Method), r.Path, r.Latency.String(), r.Status, r.Drop, r.Fraction)
	return answer(ctx, http.StatusCreated, r)
}

func orAny(method string) string {
	if method == "" {
		return "any method"
	}
	return method
}

// handleClearFaults is DELETE /faults.
func (c *Control) handleClearFaults(ctx *fiber.Ctx) error {
	n := c.opts.Faults.Clear()
	said(ctx, "faults: cleared %d rules", n)
	return answer(ctx, http.StatusOK, fiber.Map{"cleared": n})
}

// handleRemoveFault is DELETE /faults/{id}.
func (c *Control) handleRemoveFault(ctx *fiber.Ctx) error {
	id, err := strconv.Atoi(ctx.Params("id"))
	if err != nil || !c.opts.Faults.Remove(id) {
		return &apiError{Status: http.StatusNotFound, Code: "not_found", Description: "no fault rule has id " + strconv.Quote(ctx.Params("id"))}
	}
	said(ctx, "faults: removed rule %d", id)
	return answer(ctx, http.StatusOK, fiber.Map{"removed": id})
}
