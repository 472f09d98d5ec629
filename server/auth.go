package server

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"

	"eventsvc/server/backend"
	"eventsvc/server/oauth"
)

// callerKey is the Fiber local under which the resource server puts the
// caller's *oauth.AccessToken; it is absent for anonymous callers.
const callerKey = "eventsvc.caller"

// realm is the realm of the resource server's WWW-Authenticate challenges.
const realm = "event"

// caller returns the valid access token of the request, or nil for an
// anonymous caller.
func caller(c *fiber.Ctx) *oauth.AccessToken {
	t, _ := c.Locals(callerKey).(*oauth.AccessToken)
	return t
}

// resourceServer applies the authorization rules of the resource server
// (spec AUTH, SVC-4, CLI-7) to every request that reaches it; the public
// files are served before it. Only the Authorization: Bearer header counts:
// no cookie, no query parameter (RFC 6750 §2.3), no Basic credentials
// (spec AUTH-1).
//
//   - the token endpoint and the authorization endpoint authenticate their
//     callers themselves;
//   - a token not issued for resource "event" is refused with 403;
//   - GET on /api/** is allowed for everyone, and a missing or invalid token
//     makes the caller anonymous (spec AUTH-2, API-2);
//   - everything else needs a valid token: without one 401 (RFC 6750 §3),
//     and a write under /api/ also needs the write scope (403
//     insufficient_scope, RFC 6750 §3.1).
func (s *Server) resourceServer(c *fiber.Ctx) error {
	path := c.Path()
	if path == "/oauth/token" || path == "/oauth/authorize" {
		return c.Next()
	}
	token, tokenErr, err := s.bearer(c)
	if err != nil {
		return err // the token store cannot answer: 503
	}
	if token != nil && !token.HasResource(ResourceID) {
		return oauth.ErrAccessDenied.WithDescription("the access token is not valid for resource %q", ResourceID)
	}
	underAPI := path == "/api" || strings.HasPrefix(path, "/api/")
	read := c.Method() == fiber.MethodGet || c.Method() == fiber.MethodHead
	if underAPI && read {
		if token != nil {
			c.Locals(callerKey, token)
		}
		return c.Next()
	}
	if tokenErr != nil {
		c.Set(fiber.HeaderWWWAuthenticate, challenge(tokenErr))
		return tokenErr
	}
	if token == nil {
		c.Set(fiber.HeaderWWWAuthenticate, fmt.Sprintf("Bearer realm=%q", realm))
		return oauth.ErrUnauthorized.WithDescription("full authentication is required: send a valid access token in the Authorization: Bearer header")
	}
	if underAPI && !token.HasScope(oauth.ScopeWrite) {
		e := oauth.ErrInsufficientScope.WithDescription("this request needs the %q scope", oauth.ScopeWrite)
		c.Set(fiber.HeaderWWWAuthenticate, challenge(e)+fmt.Sprintf(", scope=%q", oauth.ScopeWrite))
		return e
	}
	c.Locals(callerKey, token)
	return c.Next()
}

// bearer reads the access token of the request. It returns nils when
// there is no Bearer credential, a *oauth.Error when there is one that is
// not a valid token, and an error when the token store cannot tell
// (backend.ErrUnavailable): a token that may be valid is not taken for an
// invalid one.
func (s *Server) bearer(c *fiber.Ctx) (*oauth.AccessToken, *oauth.Error, error) {
	scheme, value, _ := strings.Cut(c.Get(fiber.HeaderAuthorization), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return nil, nil, nil
	}
	value = strings.TrimSpace(value)
	if value == "" {
		return nil, oauth.ErrInvalidToken.WithDescription("the Bearer credential is empty"), nil
	}
	t, err := s.store.Access(value)
	if errors.Is(err, backend.ErrUnavailable) {
		return nil, nil, fmt.Errorf("read access token: %w", err)
	}
	if err != nil {
		e, ok := err.(*oauth.Error)
		if !ok {
			e = oauth.ErrInvalidToken.WithDescription("the access token is not valid")
		}
		return nil, e, nil
	}
	return &t, nil, nil
}

// challenge is the WWW-Authenticate value for an error of RFC 6750 §3.
func challenge(e *oauth.Error) string {
	return fmt.Sprintf("Bearer realm=%q, error=%q, error_description=%q", realm, e.Code, e.Description)
}
