package control

import (
	"errors"
	"fmt"
	"net/http"

	"eventsvc/server/jsonbody"

	"github.com/gofiber/fiber/v2"
)

// mediaJSON is the media type of every answer.
const mediaJSON = "application/json;charset=UTF-8"

// apiError is a refusal: its status and a body that says what was wrong,
// {"error": Code, "error_description": Description}, with Content when
// there are details (the problems of a seed).
type apiError struct {
	Status      int    `json:"-"`
	Code        string `json:"error"`
	Description string `json:"error_description"`
	Content     any    `json:"content,omitempty"`
	// More counts the problems past those in Content.
	More int `json:"more,omitempty"`
}

func (e *apiError) Error() string { return e.Code + ": " + e.Description }

// badRequest is a 400 invalid_request saying what was wrong.
func badRequest(format string, args ...any) *apiError {
	return &apiError{Status: http.StatusBadRequest, Code: "invalid_request", Description: fmt.Sprintf(format, args...)}
}

// errorHandler answers every error as JSON with its status; anything but an
// *apiError or a *fiber.Error is a 500 that says nothing of its cause.
func errorHandler(c *fiber.Ctx, err error) error {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = &apiError{Status: http.StatusInternalServerError, Code: "server_error", Description: "the control API failed to answer this request"}
		var fe *fiber.Error
		if errors.As(err, &fe) {
			ae.Status = fe.Code
			switch fe.Code {
			case http.StatusNotFound:
				ae.Code, ae.Description = "not_found", "the control API has nothing at this address: see docs/control-api.md"
			case http.StatusMethodNotAllowed:
				ae.Code, ae.Description = "method_not_allowed", fmt.Sprintf("method %s is not allowed here", c.Method())
			case http.StatusRequestEntityTooLarge:
				ae.Code, ae.Description = "request_too_large", fmt.Sprintf("the body is larger than %d bytes", BodyLimit)
			default:
				ae.Code, ae.Description = "invalid_request", fe.Message
			}
		}
	}
	return c.Status(ae.Status).JSON(ae, mediaJSON)
}

// answer sends v as JSON with status.
func answer(c *fiber.Ctx, status int, v any) error {
	return c.Status(status).JSON(v, mediaJSON)
}

// decodeStrict reads the body into v: one JSON object, no unknown field.
func decodeStrict(body []byte, v any) error {
	if err := jsonbody.Decode(body, v); err != nil {
		return badRequest("%s", err)
	}
	return nil
}
