package server

import (
	"io/fs"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/filesystem"

	"eventsvc/docs"
	"eventsvc/docs/openapi"
)

// The public files (docs.Static): the documentation page and the static
// locations. They are served before the resource server's filter, whatever
// the Authorization header holds (spec SVC-6, AUTH-5).

// publicPrefixes are the paths served from docs.Static without
// authentication.
var publicPrefixes = []string{"/docs/", "/css/", "/js/", "/images/", "/webjars/"}

// publicFiles serves the embedded public files and passes every other
// request on. A public path with a dot segment is refused with 404, never
// resolved against the file system.
func publicFiles() fiber.Handler {
	root, err := fs.Sub(docs.Static, "static")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	files := http.FS(root)
	contract := openapi.Document()
	page, err := docs.Static.ReadFile("static" + docsPath)
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	pages := &docsPages{page: page}
	return func(c *fiber.Ctx) error {
		if !isPublic(c.Path()) {
			return c.Next()
		}
		if c.Method() != fiber.MethodGet && c.Method() != fiber.MethodHead {
			c.Set(fiber.HeaderAllow, "GET, HEAD")
			return fiber.ErrMethodNotAllowed
		}
		if hasDotSegment(c.Path()) {
			return fiber.ErrNotFound
		}
		path := c.Path()
		if path == openapi.Path {
			// The OpenAPI document lives in package openapi, beside the
			// contract tests that keep it true.
			c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
			c.Set(fiber.HeaderCacheControl, "public, max-age=300")
			return c.Send(contract)
		}
		switch {
		case path == "/docs":
			path = "/docs/index.html"
		case strings.HasSuffix(path, "/"):
			path += "index.html"
		}
		if path == docsPath {
			if o, ok := c.Locals(originKey).(*origin); ok {
				return pages.send(c, o)
			}
		}
		// Anything that cannot be opened in the embedded set, a folder
		// without index.html included, is not there for the client.
		if err := filesystem.SendFile(c, files, path); err != nil {
			return fiber.ErrNotFound
		}
		c.Set(fiber.HeaderCacheControl, "public, max-age=300")
		return nil
	}
}

func isPublic(path string) bool {
	if path == "/favicon.ico" || path == "/docs" {
		return true
	}
	for _, p := range publicPrefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

func hasDotSegment(path string) bool {
	for _, seg := range strings.Split(path, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}
