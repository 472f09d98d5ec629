package server

import (
	"github.com/gofiber/fiber/v2"
)

// cacheHeaders tells caches how to keep an answer (RFC 9111,
// https://www.rfc-editor.org/rfc/rfc9111), once it is written. The public
// files set their own Cache-Control and depend on nobody; every other
// answer depends on the Authorization header (the links of /api/**, the
// 401 of a missing token), so it gets Vary: Authorization (RFC 9110
// §12.5.5) and an explicit Cache-Control:
//
//   - no-store for a caller with a valid token, whose answer may be meant
//     for that caller alone;
//   - no-cache for everyone else, whose answer a shared cache may keep for
//     other anonymous callers but must check with the server before reusing
//     (RFC 9111 §5.2.2.4), since events change.
//
// An answer that already has a Cache-Control (the token endpoint's
// no-store, the public files) keeps it.
func cacheHeaders(c *fiber.Ctx) {
	if isPublic(c.Path()) {
		return
	}
	// One pass over the answer's headers, whose names fasthttp keeps in
	// canonical form, rather than a lookup that normalizes each name.
	var vary, cacheControl bool
	for name := range c.Response().Header.All() {
		switch string(name) {
		case fiber.HeaderVary:
			vary = true
		case fiber.HeaderCacheControl:
			cacheControl = true
		}
	}
	if vary {
		c.Vary(fiber.HeaderAuthorization)
	} else {
		setHeader(c, fiber.HeaderVary, fiber.HeaderAuthorization)
	}
	switch {
	case caller(c) != nil:
		setHeader(c, fiber.HeaderCacheControl, "no-store")
	case !cacheControl:
		setHeader(c, fiber.HeaderCacheControl, "no-cache")
	}
}
