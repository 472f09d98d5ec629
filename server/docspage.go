package server

import (
	"bytes"
	"html"
	"sync"

	"github.com/gofiber/fiber/v2"
)

// docsPath is the documentation page (spec SVC-6).
const docsPath = "/docs/index.html"

// docsExampleBase is the address the documentation page's examples were
// recorded at (make docs).
const docsExampleBase = "http://localhost:8080"

// docsPages serves the documentation page to a client the server knows
// the address of, from a public URL or a trusted proxy (origin): every
// absolute address the page shows (the examples' http://localhost:8080,
// its stylesheet, its icon, the OpenAPI document) starts with the address
// the client reaches the server at, so that the page works under a path
// prefix too. It keeps the pages of the last few addresses.
type docsPages struct {
	page []byte // as embedded

	mu     sync.Mutex
	byBase map[string][]byte // by base URL
}

// maxDocsPages bounds the pages docsPages keeps: one per base URL, and a
// server has one or a few.
const maxDocsPages = 8

// send answers c with the page for o's address: from a public URL, the
// same for everyone, which any cache may keep; from what a proxy
// forwarded, only the client's.
func (d *docsPages) send(c *fiber.Ctx, o *origin) error {
	base := o.scheme + "://" + o.host + o.prefix
	d.mu.Lock()
	page, ok := d.byBase[base]
	if !ok {
		if len(d.byBase) >= maxDocsPages || d.byBase == nil {
			d.byBase = map[string][]byte{}
		}
		page = rebase(d.page, base)
		d.byBase[base] = page
	}
	d.mu.Unlock()
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	if o.public {
		c.Set(fiber.HeaderCacheControl, "public, max-age=300")
	} else {
		c.Set(fiber.HeaderCacheControl, "private, max-age=300")
	}
	return c.Send(page)
}

// rebase returns page with its absolute addresses under base: the
// examples' http://localhost:8080, and the root-relative href and src
// attributes. base is escaped for HTML.
func rebase(page []byte, base string) []byte {
	b := []byte(html.EscapeString(base))
	out := bytes.ReplaceAll(page, []byte(docsExampleBase), b)
	for _, attr := range []string{`href="/`, `src="/`} {
		with := append([]byte(attr[:len(attr)-1]), b...)
		out = bytes.ReplaceAll(out, []byte(attr), append(with, '/'))
	}
	return out
}
