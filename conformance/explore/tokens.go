package explore

import (
	"fmt"
	"net/http"
)

// tokenRequest posts a token request with Basic client credentials (the
// run's, unless auth is given) and a form of kv.
func (s *sequence) tokenRequest(auth string, kv ...string) (*answer, error) {
	return s.send(s.r.tokenRequest(auth, kv...))
}

// tokenRequest is a token request with Basic client credentials (the
// run's, unless auth is given) and a form of kv.
func (r *runner) tokenRequest(auth string, kv ...string) request {
	if auth == "" {
		c := r.target.Credentials
		auth = basic(c.ClientID, c.ClientSecret, c.BasicAsIs)
	}
	return request{method: http.MethodPost, address: r.base + "/oauth/token", auth: auth, contentType: formType, body: form(kv...)}
}

// grant asks for fresh tokens of who's account with a password grant
// (TOK-3, TOK-5, TOK-7): the sequence then acts with them and holds their
// refresh token as its own.
func (s *sequence) grant(who string) (*finding, error) {
	c := s.r.target.Credentials
	user, pass := c.Username, c.Password
	if who == AsOther {
		user, pass = c.OtherUsername, c.OtherPass
	}
	x, err := s.tokenRequest("", "grant_type", "password", "username", user, "password", pass)
	if err != nil {
		return nil, err
	}
	if f := s.answered(x); f != nil {
		return f, nil
	}
	if f := s.checkToken(x, "TOK-3", true); f != nil {
		return f, nil
	}
	acct := s.m.accounts[who]
	acct.access, _ = x.text("access_token")
	acct.refresh, _ = x.text("refresh_token")
	acct.refreshed = false
	return nil, nil
}

// refresh exchanges who's refresh token for a new access token (TOK-4,
// TOK-5), after a grant of the sequence's own when it holds none: the new
// token then acts for the account (TOK-8), which the actions after it
// check.
func (s *sequence) refresh(who string) (*finding, error) {
	acct := s.m.accounts[who]
	if acct.refresh == "" {
		if f, err := s.grant(who); f != nil || err != nil {
			return f, err
		}
	}
	x, err := s.tokenRequest("", "grant_type", "refresh_token", "token", acct.refresh)
	if err != nil {
		return nil, err
	}
	if f := s.answered(x); f != nil {
		return f, nil
	}
	if f := s.checkToken(x, "TOK-4", false); f != nil {
		return f, nil
	}
	acct.access, _ = x.text("access_token")
	if r, _ := x.text("refresh_token"); r != "" {
		acct.refresh = r // a target may rotate it (RFC 6749 §6)
	}
	acct.refreshed = true
	return nil, nil
}

// madeUpWrong is a wrong password or client secret (what names it): made
// up, as the scenarios make theirs, so that nothing of the real one is in
// what the reports and scripts show of it; no secret, it is shown as it
// is.
func (r *runner) madeUpWrong(what string) string {
	return "not-the-" + what + "-" + r.target.RunID
}

// madeUpUser is a username of no account, made up as madeUpWrong.
func (r *runner) madeUpUser() string {
	return "nobody-" + r.target.RunID + "@example.invalid"
}

// wrongLogin asks for a token with credentials that must be refused.
func (s *sequence) wrongLogin(wrong string) (*finding, error) {
	if !s.r.reserveFailedLogin() {
		return nil, nil
	}
	c := s.r.target.Credentials
	var x *answer
	var err error
	rule, clientFailed := "TOK-3", false
	switch wrong {
	case WrongPassword:
		x, err = s.tokenRequest("", "grant_type", "password", "username", c.Username, "password", s.r.madeUpWrong("password"))
	case WrongUser:
		x, err = s.tokenRequest("", "grant_type", "password", "username", s.r.madeUpUser(), "password", c.Password)
	case WrongSecret:
		rule, clientFailed = "TOK-1", true
		x, err = s.tokenRequest(basic(c.ClientID, s.r.madeUpWrong("secret"), c.BasicAsIs), "grant_type", "password", "username", c.Username, "password", c.Password)
	case UserAsClient:
		rule, clientFailed = "TOK-10", true
		x, err = s.tokenRequest(basic(c.Username, c.Password, c.BasicAsIs), "grant_type", "password", "username", c.Username, "password", c.Password)
	case ClientAsUser:
		rule = "TOK-10"
		x, err = s.tokenRequest("", "grant_type", "password", "username", c.ClientID, "password", c.ClientSecret)
	default:
		return nil, fmt.Errorf("unknown wrong login %q", wrong)
	}
	if err != nil {
		return nil, err
	}
	if f := s.answered(x); f != nil {
		return f, nil
	}
	if f := s.checkNoToken(x, rule, clientFailed); f != nil {
		return f, nil
	}
	if clientFailed {
		return s.tokenErrorAsRef(x, http.StatusUnauthorized, "invalid_client"), nil
	}
	return s.tokenErrorAsRef(x, http.StatusBadRequest, "invalid_grant"), nil
}
