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
	access, refresh string    // the user's
	previous        string    // the user's access token before the last one issued
	other           string    // the other user's access token
	madeUp          string    // a token no server issued
	expiresIn       int64     // expires_in of the user's last token
	issuedAt        time.Time // when it was issued
}

// as adds the credentials of who to req: none for "a caller", the user's
// or the other user's access token (asked for when the scenario holds none
// yet), a made-up token, the user's refresh token, or the client's
// credentials in HTTP Basic.
func (s *scenario) as(who string, req *httpexpect.Request) (*httpexpect.Request, error) {
	switch who {
	case "a caller":
		return req, nil
	case "the user":
		if err := s.ensureUserToken(); err != nil {
			return nil, err
		}
		return bearer(req, s.tokens.access), nil
	case "the other user":
		if s.tokens.other == "" {
			token, err := s.passwordGrant(s.creds.OtherUsername, s.creds.OtherPass, "")
			if err != nil {
				return nil, fmt.Errorf("the other user's token: %w", err)
			}
			s.tokens.other = token
		}
		return bearer(req, s.tokens.other), nil
	case "a caller with an invalid token":
		return bearer(req, s.madeUpToken()), nil
	case "a caller with the user's refresh token":
		if err := s.ensureUserToken(); err != nil {
			return nil, err
		}
		if s.tokens.refresh == "" {
			return nil, fmt.Errorf("the user holds no refresh token")
		}
		return bearer(req, s.tokens.refresh), nil
	case "a caller with the client's credentials":
		return s.withClientAuth(req, s.creds.ClientID, s.creds.ClientSecret), nil
	}
	return nil, fmt.Errorf("no such actor: %q", who)
}

func bearer(req *httpexpect.Request, token string) *httpexpect.Request {
	return req.WithHeader("Authorization", "Bearer "+token)
}

// withClientAuth adds HTTP Basic client credentials, form-encoded before
// the base64 encoding as RFC 6749 §2.3.1 requires, unless the target takes
// them as they are (Credentials.BasicAsIs).
func (s *scenario) withClientAuth(req *httpexpect.Request, id, secret string) *httpexpect.Request {
	if s.creds.BasicAsIs {
		return req.WithBasicAuth(id, secret)
	}
	return req.WithBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
}

// ensureUserToken asks for the user's tokens unless the scenario holds them.
func (s *scenario) ensureUserToken() error {
	if s.tokens.access != "" {
		return nil
	}
	return s.userHasToken()
}

// userHasToken asks for the user's tokens with a probe.
func (s *scenario) userHasToken() error {
	x, err := s.send(s.passwordGrantRequest(s.creds.Username, s.creds.Password, ""))
	if err != nil {
		return err
	}
	if err := s.tokenIssued(x); err != nil {
		return fmt.Errorf("the user's token: %w", err)
	}
	s.keepTokens(x, "user")
	return nil
}

// passwordGrant asks for an account's access token with a probe.
func (s *scenario) passwordGrant(username, password, scope string) (string, error) {
	x, err := s.send(s.passwordGrantRequest(username, password, scope))
	if err != nil {
		return "", err
	}
	if err := s.tokenIssued(x); err != nil {
		return "", err
	}
	token, _ := x.text("access_token")
	s.learn(token)
	return token, nil
}

// madeUpToken is a token no server issued, the same within a scenario.
func (s *scenario) madeUpToken() string {
	if s.tokens.madeUp == "" {
		s.tokens.madeUp = s.madeUp("invalid-")
	}
	return s.tokens.madeUp
}

// madeUp returns a fresh random value with the prefix, and masks it.
func (s *scenario) madeUp(prefix string) string {
	v := prefix + randomWord(32)
	s.learn(v)
	return v
}

// randomWord returns n random base64url characters.
func randomWord(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)[:n]
}
