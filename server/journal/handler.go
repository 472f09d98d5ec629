package journal

import (
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"eventsvc/internal/redact"
	"eventsvc/server/fault"
	"eventsvc/server/oauth"
)

// Handler is the Fiber middleware that records every request that reaches
// it, and its answer, in j. It masks by place (the headers whose names say
// they carry a credential, and the form fields and JSON properties that
// carry passwords, secrets and tokens, whatever the case of their names and
// media types: see package redact), so that no credential or token reaches
// the journal. On the token endpoint it fails closed: a body it cannot
// parse as a form or JSON, whose secrets it could not find, is not
// recorded. It lets Fiber's error handler write an error answer first, so
// that the entry tells the status the client got.
func Handler(j *Journal) fiber.Handler {
	var mask redact.Redactor
	return func(c *fiber.Ctx) error {
		start := time.Now()
		// Fiber's strings live in buffers it reuses for the next request:
		// the entry keeps copies.
		e := Entry{
			Time:   j.clock.Now(),
			Method: strings.Clone(c.Method()),
			Path:   strings.Clone(strings.ToValidUTF8(c.Path(), "?")),
			Remote: strings.Clone(c.IP()),
		}
		strict := strings.HasPrefix(c.Path(), tokenPaths)
		if q := c.Request().URI().QueryString(); len(q) > 0 {
			e.Query = mask.Body(fiber.MIMEApplicationForm, q)
		}
		e.Request = message(&mask, requestHeaders(c), c.Get(fiber.HeaderContentType), c.Body(), false, strict)
		e.grantType = grantType(c)
		err := c.Next()
		if err != nil {
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				_ = c.SendStatus(fiber.StatusInternalServerError)
			}
			err = nil
		}
		if r, ok := c.Locals(fault.AppliedKey).(fault.Rule); ok {
			e.Fault = r.ID
			e.Dropped = r.Drop
		}
		e.ClientLeft, _ = c.Locals(fault.LeftKey).(bool)
		if e.ClientLeft {
			e.Dropped = false
		}
		if !e.Dropped && !e.ClientLeft {
			resp := c.Response()
			e.Status = resp.StatusCode()
			var body []byte
			if !resp.IsBodyStream() {
				body = resp.Body()
			}
			e.Response = message(&mask, responseHeaders(c), string(resp.Header.ContentType()), body, resp.IsBodyStream(), strict)
		}
		e.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
		c.Locals(IDKey, j.Add(e))
		return err
	}
}

// IDKey is the Fiber local under which Handler puts the id of the entry
// it recorded (an int64), for the middleware before it.
const IDKey = "eventsvc.journal"

// tokenPaths are where the bodies carry passwords, client secrets and
// tokens: the token endpoint (and anything the router may take for it).
const tokenPaths = "/oauth/"

// grantType is the grant_type of a token request (a POST to /oauth/token)
// as the token endpoint reads it from its form-encoded body; "" for any
// other request, or a body the token endpoint cannot read.
func grantType(c *fiber.Ctx) string {
	if c.Method() != fiber.MethodPost || strings.TrimSuffix(c.Path(), "/") != tokenPath {
		return ""
	}
	form, err := oauth.ParseForm(c.Get(fiber.HeaderContentType), c.Body())
	if err != nil {
		return ""
	}
	return form.Get("grant_type")
}

// tokenPath is the token endpoint's path.
const tokenPath = "/oauth/token"

// NotMasked is the body an entry shows in place of a body of the token
// endpoint that could not be masked.
const NotMasked = "(not recorded: a body of the token endpoint that is not a form or JSON, whose secrets cannot be found to mask)"

// message is the masked record of headers and a body; a streamed body (a
// file) is not read. When strict, a body that is not a form or JSON is
// not recorded (redact.StrictBody).
func message(mask *redact.Redactor, h http.Header, contentType string, body []byte, streamed, strict bool) Message {
	m := Message{Headers: mask.Header(h)}
	switch {
	case streamed:
		m.Body = "(a file, not recorded)"
	case len(body) == 0:
	case !utf8.Valid(body):
		m.Body = "(not UTF-8 text, not recorded)"
	default:
		masked, ok := mask.StrictBody(contentType, body)
		if strict && !ok {
			m.Body = NotMasked
			break
		}
		if len(masked) > MaxBody {
			cut := MaxBody
			for cut > 0 && !utf8.RuneStart(masked[cut]) {
				cut--
			}
			masked, m.Truncated = masked[:cut], true
		}
		m.Body = masked
	}
	return m
}

func requestHeaders(c *fiber.Ctx) http.Header {
	h := http.Header{}
	c.Request().Header.VisitAll(func(k, v []byte) { h.Add(string(k), string(v)) })
	return h
}

func responseHeaders(c *fiber.Ctx) http.Header {
	h := http.Header{}
	c.Response().Header.VisitAll(func(k, v []byte) { h.Add(string(k), string(v)) })
	return h
}
