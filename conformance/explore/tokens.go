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

// grant asks for fresh tokens of who's account with a password grant:
// the sequence then acts with them and holds their refresh token as its
// own. The registry judges the answer (TOK-3, TOK-5, TOK-7, TOK-15); one
// without tokens leaves the sequence with those it held.
func (s *sequence) grant(who string) (*finding, error) {
	user, pass := s.r.login(who)
	access, refresh, f, err := s.issued("grant_type", "password", "username", user, "password", pass)
	if f != nil || err != nil || access == "" {
		return f, err
	}
	acct := s.m.accounts[who]
	acct.access, acct.refresh, acct.refreshed = access, refresh, false
	return nil, nil
}

// login is the username and password of who's account.
func (r *runner) login(who string) (username, password string) {
	c := r.target.Credentials
	if who == AsOther {
		return c.OtherUsername, c.OtherPass
	}
	return c.Username, c.Password
}

// issued sends a token request of the fields kv, without client
// credentials, and returns the tokens its answer gave, or the finding
// the answer is.
func (s *sequence) issued(kv ...string) (access, refresh string, f *finding, err error) {
	x, err := s.tokenRequest("", kv...)
	if err != nil {
		return "", "", nil, err
	}
	if f := s.answered(x); f != nil {
		return "", "", f, nil
	}
	access, refresh = s.tokensOf(x)
	return access, refresh, nil, nil
}

// refresh exchanges who's refresh token for a new access token, after a
// grant of the sequence's own when it holds none: the new token then acts
// for the account (TOK-8), which the actions after it show. The registry
// judges the answer (TOK-4, TOK-5, TOK-15).
func (s *sequence) refresh(who string) (*finding, error) {
	acct := s.m.accounts[who]
	if acct.refresh == "" {
		if f, err := s.grant(who); f != nil || err != nil || acct.refresh == "" {
			return f, err
		}
	}
	access, refresh, f, err := s.issued("grant_type", "refresh_token", "token", acct.refresh)
	if f != nil || err != nil || access == "" {
		return f, err
	}
	acct.access = access
	if refresh != "" {
		acct.refresh = refresh // a target may rotate it (RFC 6749 §6)
	}
	acct.refreshed = true
	return nil, nil
}

// tokensOf are the tokens a token answer issued, if any, masked from
// then on wherever the run writes.
func (s *sequence) tokensOf(x *answer) (access, refresh string) {
	if x.status != http.StatusOK {
		return "", ""
	}
	access, _ = x.text("access_token")
	refresh, _ = x.text("refresh_token")
	s.r.redactor.Add(access)
	s.r.redactor.Add(refresh)
	return access, refresh
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

// wrongLogin asks for a token with credentials that must be refused:
// the registry judges the answer (TOK-1, TOK-3, TOK-10, TOK-16, and TOK-11
// of the reference server).
func (s *sequence) wrongLogin(wrong string) (*finding, error) {
	if !s.r.reserveFailedLogin() {
		return nil, nil
	}
	c := s.r.target.Credentials
	var x *answer
	var err error
	switch wrong {
	case WrongPassword:
		x, err = s.tokenRequest("", "grant_type", "password", "username", c.Username, "password", s.r.madeUpWrong("password"))
	case WrongUser:
		x, err = s.tokenRequest("", "grant_type", "password", "username", s.r.madeUpUser(), "password", c.Password)
	case WrongSecret:
		x, err = s.tokenRequest(basic(c.ClientID, s.r.madeUpWrong("secret"), c.BasicAsIs), "grant_type", "password", "username", c.Username, "password", c.Password)
	case UserAsClient:
		x, err = s.tokenRequest(basic(c.Username, c.Password, c.BasicAsIs), "grant_type", "password", "username", c.Username, "password", c.Password)
	case ClientAsUser:
		x, err = s.tokenRequest("", "grant_type", "password", "username", c.ClientID, "password", c.ClientSecret)
	default:
		return nil, fmt.Errorf("unknown wrong login %q", wrong)
	}
	if err != nil {
		return nil, err
	}
	return s.answered(x), nil
}
