package control

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

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
	what := fmt.Sprintf("latency %v status %d drop %v", r.Latency.String(), r.Status, r.Drop)
	if r.Sequence != nil {
		what = fmt.Sprintf("a sequence of %d answers", len(r.Sequence))
	}
	said(ctx, "faults: added rule %d: %s %s%s: %s, after %d, times %d, fraction %v", r.ID, orAny(r.Method), r.Path, matchText(r), what, r.After, r.Times, r.Fraction)
	return answer(ctx, http.StatusCreated, r)
}

// matchText says what a rule matches besides its method and path.
func matchText(r fault.Rule) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(r.Query)) {
		parts = append(parts, k+"="+r.Query[k])
	}
	text := ""
	if parts != nil {
		text += "?" + strings.Join(parts, "&")
	}
	if r.Token != nil {
		text += fmt.Sprintf(" with a token: %v", *r.Token)
	}
	if r.GrantType != "" {
		text += " grant " + r.GrantType
	}
	return text
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
