package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"mime"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"eventsvc/server/clientcheck"
	"eventsvc/server/journal"
	"eventsvc/server/oauth"
)

// minToken and maxToken bound the values that are looked up as tokens: ours are 43
// characters; a browser's cookies of localhost are many, and most short.
const minToken, maxToken = 16, 512

// checkClients is the middleware that hands every exchange to ch, the
// client checks (package clientcheck), once it is answered, and logs
// each finding the first time an exchange shows it. It reads the
// request before the handlers (where the tokens were, the token
// request's authentication and body) and the answer after them, the
// journal's entry included; it changes neither.
func (s *Server) checkClients(ch *clientcheck.Checker, log *slog.Logger) fiber.Handler {
	refresh, _ := s.store.(interface{ IsRefresh(string) bool })
	return func(c *fiber.Ctx) error {
		x := s.clientRequest(c)
		if err := c.Next(); err != nil {
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				_ = c.SendStatus(fiber.StatusInternalServerError)
			}
		}
		resp := c.Response()
		x.Status = resp.StatusCode()
		x.Journal, _ = c.Locals(journal.IDKey).(int64)
		if o, ok := c.Locals(originKey).(*origin); ok {
			x.Prefix = o.prefix
		}
		if t := caller(c); t != nil {
			x.Caller = clientcheck.Caller{ClientID: clientcheck.Cut(t.ClientID), User: clientcheck.Cut(t.Username)}
		} else if !strings.HasPrefix(x.Path, "/oauth/") {
			x.RefreshBearer = refreshAsBearer(c, refresh)
		}
		x.Location = string(resp.Header.Peek(fiber.HeaderLocation))
		if !resp.IsBodyStream() && bytes.Contains(resp.Header.ContentType(), []byte("json")) {
			x.Body = resp.Body()
		}
		for _, f := range ch.Check(x) {
			if log != nil {
				log.Warn("client finding", "rule", f.Rule, "client", f.ClientID, "user", f.User, "message", f.Message)
			}
		}
		return nil
	}
}

// clientRequest reads what the client checks judge of a request, before
// the handlers: a token request's authentication and body, or where else
// than Authorization: Bearer a live access token was, in a query
// parameter (its value, its name, or its value after "Bearer "), a cookie
// or a form field. What it keeps is cut (clientcheck.Cut), and a live
// token in the query masked.
func (s *Server) clientRequest(c *fiber.Ctx) clientcheck.Exchange {
	x := clientcheck.Exchange{Method: strings.Clone(c.Method()), Path: clientcheck.Cut(c.Path())}
	if q := c.Request().URI().QueryString(); len(q) > 0 {
		x.Query, _ = url.ParseQuery(string(q))
	}
	if strings.HasPrefix(x.Path, "/oauth/") {
		tokenRequest(c, &x)
		return x
	}
	// misplaced tells of a live access token found elsewhere, and takes
	// its holder for the caller until a valid bearer token says otherwise.
	misplaced := func(kind, name, v string) bool {
		t, ok := s.liveAccess(v)
		if ok {
			x.Misplaced = append(x.Misplaced, fmt.Sprintf("the %s %q", kind, name))
			x.Caller = clientcheck.Caller{ClientID: clientcheck.Cut(t.ClientID), User: clientcheck.Cut(t.Username)}
		}
		return ok
	}
	for name, values := range x.Query {
		for i, v := range values {
			if misplaced("query parameter", name, strings.TrimPrefix(v, "Bearer ")) {
				values[i] = clientcheck.Masked
			}
		}
		if len(values) == 1 && values[0] == "" && misplaced("query", "(a parameter's name)", name) {
			delete(x.Query, name)
		}
	}
	c.Request().Header.VisitAllCookie(func(k, v []byte) { misplaced("cookie", string(k), string(v)) })
	if mt, _, _ := mime.ParseMediaType(c.Get(fiber.HeaderContentType)); mt == fiber.MIMEApplicationForm {
		form, _ := url.ParseQuery(string(c.Body()))
		for name, values := range form {
			for _, v := range values {
				misplaced("form field", name, v)
			}
		}
	}
	return x
}

// refreshAsBearer reports whether the Authorization: Bearer of a request
// that no valid access token authenticated holds a live refresh token.
func refreshAsBearer(c *fiber.Ctx, refresh interface{ IsRefresh(string) bool }) bool {
	scheme, value, _ := strings.Cut(c.Get(fiber.HeaderAuthorization), " ")
	value = strings.TrimSpace(value)
	return refresh != nil && strings.EqualFold(scheme, "Bearer") && value != "" && refresh.IsRefresh(value)
}

// liveAccess returns the grant of v when it is a live access token.
func (s *Server) liveAccess(v string) (oauth.AccessToken, bool) {
	if len(v) < minToken || len(v) > maxToken {
		return oauth.AccessToken{}, false
	}
	t, err := s.store.Access(v)
	return t, err == nil
}

// tokenRequest reads how a request to the token endpoint authenticates
// the client and what its body is, and who it names: the client of its
// Basic credentials or its client_id, the user of its username.
func tokenRequest(c *fiber.Ctx, x *clientcheck.Exchange) {
	auth := c.Get(fiber.HeaderAuthorization)
	scheme, _, _ := strings.Cut(auth, " ")
	if x.Basic = strings.EqualFold(scheme, "Basic"); x.Basic {
		x.Caller.ClientID, _, _ = oauth.ParseBasic(auth)
	}
	mt, _, _ := mime.ParseMediaType(c.Get(fiber.HeaderContentType))
	x.ContentType = clientcheck.Cut(mt)
	form := url.Values{}
	switch {
	case mt == fiber.MIMEApplicationForm:
		form, _ = url.ParseQuery(string(c.Body()))
	case strings.HasSuffix(mt, "json"):
		var m map[string]any
		_ = json.Unmarshal(c.Body(), &m)
		for k, v := range m {
			if text, ok := v.(string); ok {
				form.Set(k, text)
			}
		}
	}
	x.BodySecret = form.Has("client_secret")
	if x.Caller.ClientID == "" {
		x.Caller.ClientID = form.Get("client_id")
	}
	if x.Caller.ClientID == "" {
		x.Caller.ClientID = x.Query.Get("client_id")
	}
	x.Caller = clientcheck.Caller{ClientID: clientcheck.Cut(x.Caller.ClientID), User: clientcheck.Cut(form.Get("username"))}
}
