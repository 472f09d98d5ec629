package steps

import (
	"fmt"
	"regexp"

	"eventsvc/conformance/audit"

	"github.com/cucumber/godog"
	"github.com/gavv/httpexpect/v2"
)

// clientAuth is the HTTP Basic credential of token requests.
type clientAuth struct {
	none       bool
	id, secret string
}

// tokenRequestPhrase is what the client may ask the token endpoint for, in
// the words of the features: whose token, or which refresh, and how the
// request departs from a correct one. tokenAsk reads it.
const tokenRequestPhrase = `((?:the user's|the other user's|an unknown user's) token|a token with the client's credentials as the user's|a refresh of (?:the refresh token|the first refresh token|the other user's refresh token|the access token|a made-up token))(?: (.+))?`

// tokenAsk is one request to the token endpoint: its parameters in order,
// how the client authenticates, whether the body is JSON, and whose tokens
// an answer that issues them holds ("user", "other" or nobody).
type tokenAsk struct {
	params [][2]string
	auth   clientAuth
	json   bool
	holder string
	// expect is what the answer shows: that the token is issued, or that
	// it is not.
	expect audit.Expectation
}

func (a *tokenAsk) set(name, value string) {
	if !a.replace(name, value) {
		a.params = append(a.params, [2]string{name, value})
	}
}

func (a *tokenAsk) replace(name, value string) bool {
	for i := range a.params {
		if a.params[i][0] == name {
			a.params[i][1] = value
			return true
		}
	}
	return false
}

func (a *tokenAsk) remove(name string) bool {
	for i := range a.params {
		if a.params[i][0] == name {
			a.params = append(a.params[:i], a.params[i+1:]...)
			return true
		}
	}
	return false
}

var quotedWord = regexp.MustCompile(`^(without|with the scope|with the grant type) "([^"]*)"$`)

// tokenAsk reads a tokenRequestPhrase: what is asked for, and how the
// request departs from a correct one.
func (s *scenario) tokenAsk(subject, how string) (tokenAsk, error) {
	a := tokenAsk{auth: s.clientAuth}
	password := func(username, pw, holder string) {
		a.params = [][2]string{{"grant_type", "password"}, {"username", username}, {"password", pw}}
		a.holder, a.expect = holder, audit.PasswordGrant
	}
	refresh := func(token, holder string) {
		a.params, a.holder, a.expect = [][2]string{{"grant_type", "refresh_token"}, {"token", token}}, holder, audit.RefreshGrant
	}
	switch subject {
	case "the user's token":
		password(s.creds.Username, s.creds.Password, "user")
	case "the other user's token":
		password(s.creds.OtherUsername, s.creds.OtherPass, "other")
	case "an unknown user's token":
		password(s.madeUpValue(s.madeUp("nobody-")+"@example.invalid"), s.creds.Password, "")
	case "a token with the client's credentials as the user's":
		password(s.creds.ClientID, s.creds.ClientSecret, "")
		a.expect = audit.ClientIsNoUser
	case "a refresh of a made-up token":
		refresh(s.madeUpToken(), "")
	case "a refresh of the first refresh token":
		// The one whose lifetime a @slow scenario watches: whether it is
		// honoured shows the scenario's rule, whatever refreshes came
		// between.
		h, err := s.ownToken("user")
		if err != nil {
			return a, err
		}
		if h.first.refresh == "" {
			return a, noRefreshToken("the user")
		}
		refresh(h.first.refresh, "user")
		a.expect = 0
	case "a refresh of the other user's refresh token":
		h, err := s.ownToken("other")
		if err != nil {
			return a, err
		}
		if h.refresh == "" {
			return a, noRefreshToken("the other user")
		}
		refresh(h.refresh, "other")
	default: // a refresh of the user's refresh token, of the access token
		h, err := s.ownToken("user")
		if err != nil {
			return a, err
		}
		if subject == "a refresh of the access token" {
			refresh(h.access, "user")
			a.expect = audit.AccessTokenIsNoRefreshToken
		} else {
			if h.refresh == "" {
				return a, noRefreshToken("the user")
			}
			refresh(h.refresh, "user")
		}
	}
	switch how {
	case "":
	case "with a wrong password":
		if !a.replace("password", s.wrong(passwordOf(a), &s.turns.password)) {
			return a, fmt.Errorf("%s has no password to get wrong", subject)
		}
	case "with a wrong client secret":
		a.auth = clientAuth{id: s.clientAuth.id, secret: s.wrong(s.clientAuth.secret, &s.turns.secret)}
		a.expect = audit.ClientAuthentication
	case "without client credentials":
		a.auth = clientAuth{none: true}
		a.expect = audit.ClientAuthentication
	case "with the user's credentials as the client's":
		a.auth = clientAuth{id: s.creds.Username, secret: s.creds.Password}
		a.expect = audit.UserIsNoClient
	case "in a JSON body":
		a.json = true
		a.expect = audit.FormBody
	default:
		q := quotedWord.FindStringSubmatch(how)
		switch {
		case q == nil:
			return a, fmt.Errorf("no such way to ask for a token: %q", how)
		case q[1] == "without":
			if !a.remove(q[2]) {
				return a, fmt.Errorf("%s has no parameter %q", subject, q[2])
			}
		case q[1] == "with the scope":
			a.set("scope", q[2])
			a.expect = audit.ScopeWithinRegistration
		default:
			a.set("grant_type", q[2])
			a.expect = audit.OnlyTwoGrants
		}
	}
	return a, nil
}

