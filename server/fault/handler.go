package fault

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
)

// AppliedKey is the Fiber local under which Handler puts the Rule it applied
// to a request, for the request journal.
const AppliedKey = "eventsvc.fault"

// LeftKey is the Fiber local Handler sets to true when the client closed
// its connection while a rule's latency held its request: the request went
// no further, and nothing was answered.
const LeftKey = "eventsvc.fault.left"

// PollInterval is how often a request held by a rule's latency looks
// whether its client has left.
const PollInterval = 100 * time.Millisecond

// Handler is the Fiber middleware that applies the rules of set to every
// request that reaches it: it waits the answer's latency, then answers its
// status with its body and headers (or a JSON error body), or closes the
// connection without an answer, or, with a latency alone, lets the
// request go on.
//
// A latency's wait ends early in three cases: the rule is taken out of
// force (removed, cleared, a reset), and the request then goes on to its
// real answer; the server shuts down; the client closes its connection,
// and the request then goes no further (LeftKey) and its connection is
// closed, so that clients that gave up hold nothing.
func Handler(set *Set) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if !set.Active() {
			return c.Next() // no rule: the request is not read for one
		}
		p, ok := set.Pick(requestOf(c))
		if !ok {
			return c.Next()
		}
		r, a := p.Rule, p.Answer
		if a.empty() {
			return c.Next() // a step of a sequence that lets its request through
		}
		c.Locals(AppliedKey, r)
		if a.Latency > 0 {
			switch wait(c, time.Duration(a.Latency), p.Gone) {
			case ruleGone:
				return c.Next()
			case clientLeft:
				c.Locals(LeftKey, true)
				closeQuietly(c)
				return nil
			}
		}
		switch {
		case a.Drop:
			drop(c)
			return nil
		case a.Status != 0:
			return answer(c, r.ID, a)
		}
		return c.Next()
	}
}

// requestOf is what a rule matches the request by.
func requestOf(c *fiber.Ctx) Request {
	req := Request{Method: c.Method(), Path: c.Path(), Query: url.Values{}}
	c.Request().URI().QueryArgs().VisitAll(func(k, v []byte) {
		req.Query.Add(string(k), string(v))
	})
	scheme, value, _ := strings.Cut(c.Get(fiber.HeaderAuthorization), " ")
	req.Token = strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(value) != ""
	if c.Method() == fiber.MethodPost && strings.HasPrefix(strings.ToLower(c.Get(fiber.HeaderContentType)), "application/x-www-form-urlencoded") {
		if form, err := url.ParseQuery(string(c.Body())); err == nil {
			req.GrantType = form.Get("grant_type")
		}
	}
	return req
}

// answer sends a's status, headers and body: the body as JSON, or a
// JSON string as its text; without a body, the service's injected_fault
// error.
func answer(c *fiber.Ctx, id int, a Answer) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Status(a.Status)
	var body []byte
	contentType := "application/json;charset=UTF-8"
	switch {
	case a.Body == nil:
		body, _ = json.Marshal(fiber.Map{
			"error":             "injected_fault",
			"error_description": fmt.Sprintf("fault rule %d answered %d in place of the service", id, a.Status),
		})
	case bytes.HasPrefix(bytes.TrimSpace(a.Body), []byte(`"`)):
		var text string
		_ = json.Unmarshal(a.Body, &text)
		body, contentType = []byte(text), "text/plain; charset=utf-8"
	default:
		body = a.Body
	}
	c.Set(fiber.HeaderContentType, contentType)
	for _, name := range sortedKeys(a.Headers) {
		c.Set(name, a.Headers[name])
	}
	if a.Status == fiber.StatusNoContent || a.Status == fiber.StatusNotModified {
		return nil
	}
	return c.Send(body)
}

// How a latency's wait ended.
const (
	waited = iota
	ruleGone
	clientLeft
)

// wait waits d, or until gone is closed, the server shuts down or the
// client leaves.
func wait(c *fiber.Ctx, d time.Duration, gone <-chan struct{}) int {
	t := time.NewTimer(d)
	defer t.Stop()
	poll := time.NewTicker(PollInterval)
	defer poll.Stop()
	conn := c.Context().Conn()
	for {
		select {
		case <-t.C:
			return waited
		case <-gone:
			return ruleGone
		case <-c.Context().Done():
			return waited
		case <-poll.C:
			if peerClosed(conn) {
				return clientLeft
			}
		}
	}
}

// closeQuietly closes the connection without writing an answer.
func closeQuietly(c *fiber.Ctx) {
	c.Context().HijackSetNoResponse(true)
	c.Context().Hijack(func(conn net.Conn) { _ = conn.Close() })
}

// drop closes the connection without writing an answer; the client sees
// the connection reset (a TCP RST where the system allows it).
func drop(c *fiber.Ctx) {
	c.Context().HijackSetNoResponse(true)
	c.Context().Hijack(func(conn net.Conn) {
		// fasthttp hands over its own wrapper of the connection: the
		// server's, under it, resets when its linger is 0 (as a
		// *net.TCPConn does).
		if u, ok := conn.(interface{ UnsafeConn() net.Conn }); ok {
			conn = u.UnsafeConn()
		}
		if tc, ok := conn.(interface{ SetLinger(int) error }); ok {
			_ = tc.SetLinger(0)
		}
		_ = conn.Close()
	})
}
