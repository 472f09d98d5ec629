package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"eventsvc/server/backend"
	"eventsvc/server/oauth"
)

// mediaJSON is the media type of OAuth and error responses.
const mediaJSON = "application/json;charset=UTF-8"

// writeOAuthError sends an OAuth error body with its status. The caller adds
// any WWW-Authenticate header first.
func writeOAuthError(c *fiber.Ctx, e *oauth.Error) error {
	c.Set(fiber.HeaderContentType, mediaJSON)
	return c.Status(e.Status).JSON(e, mediaJSON)
}

// errorHandler turns every error that reaches Fiber into a JSON body with the
// right status: an *oauth.Error as itself, a *fiber.Error (no route, wrong
// method, body too large) with its status, anything else as a 500 that says
// nothing of its cause to the caller, and logs it to l (logFailure).
func errorHandler(l *slog.Logger) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		var oe *oauth.Error
		if errors.As(err, &oe) {
			return writeOAuthError(c, oe)
		}
		if errors.Is(err, backend.ErrUnavailable) {
			logFailure(l, c, http.StatusServiceUnavailable, err)
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(retryUnavailable))
			return writeOAuthError(c, errUnavailable(backend.Name(err)))
		}
		status := http.StatusInternalServerError
		var fe *fiber.Error
		if errors.As(err, &fe) {
			status = fe.Code
			if unknownTransferCoding(fe) {
				// RFC 9112 §6.1: a transfer coding the server does not
				// understand.
				status = http.StatusNotImplemented
				c.Context().SetConnectionClose()
			}
		} else {
			logFailure(l, c, status, err)
		}
		e := &oauth.Error{Code: errorCode(status), Description: errorDescription(c, status), Status: status}
		return writeOAuthError(c, e)
	}
}

// retryUnavailable is the Retry-After, in seconds, of a 503 for a backend
// that cannot be reached.
const retryUnavailable = 1

// errUnavailable is the answer to a request that needs a backend that
// cannot be reached now: 503, temporarily_unavailable (the code RFC 6749
// §4.1.2.1 gives a server that cannot handle a request for now), naming
// the backend but saying nothing of its address or the cause.
func errUnavailable(name string) *oauth.Error {
	if name == "" {
		name = "a backend"
	}
	return &oauth.Error{
		Code:        "temporarily_unavailable",
		Description: fmt.Sprintf("this request needs %s, which cannot be reached now; try again shortly", name),
		Status:      http.StatusServiceUnavailable,
	}
}

func errorCode(status int) string {
	switch status {
	case http.StatusNotFound:
		return "not_found"
	case http.StatusMethodNotAllowed:
		return "method_not_allowed"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusInternalServerError:
		return "server_error"
	case http.StatusNotImplemented:
		return "not_implemented"
	}
	return "invalid_request"
}

func errorDescription(c *fiber.Ctx, status int) string {
	switch status {
	case http.StatusNotFound:
		return "nothing is found at this address"
	case http.StatusMethodNotAllowed:
		return fmt.Sprintf("method %s is not allowed here", c.Method())
	case http.StatusRequestEntityTooLarge:
		return fmt.Sprintf("the request body is larger than %d bytes", BodyLimit)
	case http.StatusInternalServerError:
		return "the server failed to answer this request"
	case http.StatusNotImplemented:
		return "the request's Transfer-Encoding is not one the server implements; send the body with Content-Length or chunked"
	}
	return http.StatusText(status)
}
