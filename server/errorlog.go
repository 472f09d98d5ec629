package server

import (
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"eventsvc/internal/redact"
)

// recoverPanic turns a panic of a later handler into an error, so that the
// caller gets a 500 like any other failure of the server, the cause is
// logged, and the server goes on.
func recoverPanic(c *fiber.Ctx) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return c.Next()
}

// logFailure writes the cause of a 500 (or a 503 for a backend that
// cannot be reached) to l, with the secrets the request
// carries masked (redact): the credentials of its Authorization header and
// the secret fields of a form body. A nil l writes nothing.
func logFailure(l *slog.Logger, c *fiber.Ctx, status int, cause error) {
	if l == nil {
		return
	}
	path := c.Path()
	if len(path) > maxLoggedPath {
		path = path[:maxLoggedPath] + "…"
	}
	r := redact.New(requestSecrets(c)...)
	l.LogAttrs(c.UserContext(), slog.LevelError, "request failed",
		slog.String("method", c.Method()),
		slog.String("path", strings.ToValidUTF8(r.String(path), "?")),
		slog.Int("status", status),
		slog.String("remote", clientIP(c)),
		slog.String("cause", strings.ToValidUTF8(r.String(cause.Error()), "?")),
	)
}

// requestSecrets lists the secrets of a request: the credential of its
// Authorization header (a Bearer token; Basic id and secret, as sent and
// decoded), and the values of the secret fields of a form body.
func requestSecrets(c *fiber.Ctx) []string {
	var secrets []string
	scheme, credential, _ := strings.Cut(c.Get(fiber.HeaderAuthorization), " ")
	credential = strings.TrimSpace(credential)
	if credential != "" {
		secrets = append(secrets, credential)
	}
	if strings.EqualFold(scheme, "Basic") {
		if raw, err := base64.StdEncoding.DecodeString(credential); err == nil {
			_, secret, _ := strings.Cut(string(raw), ":")
			secrets = append(secrets, secret)
			if s, err := url.QueryUnescape(secret); err == nil {
				secrets = append(secrets, s)
			}
		}
	}
	if redact.IsForm(c.Get(fiber.HeaderContentType)) {
		if form, err := url.ParseQuery(string(c.Body())); err == nil {
			for _, name := range []string{"password", "client_secret", "token", "refresh_token", "access_token"} {
				secrets = append(secrets, form[name]...)
			}
		}
	}
	return secrets
}
