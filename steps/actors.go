package steps

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/url"
	"time"

	"github.com/gavv/httpexpect/v2"
)

// actor is the pattern of the phrases that say who sends a request. Every
// step that sends a request on someone's behalf takes one, and as turns it
// into credentials.
const actor = `(a caller|the user|the other user|a caller with an invalid token|a caller with the user's refresh token|a caller with the client's credentials)`

// tokens are the tokens a scenario holds. They are masked wherever they
// appear.
type tokens struct {
	user, other held   // the user's and the other user's
	madeUp      string // a token no server issued
}

// held are the tokens one account holds, as a client keeps them: the
// access token of the last answer that issued one, and the refresh token
// it was last given (an answer to a refresh that gives none, or the same
// one, leaves it as it was: RFC 6749 §6).
type held struct {
	access, refresh string
	pooled          bool      // access is the run's (Pool), refresh unknown
	cookies         []string  // pooled: the names of the cookies set where it was taken
	refreshed       bool      // access came from a refresh grant
	previous        string    // the access token before the last one issued
	expiresIn       int64     // expires_in of the last access token
	issuedAt        time.Time // when it was issued (scenario.now)
	// first is the first refresh token the account was given, and when:
	// the one whose lifetime the @slow scenarios watch, whatever a
	// refresh gives in its place.
	first struct {
		refresh string
		issued  time.Time
	}
}

// of returns the tokens of holder ("user" or "other"); nil for anyone else.
func (t *tokens) of(holder string) *held {
	switch holder {
	case "user":
		return &t.user
	case "other":
		return &t.other
	}
	return nil
}

// all returns every token the scenario holds or made up.
func (t *tokens) all() []string {
	return []string{t.user.access, t.user.refresh, t.user.previous, t.other.access, t.other.refresh, t.other.previous, t.madeUp}
}

// as adds the credentials of who to req: none for "a caller", the user's
// or the other user's access token (asked for when the scenario holds none
// yet), a made-up token, the user's refresh token, or the client's
// credentials in HTTP Basic.
func (s *scenario) as(who string, req *httpexpect.Request) (*httpexpect.Request, error) {
	switch who {
	case "a caller":
		return req, nil
	case "the user", "the other user":
		h, err := s.ensureToken(holderOf(who))
		if err != nil {
			return nil, err
		}
		return s.bearer(req, h.access), nil
	case "a caller with an invalid token":
		return s.bearer(req, s.madeUpToken()), nil
	case "a caller with the user's refresh token":
		h, err := s.ownToken("user")
		if err != nil {
			return nil, err
		}
		if h.refresh == "" {
			return nil, noRefreshToken("the user")
		}
		return s.bearer(req, h.refresh), nil
	case "a caller with the client's credentials":
		return s.withClientAuth(req, s.creds.ClientID, s.creds.ClientSecret), nil
	}
	return nil, fmt.Errorf("no such actor: %q", who)
}

// account is the pattern of the phrases that name an account of the run.
const account = `(the user|the other user)`

// holderOf is the holder of an account phrase's tokens: "user" or "other".
func holderOf(who string) string {
	if who == "the other user" {
		return "other"
	}
	return "user"
}

// Authentication schemes, as the suite writes them unless a step spells
// them otherwise (spec SVC-7: their names are case-insensitive).
const (
	schemeBearer = "Bearer"
	schemeBasic  = "Basic"
)

// bearer adds the access token to req, with the scheme as the scenario
// spells it.
func (s *scenario) bearer(req *httpexpect.Request, token string) *httpexpect.Request {
	return req.WithHeader("Authorization", s.spelling(schemeBearer)+" "+token)
}

// spelling is how the scenario writes the scheme: as a step spelt it, or
// as the RFCs do.
func (s *scenario) spelling(scheme string) string {
	if sp, ok := s.spellings[scheme]; ok {
		return sp
	}
	return scheme
}

// withClientAuth adds HTTP Basic client credentials, form-encoded before
// the base64 encoding as RFC 6749 §2.3.1 requires, unless the target takes
// them as they are (Credentials.BasicAsIs).
func (s *scenario) withClientAuth(req *httpexpect.Request, id, secret string) *httpexpect.Request {
	if !s.creds.BasicAsIs {
		id, secret = url.QueryEscape(id), url.QueryEscape(secret)
	}
	return req.WithHeader("Authorization", s.spelling(schemeBasic)+" "+base64.StdEncoding.EncodeToString([]byte(id+":"+secret)))
}

// ensureToken gives the scenario an access token of holder, unless it
// holds one: the run's (Pool), when the scenario may share one, or else
// its own.
func (s *scenario) ensureToken(holder string) (*held, error) {
	h := s.tokens.of(holder)
	if h == nil {
		return nil, fmt.Errorf("no such holder of tokens: %q", holder)
	}
	if h.access != "" {
		return h, nil
	}
	if s.ownTokens {
		return h, s.hasToken(holder)
	}
	if access, cookies, ok := s.target.Pool.Get(s.base, holder); ok {
		s.learn(access)
		*h = held{access: access, pooled: true, cookies: cookies}
		return h, nil
	}
	if err := s.hasToken(holder); err != nil {
		return h, err
	}
	// Offered to the other scenarios, and so no longer this one's to
	// refresh: a refresh would revoke it under them.
	s.target.Pool.Put(s.base, holder, h.access, h.expiresIn, s.rec.cookieNames())
	h.pooled = s.target.Pool != nil
	return h, nil
}

// ownToken gives the scenario tokens of holder that are its own, to
// refresh or to watch age: a pooled token is replaced by a new one.
func (s *scenario) ownToken(holder string) (*held, error) {
	h := s.tokens.of(holder)
	if h == nil {
		return nil, fmt.Errorf("no such holder of tokens: %q", holder)
	}
	if h.access != "" && !h.pooled {
		return h, nil
	}
	*h = held{}
	return h, s.hasToken(holder)
}

// hasToken asks for holder's tokens with a probe.
func (s *scenario) hasToken(holder string) error {
	username, password, whose := s.creds.Username, s.creds.Password, "the user's"
	if holder == "other" {
		username, password, whose = s.creds.OtherUsername, s.creds.OtherPass, "the other user's"
	}
	x, err := s.send(s.passwordGrantRequest(username, password, ""))
	if err != nil {
		return err
	}
	if err := s.tokenIssued(x); err != nil {
		return fmt.Errorf("%s token: %w", whose, err)
	}
	s.keepTokens(x, holder)
	return nil
}

// userHasToken asks for the user's tokens with a probe.
func (s *scenario) userHasToken() error { return s.hasToken("user") }

// madeUpToken is a token no server issued, the same within a scenario.
func (s *scenario) madeUpToken() string {
	if s.tokens.madeUp == "" {
		s.tokens.madeUp = s.madeUp("invalid-")
	}
	return s.tokens.madeUp
}

// madeUp returns a fresh random value with the prefix, which the audit
// is told no target holds (madeUpValue). It is no secret (no target
// issued it, nobody uses it): the reproductions show it as it is, so that
// they send the same invalid token or wrong secret.
func (s *scenario) madeUp(prefix string) string {
	return s.madeUpValue(prefix + randomWord(32))
}

// madeUpValue tells the audit that v, a token, a username or a password
// the scenario made up, is held by no target, and returns it.
func (s *scenario) madeUpValue(v string) string {
	if s.scope != nil {
		s.scope.MadeUp(v)
	}
	return v
}

// randomWord returns n random base64url characters.
func randomWord(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)[:n]
}
