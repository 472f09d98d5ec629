package control

import (
	_ "embed"
	"net/http"

	"github.com/gofiber/fiber/v2"
)

// document is the OpenAPI 3.1 document of the control API, served at
// GET /openapi.json; the tests check the API's answers against it.
//
//go:embed openapi.json
var document []byte

// Document returns the control API's OpenAPI document, a copy the caller
// may keep.
func Document() []byte { return append([]byte(nil), document...) }

// handleOpenAPI is GET /openapi.json.
func (c *Control) handleOpenAPI(ctx *fiber.Ctx) error {
	ctx.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return ctx.Status(http.StatusOK).Send(document)
}
