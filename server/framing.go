package server

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"eventsvc/server/oauth"
)

// Framing of request bodies (RFC 9112 §6, https://www.rfc-editor.org/rfc/rfc9112#section-6).
// fasthttp (from v1.5x on; v1.51 did not) refuses, with 400 and a closed
// connection, conflicting Content-Length headers and a Transfer-Encoding
// other than chunked; refuseAmbiguousFraming adds a request with both
// Transfer-Encoding and Content-Length, and errorHandler answers a coding
// the server does not implement before a final chunked with 501.

// refuseAmbiguousFraming refuses a request that has both Transfer-Encoding
// and Content-Length with 400 and closes the connection: RFC 9112 §6.3
// (item 3) lets a server refuse such a request, and asks it to close the
// connection in any case, since a proxy in front may have framed the body
// by the other header (request smuggling).
func refuseAmbiguousFraming(c *fiber.Ctx) error {
	raw := c.Request().Header.RawHeaders()
	if !hasHeader(raw, fiber.HeaderTransferEncoding) || !hasHeader(raw, fiber.HeaderContentLength) {
		return c.Next()
	}
	c.Context().SetConnectionClose()
	return &oauth.Error{
		Code:        "invalid_request",
		Description: "the request has both Transfer-Encoding and Content-Length; send one (RFC 9112 §6.3)",
		Status:      http.StatusBadRequest,
	}
}

// hasHeader reports whether the raw header lines hold a field named name.
func hasHeader(raw []byte, name string) bool {
	for len(raw) > 0 {
		var line []byte
		line, raw, _ = bytes.Cut(raw, []byte("\n"))
		key, _, ok := bytes.Cut(line, []byte(":"))
		if ok && strings.EqualFold(string(bytes.TrimSpace(key)), name) {
			return true
		}
	}
	return false
}

// unknownTransferCoding reports whether err is fasthttp's refusal of a
// request whose body is chunked last, as it must be, but also coded in a
// way the server does not implement ("gzip, chunked"): RFC 9112 §6.1 asks
// for 501 then. Fiber passes fasthttp's refusal on as a 400 with its
// message, which quotes the header's value. When chunked is not last
// ("gzip", "chunked, gzip"), the length of the body cannot be known, and
// the 400 stays (§6.3).
func unknownTransferCoding(err *fiber.Error) bool {
	if err.Code != http.StatusBadRequest {
		return false
	}
	_, quoted, ok := strings.Cut(err.Message, fasthttp.ErrUnsupportedTransferEncoding.Error()+": ")
	if !ok {
		return false
	}
	// The quoted value is followed by more of fasthttp's context (which
	// may quote the whole request: it is never logged nor answered).
	prefix, qerr := strconv.QuotedPrefix(quoted)
	if qerr != nil {
		return false
	}
	value, _ := strconv.Unquote(prefix)
	codings := strings.Split(value, ",")
	return len(codings) > 1 && strings.EqualFold(strings.TrimSpace(codings[len(codings)-1]), "chunked")
}
