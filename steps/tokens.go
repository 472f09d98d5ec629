package steps

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cucumber/godog"
	"github.com/gavv/httpexpect/v2"
)

// tokenPath is the address of the token endpoint (spec: Endpoints). The
// specification fixes it; the suite follows links for everything else.
const tokenPath = "/oauth/token"

func (s *scenario) registerTokenSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the client authenticates with a wrong secret$`, s.clientUsesWrongSecret)
	sc.Step(`^the client sends no client credentials$`, s.clientSendsNoCredentials)
	sc.Step(`^the client authenticates with the user's email and password$`, s.clientUsesUserCredentials)
	sc.Step(`^the client has not visited the service before$`, s.clientIsNew)
	sc.Step(`^the client asks for a token with:$`, s.askForToken)
	sc.Step(`^the client asks for a token with everything but "([^"]*)":$`, s.askForTokenWithout)
	sc.Step(`^the client asks for a token with a JSON body:$`, s.askForTokenWithJSON)
	sc.Step(`^the user has a token$`, s.userHasToken)
	sc.Step(`^the client "([^"]*)" asks for a token for the user$`, s.namedClientAsksForToken)

	sc.Step(`^a token is issued$`, s.tokenIsIssued)
	sc.Step(`^no token is issued$`, s.noTokenIsIssued)
	sc.Step(`^the token type is "([^"]*)"$`, s.tokenTypeIs)
	sc.Step(`^the granted scope is "([^"]*)"$`, s.grantedScopeIs)
	sc.Step(`^the access token expires within (\d+) seconds$`, s.accessTokenExpiresWithin)
	sc.Step(`^a refresh token is issued$`, s.refreshTokenIsIssued)
	sc.Step(`^the new access token differs from the previous one$`, s.newAccessTokenDiffers)
	sc.Step(`^the token request is refused with status (\d+) and error "([^"]*)"$`, s.tokenRequestRefused)
	sc.Step(`^a caller reads the token endpoint with GET$`, s.readTokenEndpoint)
	sc.Step(`^a caller asks the authorization endpoint for a code for the client$`, s.askAuthorizationEndpoint)
}

func (s *scenario) clientUsesWrongSecret() error {
	s.clientAuth = clientAuth{id: s.creds.ClientID, secret: "wrong-" + s.creds.ClientSecret}
	s.learn(s.clientAuth.secret)
	return nil
}

func (s *scenario) clientSendsNoCredentials() error {
	s.clientAuth = clientAuth{none: true}
	return nil
}

func (s *scenario) clientUsesUserCredentials() error {
	s.clientAuth = clientAuth{id: s.creds.Username, secret: s.creds.Password}
	return nil
}

func (s *scenario) clientIsNew() error {
	for _, c := range s.rec.cookies() {
		return fmt.Errorf("the scenario already holds a cookie: %s", c)
	}
	return nil
}

