package server

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"eventsvc/server/backend"
)

// healthTTL is how long the outcome of pinging the backends is reused, so
// that a burst of requests that ask costs one ping per backend.
const healthTTL = time.Second

// healthTimeout bounds one ping of a backend.
const healthTimeout = time.Second

// health tells which backends answer, pinging them at most once per
// healthTTL.
type health struct {
	checkers []backend.Checker

	mu   sync.Mutex
	at   time.Time
	down []string // the names of the backends that did not answer, sorted
}

func newHealth(checkers []backend.Checker) *health {
	return &health{checkers: checkers}
}

// unavailable returns the names of the backends that do not answer, or
// none. Pings run at once, each bounded by healthTimeout. ctx must not be
// a *fasthttp.RequestCtx (Fiber's c.Context()), whose Done races with the
// server's shutdown once a context derives from it: pass c.UserContext().
func (h *health) unavailable(ctx context.Context) []string {
	if len(h.checkers) == 0 {
		return nil
	}
	return h.check(ctx)
}

// check is unavailable with backends to ping: apart, so that a server
// without any does not pay for what the pings need (ctx escapes to them).
func (h *health) check(ctx context.Context) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.at.IsZero() && time.Since(h.at) < healthTTL {
		return h.down
	}
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	errs := make([]error, len(h.checkers))
	var wg sync.WaitGroup
	for i, c := range h.checkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.Ping(ctx)
		}()
	}
	wg.Wait()
	var down []string
	for i, err := range errs {
		if err != nil {
			down = append(down, h.checkers[i].Name())
		}
	}
	sort.Strings(down)
	h.at, h.down = time.Now(), down
	return down
}

// isProbe reports whether path is one of the probes, /healthz or /readyz.
func isProbe(path string) bool { return path == "/healthz" || path == "/readyz" }

// handleHealthz is GET /healthz: the process is alive and answers. It
// touches no backend and no account.
func (s *Server) handleHealthz(c *fiber.Ctx) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(fiber.Map{"status": "alive"})
}

// handleReadyz is GET /readyz: the server can serve, its configuration
// loaded (it would not run otherwise) and each backend answering (pinged
// at most once per healthTTL); 503 naming the backends that do not, or
// while it shuts down, so that a load balancer sends requests elsewhere.
// It never checks a password.
func (s *Server) handleReadyz(c *fiber.Ctx) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	s.mu.Lock()
	draining := s.draining
	s.mu.Unlock()
	if draining {
		return c.Status(fiber.StatusServiceUnavailable).JSON(fiber.Map{"status": "not ready", "reason": "shutting down"})
	}
	if down := s.health.unavailable(c.UserContext()); len(down) > 0 {
		return c.Status(fiber.StatusServiceUnavailable).JSON(fiber.Map{
			"status": "not ready", "reason": strings.Join(down, ", ") + " cannot be reached", "unavailable": down,
		})
	}
	return c.JSON(fiber.Map{"status": "ready"})
}
