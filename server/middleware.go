package server

import (
	"log/slog"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/cors"
)

// maxLoggedPath bounds the path written to the request log.
const maxLoggedPath = 256

// requestLog writes one line per request: method, path (without the query,
// where a token could be), status, latency and client address (clientIP).
// It never writes a header or a body, so no token, password or secret
// reaches the log. The probes of a load balancer (/healthz, /readyz) are
// logged at debug level, below the default.
func requestLog(l *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) error {
		start := time.Now()
		err := c.Next()
		if err != nil {
			// Let the error handler set the status now, so that the line
			// tells it.
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				_ = c.SendStatus(fiber.StatusInternalServerError)
			}
			err = nil
		}
		path := c.Path()
		if len(path) > maxLoggedPath {
			path = path[:maxLoggedPath] + "…"
		}
		level := slog.LevelInfo
		if isProbe(c.Path()) {
			level = slog.LevelDebug
		}
		l.LogAttrs(c.UserContext(), level, "request",
			slog.String("method", c.Method()),
			slog.String("path", strings.ToValidUTF8(path, "?")),
			slog.Int("status", c.Response().StatusCode()),
			slog.Duration("latency", time.Since(start)),
			slog.String("remote", clientIP(c)),
		)
		return err
	}
}

// securityHeaders adds X-Content-Type-Options: nosniff to every answer, and
// the caching headers of cacheHeaders.
func securityHeaders(c *fiber.Ctx) error {
	setHeader(c, fiber.HeaderXContentTypeOptions, "nosniff")
	err := c.Next()
	cacheHeaders(c)
	return err
}

// corsFor lets a front end served from origin call the API from a browser:
// it may send Authorization and Content-Type, and read Location and
// WWW-Authenticate. Preflight requests are answered before the resource
// server's filter.
func corsFor(origin string) fiber.Handler {
	return cors.New(cors.Config{
		AllowOrigins:  origin,
		AllowMethods:  "GET,HEAD,POST,PUT,OPTIONS",
		AllowHeaders:  "Authorization, Content-Type",
		ExposeHeaders: "Location, WWW-Authenticate",
		MaxAge:        600,
	})
}
