package control

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"eventsvc/server/clientcheck"
)

// ruleID is the shape of a rule's id, such as API-1.
var ruleID = regexp.MustCompile(`^[A-Z]{2,5}-[0-9]{1,3}$`)

// findingsQuery reads the findings' filter from a request's query: rule
// (a rule's id) and since (a finding's id, or an RFC 3339 time). Any
// other parameter, a repeated one, or a value it cannot read is refused
// with 400 saying which.
func findingsQuery(ctx *fiber.Ctx) (clientcheck.Filter, error) {
	var f clientcheck.Filter
	q, err := url.ParseQuery(string(ctx.Request().URI().QueryString()))
	if err != nil {
		return f, badRequest("the query cannot be read: %v", err)
	}
	for name, values := range q {
		switch {
		case name != "rule" && name != "since":
			return f, badRequest("unknown parameter %q: the findings are filtered by rule and since", name)
		case len(values) > 1:
			return f, badRequest("parameter %q is given %d times: give it once", name, len(values))
		}
	}
	if r := q.Get("rule"); r != "" {
		if !ruleID.MatchString(r) {
			return f, badRequest("rule %q must be a rule's id, such as API-1", r)
		}
		f.Rule = r
	}
	if v := q.Get("since"); v != "" {
		if id, err := strconv.ParseInt(v, 10, 64); err == nil && id >= 0 {
			f.SinceID = id
		} else if f.Since, err = time.Parse(time.RFC3339Nano, v); err != nil {
			return f, badRequest("since %q must be a finding's id or an RFC 3339 time", v)
		}
	}
	return f, nil
}

// handleFindings is GET /findings: where the clients of the public
// server broke the client's side of the specification, oldest first,
// each with its rule, what the client did and must do, the caller, how
// many exchanges showed it and the first of them; filtered by rule and
// since.
func (c *Control) handleFindings(ctx *fiber.Ctx) error {
	f, err := findingsQuery(ctx)
	if err != nil {
		return err
	}
	findings := []clientcheck.Finding{}
	if c.opts.Findings != nil {
		findings = c.opts.Findings.Findings(f)
	}
	return answer(ctx, http.StatusOK, fiber.Map{"findings": findings})
}

// handleClearFindings is DELETE /findings: forget every finding; what
// the server offered is kept, and their ids go on.
func (c *Control) handleClearFindings(ctx *fiber.Ctx) error {
	n := 0
	if c.opts.Findings != nil {
		n = c.opts.Findings.Clear()
	}
	said(ctx, "findings: cleared %d", n)
	return answer(ctx, http.StatusOK, fiber.Map{"cleared": n})
}