// value turns the words of a table cell into the value to send: "the
// user's email" becomes the configured username, and so on. Other cells are
// sent as written.
func (s *scenario) value(cell string) string {
	switch cell {
	case "the user's email":
		return s.creds.Username
	case "the user's password":
		return s.creds.Password
	case "the other user's email":
		return s.creds.OtherUsername
	case "the other user's password":
		return s.creds.OtherPass
	case "the client id":
		return s.creds.ClientID
	case "the client secret":
		return s.creds.ClientSecret
	case "the access token":
		return s.accessToken
	case "the refresh token":
		return s.refreshToken
	case "a wrong password":
		return s.madeUp("wrong-password-")
	case "an unknown email":
		return s.madeUp("nobody-") + "@example.invalid"
	case "a made-up refresh token":
		return s.madeUp("")
	}
	return cell
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

// params reads a two-column table of parameter names and cell words.
func (s *scenario) params(table *godog.Table) ([][2]string, error) {
	var out [][2]string
	for _, row := range table.Rows {
		if len(row.Cells) != 2 {
			return nil, fmt.Errorf("each row of the table needs a parameter and a value, got %d cells", len(row.Cells))
		}
		out = append(out, [2]string{row.Cells[0].Value, s.value(row.Cells[1].Value)})
	}
	return out, nil
}

// tokenRequest is a POST to the token endpoint with the scenario's client
// authentication.
func (s *scenario) tokenRequest() *httpexpect.Request {
	req := s.e.POST(tokenPath)
	if !s.clientAuth.none {
		req = s.withClientAuth(req, s.clientAuth.id, s.clientAuth.secret)
	}
	return req
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

func (s *scenario) askForToken(table *godog.Table) error {
	return s.askForTokenWithout("", table)
}

func (s *scenario) askForTokenWithout(left string, table *godog.Table) error {
	params, err := s.params(table)
	if err != nil {
		return err
	}
	req := s.tokenRequest().WithHeader("Content-Type", "application/x-www-form-urlencoded")
	for _, p := range params {
		if p[0] != left {
			req = req.WithFormField(p[0], p[1])
		}
	}
	s.expect(req)
	return s.done()
}

func (s *scenario) askForTokenWithJSON(table *godog.Table) error {
	params, err := s.params(table)
	if err != nil {
		return err
	}
	body := map[string]string{}
	for _, p := range params {
		body[p[0]] = p[1]
	}
	s.expect(s.tokenRequest().WithJSON(body))
	return s.done()
}

func (s *scenario) userHasToken() error {
	s.expect(s.tokenRequest().
		WithFormField("grant_type", "password").
		WithFormField("username", s.creds.Username).
		WithFormField("password", s.creds.Password))
	if err := s.done(); err != nil {
		return err
	}
	return s.tokenIsIssued()
}

func (s *scenario) namedClientAsksForToken(id string) error {
	secret, ok := s.secrets[id]
	if !ok {
		return fmt.Errorf("client %q is not in this scenario's configuration", id)
	}
	s.clientAuth = clientAuth{id: id, secret: secret}
	return s.userHasToken()
}

// tokenIsIssued checks a successful token response (spec TOK-5) and keeps
// its tokens for the following steps.
func (s *scenario) tokenIsIssued() error {
	if !s.requireLast() {
		return s.done()
	}
	s.last.Status(http.StatusOK)
	obj := s.object()
	obj.Value("access_token").String().NotEmpty()
	if err := s.done(); err != nil {
		return err
	}
	raw := obj.Raw()
	if n, ok := raw["expires_in"].(float64); ok {
		s.expiresIn = int64(n)
	}
	s.issuedAt = time.Now()
	access, _ := raw["access_token"].(string)
	s.learn(access)
	s.previousAccessToken, s.accessToken = s.accessToken, access
	if refresh, ok := raw["refresh_token"].(string); ok && refresh != "" {
		s.learn(refresh)
		s.refreshToken = refresh
	}
	return nil
}

// noTokenIsIssued checks that a token request was refused with a client
// error and no access token, whatever the exact status (spec: "not shown").
func (s *scenario) noTokenIsIssued() error {
	if !s.requireLast() {
		return s.done()
	}
	if code := s.last.Raw().StatusCode; code < 400 || code > 499 {
		s.rec.fail("expected a refusal (a 4xx status), got %d", code)
	}
	var body map[string]any
	if decodeJSON(s.lastBody, &body) && body["access_token"] != nil && body["access_token"] != "" {
		s.rec.fail("the refusal carries an access_token")
	}
	return s.done()
}

func (s *scenario) tokenTypeIs(want string) error {
	got := s.object().Value("token_type").String().Raw()
	if !strings.EqualFold(got, want) { // RFC 6749 §7.1: case-insensitive
		s.rec.fail("token_type is %q, want %q", got, want)
	}
	return s.done()
}

func (s *scenario) grantedScopeIs(want string) error {
	got := s.object().Value("scope").String().Raw()
	if !sameWords(got, want) {
		s.rec.fail("scope is %q, want %q", got, want)
	}
	return s.done()
}

func (s *scenario) accessTokenExpiresWithin(max int) error {
	n := s.object().Value("expires_in").Number()
	n.IsInt().Gt(0).Le(max)
	return s.done()
}

func (s *scenario) refreshTokenIsIssued() error {
	s.object().Value("refresh_token").String().NotEmpty()
	return s.done()
}

func (s *scenario) newAccessTokenDiffers() error {
	if s.previousAccessToken == "" || s.accessToken == s.previousAccessToken {
		return fmt.Errorf("the new access token is the same as the previous one")
	}
	return nil
}

// tokenRequestRefused checks an RFC 6749 §5.2 error answer (reference rule
// TOK-11).
func (s *scenario) tokenRequestRefused(status int, code string) error {
	if !s.requireLast() {
		return s.done()
	}
	s.last.Status(status)
	s.last.HasContentType("application/json")
	obj := s.object()
	obj.Value("error").String().IsEqual(code)
	obj.Value("error_description").String().NotEmpty()
	return s.done()
}

func (s *scenario) readTokenEndpoint() error {
	s.expect(s.e.GET(tokenPath))
	return s.done()
}

func (s *scenario) askAuthorizationEndpoint() error {
	s.expect(s.e.GET("/oauth/authorize").
		WithQuery("response_type", "code").
		WithQuery("client_id", s.creds.ClientID).
		WithQuery("redirect_uri", "http://127.0.0.1/callback").
		WithQuery("state", "conformance"))
	return s.done()
}

// sameWords compares two space-separated lists as sets.
func sameWords(a, b string) bool {
	fa, fb := strings.Fields(a), strings.Fields(b)
	if len(fa) != len(fb) {
		return false
	}
	seen := map[string]int{}
	for _, w := range fa {
		seen[w]++
	}
	for _, w := range fb {
		if seen[w] == 0 {
			return false
		}
		seen[w]--
	}
	return true
}
