package fault

import (
	"fmt"
	"net"
	"time"

	"github.com/gofiber/fiber/v2"
)

// AppliedKey is the Fiber local under which Handler puts the Rule it applied
// to a request, for the request journal.
const AppliedKey = "eventsvc.fault"

// Handler is the Fiber middleware that applies the rules of set to every
// request that reaches it: it waits the rule's latency, then answers the
// rule's status with a JSON error body, or closes the connection without an
// answer, or, with a latency alone, lets the request go on.
func Handler(set *Set) fiber.Handler {
	return func(c *fiber.Ctx) error {
		r, ok := set.Pick(c.Method(), c.Path())
		if !ok {
			return c.Next()
		}
		c.Locals(AppliedKey, r)
		if r.Latency > 0 {
			t := time.NewTimer(time.Duration(r.Latency))
			select {
			case <-t.C:
			case <-c.Context().Done():
				t.Stop()
			}
		}
		switch {
		case r.Drop:
			drop(c)
			return nil
		case r.Status != 0:
			c.Set(fiber.HeaderCacheControl, "no-store")
			return c.Status(r.Status).JSON(fiber.Map{
				"error":             "injected_fault",
				"error_description": fmt.Sprintf("fault rule %d answered %d in place of the service", r.ID, r.Status),
			}, "application/json;charset=UTF-8")
		}
		return c.Next()
	}
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
