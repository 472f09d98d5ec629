// Package hal renders HAL responses (application/hal+json,
// https://datatracker.ietf.org/doc/html/draft-kelly-json-hal): bodies whose
// "_links" object maps relation names to links (spec SVC-2).
package hal

import "github.com/gofiber/fiber/v2"

// MediaType is the media type of every resource the API returns.
const MediaType = "application/hal+json"

// Link is one entry of "_links": the target's address and, for a URI
// template such as ".../api/events/{id}", Templated set.
type Link struct {
	Href      string `json:"href"`
	Templated bool   `json:"templated,omitempty"`
}

// Links maps relation names to links.
type Links map[string]Link

// Resource returns a body that holds only these links.
func (l Links) Resource() map[string]any {
	return map[string]any{"_links": l}
}

// Write sends body as application/hal+json with the status.
func Write(c *fiber.Ctx, status int, body any) error {
	return c.Status(status).JSON(body, MediaType)
}