// request builds the POST to the token endpoint.
func (s *scenario) tokenRequest(a tokenAsk) *httpexpect.Request {
	req := s.e.POST(tokenPath)
	if !a.auth.none {
		req = s.withClientAuth(req, a.auth.id, a.auth.secret)
	}
	if a.json {
		body := map[string]string{}
		for _, p := range a.params {
			body[p[0]] = p[1]
		}
		return req.WithJSON(body)
	}
	req = req.WithHeader("Content-Type", "application/x-www-form-urlencoded")
	for _, p := range a.params {
		req = req.WithFormField(p[0], p[1])
	}
	return req
}

func (s *scenario) passwordGrantRequest(username, password, scope string) *httpexpect.Request {
	a := tokenAsk{auth: s.clientAuth, params: [][2]string{{"grant_type", "password"}, {"username", username}, {"password", password}}}
	if scope != "" {
		a.set("scope", scope)
	}
	return s.tokenRequest(a)
}

// ask sends a token request as a When step, and keeps the tokens an answer
// issues for their holder.
func (s *scenario) ask(a tokenAsk) error {
	s.asked = a
	if err := s.when(s.tokenRequest(a)); err != nil {
		return err
	}
	if s.tokenIssued(s.answer) == nil {
		s.keepTokens(s.answer, a.holder)
		s.refreshedBy(a)
	}
	return nil
}

// refreshedBy notes that the holder's access token came from a refresh
// when a asked for it with the refresh grant.
func (s *scenario) refreshedBy(a tokenAsk) {
	for _, p := range a.params {
		if p[0] == "grant_type" && p[1] == "refresh_token" {
			if h := s.tokens.of(a.holder); h != nil {
				h.refreshed = true
			}
		}
	}
}

func (s *scenario) askFor(subject, how string) error {
	a, err := s.tokenAsk(subject, how)
	if err != nil {
		return err
	}
	return s.ask(a)
}

// namedClientAsksFor asks as a client of the scenario's configuration, which
// authenticates every later token request too.
func (s *scenario) namedClientAsksFor(id, subject, how string) error {
	for _, c := range s.config.Clients {
		if c.ID == id {
			s.clientAuth = clientAuth{id: id, secret: c.Secret}
			return s.askFor(subject, how)
		}
	}
	return fmt.Errorf("client %q is not in this scenario's configuration", id)
}

// askWithTable sends the parameters of a two-column table. A cell may name
// a value the run knows ("the user's email", "the refresh token"); others
// are sent as written.
func (s *scenario) askWithTable(table *godog.Table) error {
	a := tokenAsk{auth: s.clientAuth}
	for _, row := range table.Rows {
		if len(row.Cells) != 2 {
			return fmt.Errorf("each row of the table needs a parameter and a value, got %d cells", len(row.Cells))
		}
		value, err := s.value(row.Cells[1].Value)
		if err != nil {
			return err
		}
		a.set(row.Cells[0].Value, value)
	}
	for _, p := range a.params {
		switch {
		case p[0] == "username" && p[1] == s.creds.Username:
			a.holder, a.expect = "user", audit.PasswordGrant
		case p[0] == "grant_type" && p[1] == "refresh_token":
			a.holder, a.expect = "user", audit.RefreshGrant
		}
	}
	return s.ask(a)
}

func (s *scenario) value(cell string) (string, error) {
	switch cell {
	case "the user's email":
		return s.creds.Username, nil
	case "the user's password":
		return s.creds.Password, nil
	case "the refresh token":
		h, err := s.ownToken("user")
		if err != nil {
			return "", err
		}
		return h.refresh, nil
	}
	return cell, nil
}

// noRefreshToken is the failure of a refresh that cannot be asked for: the
// password grant gave who no refresh token.
func noRefreshToken(who string) error {
	return unmetOnTheWay(fmt.Errorf("%s holds no refresh token: the password grant's answer gave none", who), audit.BothTokens)
}

// keepTokens keeps the tokens of an answer that issued them, for holder,
// as a client does: a refresh token replaces the one held only when the
// answer gives one (RFC 6749 §6).
func (s *scenario) keepTokens(x *exchange, holder string) {
	access, _ := x.text("access_token")
	refresh, _ := x.text("refresh_token")
	s.learn(access)
	s.learn(refresh)
	h := s.tokens.of(holder)
	if h == nil {
		return
	}
	h.previous, h.access = h.access, access
	h.refreshed = false // a refresh grant's caller says so (refreshedBy)
	h.issuedAt = s.now()
	if refresh != "" {
		h.refresh = refresh
		if h.first.refresh == "" {
			h.first.refresh, h.first.issued = refresh, h.issuedAt
		}
	}
	if n, ok := x.json.(map[string]any)["expires_in"].(float64); ok {
		h.expiresIn = int64(n)
	}
}
