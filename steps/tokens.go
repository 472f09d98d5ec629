package steps

import (
	"fmt"
	"math"
	"net/http"
	"strings"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/jsonvalue"
)

// tokenPath is the address of the token endpoint (spec: Endpoints). The
// specification fixes it; the suite follows links for everything else.
const tokenPath = "/oauth/token"

func (s *scenario) registerTokenSteps(sc stepRegistry) {
	sc.Step(`^the user has a token$`, s.userHasToken)
	sc.Step(`^`+account+` has refreshed their token$`, s.hasRefreshed)
	sc.Step(`^the (?:client|user|other user) writes the "(Bearer|Basic)" scheme as "([^"]*)"$`, s.spellScheme)
	sc.Step(`^the client has not visited the service before$`, s.clientIsNew)
	sc.Step(`^the client asks for `+tokenRequestPhrase+`$`, s.askFor)
	sc.Step(`^the client "([^"]*)" asks for `+tokenRequestPhrase+`$`, s.namedClientAsksFor)
	sc.Step(`^the client asks for a token with:$`, s.askWithTable)
	sc.Step(`^a caller asks the authorization endpoint for a code for the client$`, s.askAuthorizationEndpoint)

	sc.Step(`^a token is issued$`, s.aTokenIsIssued)
	sc.Step(`^no token is issued$`, s.noTokenIsIssued)
	sc.Step(`^the token type is "([^"]*)"$`, s.tokenTypeIs)
	sc.Step(`^the granted scope is "([^"]*)"$`, s.grantedScopeIs)
	sc.Step(`^the access token expires within (\d+) seconds$`, s.accessTokenExpiresWithin)
	sc.Step(`^a refresh token is issued$`, s.refreshTokenIsIssued)
	sc.Step(`^the new access token differs from the previous one$`, s.newAccessTokenDiffers)
	sc.Step(`^the token request is refused with status (\d+) and error "([^"]*)"$`, s.tokenRequestRefused)
	sc.Step(`^the (access|previous access|refresh) token is (accepted|refused) by the resource server$`, s.tokenAcceptedOrRefused)
}

// hasRefreshed exchanges who's refresh token for a new access token, with
// a probe, and keeps what the answer gives as a client would.
func (s *scenario) hasRefreshed(who string) error {
	holder := holderOf(who)
	h, err := s.ownToken(holder)
	if err != nil {
		return err
	}
	if h.refresh == "" {
		return noRefreshToken(who)
	}
	a := tokenAsk{auth: s.clientAuth, params: [][2]string{{"grant_type", "refresh_token"}, {"token", h.refresh}}, holder: holder}
	x, err := s.send(s.tokenRequest(a))
	if err != nil {
		return err
	}
	if err := s.tokenIssued(x); err != nil {
		return fmt.Errorf("refreshing %s's token: %w", who, err)
	}
	s.keepTokens(x, holder)
	s.refreshedBy(a)
	return nil
}

// spellScheme makes the scenario write an authentication scheme as
// spelling from now on (spec SVC-7: scheme names are case-insensitive).
func (s *scenario) spellScheme(scheme, spelling string) error {
	if !strings.EqualFold(scheme, spelling) {
		return fmt.Errorf("%q is not a spelling of %s", spelling, scheme)
	}
	if s.spellings == nil {
		s.spellings = map[string]string{}
	}
	s.spellings[scheme] = spelling
	return nil
}

func (s *scenario) clientIsNew() error {
	if c := s.rec.cookies(); len(c) > 0 {
		return fmt.Errorf("the scenario already holds a cookie: %s", c[0])
	}
	return nil
}

func (s *scenario) askAuthorizationEndpoint() error {
	return s.when(s.e.GET("/oauth/authorize").
		WithQuery("response_type", "code").
		WithQuery("client_id", s.creds.ClientID).
		WithQuery("redirect_uri", "http://127.0.0.1/callback").
		WithQuery("state", "conformance"))
}

// tokenIssued checks a successful token response (spec TOK-5): 200 and a
// JSON object with an access token.
func (s *scenario) tokenIssued(x *exchange) error {
	if x.status != http.StatusOK {
		return s.failf(x, "no token was issued: status %d", x.status)
	}
	if token, err := x.text("access_token"); err != nil || token == "" {
		return s.failf(x, "the answer carries no access_token (%v)", err)
	}
	return nil
}

func (s *scenario) aTokenIsIssued() error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	// Whatever the scenario checks, a correct token request that gets no
	// token breaks the rule of that request (the password grant's, the
	// refresh grant's).
	if len(s.spellings) > 0 {
		return unmet(s.tokenIssued(x), audit.SchemeAnyCase) // the scenario is about how it is spelt
	}
	return unmetOnTheWay(s.tokenIssued(x), s.asked.expect)
}

// noTokenIsIssued checks that a token request was refused with a client
// error and no access token, whatever the exact status (spec: "not shown").
func (s *scenario) noTokenIsIssued() error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	if x.status < 400 || x.status > 499 {
		return unmetOnTheWay(s.failf(x, "expected a refusal (a 4xx status), got %d", x.status), s.asked.expect)
	}
	if token, _ := x.field("access_token"); token != nil && token != "" {
		return unmetOnTheWay(s.failf(x, "the refusal carries an access_token"), s.asked.expect)
	}
	return nil
}

func (s *scenario) tokenTypeIs(want string) error {
	return answerFieldIs(s, "token_type", (*exchange).text, audit.TokenFields, func(got string) string {
		if strings.EqualFold(got, want) { // RFC 6749 §5.1: case-insensitive
			return ""
		}
		return fmt.Sprintf("token_type is %s, want %q", jsonvalue.Describe(got), want)
	})
}

func (s *scenario) grantedScopeIs(want string) error {
	return answerFieldIs(s, "scope", (*exchange).text, audit.GrantedScope, func(got string) string {
		if jsonvalue.SameWords(got, want) { // RFC 6749 §3.3: a set of space-separated words
			return ""
		}
		return fmt.Sprintf("scope is %q, want %q", got, want)
	})
}

func (s *scenario) accessTokenExpiresWithin(most int) error {
	return answerFieldIs(s, "expires_in", (*exchange).field, audit.TokenFields, func(v any) string {
		if n, ok := v.(float64); ok && n == math.Trunc(n) && n > 0 && n <= float64(most) {
			return ""
		}
		return fmt.Sprintf("expires_in is %s, want a whole number of seconds from 1 to %d", jsonvalue.Describe(v), most)
	})
}

// answerFieldIs checks the property name of the last answer, as read
// gives it: a missing one, or one that wrong says is wrong (a message,
// "" for nothing wrong), fails as the expectation e unmet.
func answerFieldIs[T any](s *scenario, name string, read func(*exchange, string) (T, error), e audit.Expectation, wrong func(T) string) error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	v, err := read(x, name)
	if err != nil {
		return unmet(s.about(x, err), e)
	}
	if why := wrong(v); why != "" {
		return unmet(s.failf(x, "%s", why), e)
	}
	return nil
}

func (s *scenario) refreshTokenIsIssued() error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	if token, err := x.text("refresh_token"); err != nil || token == "" {
		return unmet(s.failf(x, "the answer carries no refresh_token (%v)", err), audit.BothTokens)
	}
	return nil
}

func (s *scenario) newAccessTokenDiffers() error {
	if u := s.tokens.user; u.previous == "" || u.access == u.previous {
		return unmet(fmt.Errorf("the new access token is the same as the previous one"), audit.RefreshedToken)
	}
	return nil
}

// tokenRequestRefused checks an RFC 6749 §5.2 error answer (reference rule
// TOK-11).
func (s *scenario) tokenRequestRefused(status int, code string) error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	if x.status != status {
		return s.failf(x, "status %d, want %d", x.status, status)
	}
	if got, err := x.text("error"); err != nil || got != code {
		return s.failf(x, "error is %q (%v), want %q", got, err, code)
	}
	if d, err := x.text("error_description"); err != nil || d == "" {
		return s.failf(x, "the answer has no error_description")
	}
	return nil
}

// tokenAcceptedOrRefused checks, with probes, what the specification says a
// valid access token changes: the event list offers its bearer the link to
// create an event (spec API-4), and a request that needs a token is not
// refused. A token that is refused is served as anonymous on the list (spec
// API-2, API-3), and the request that needs a token is refused. The list is
// compared with what it offers an anonymous caller, read too: a target
// that offers everyone "create-new-event" (a fault of API-3) tells nothing
// of the token, and the request that needs a token decides alone.
//
// Which rule a failure proves depends on the scenario: the resource
// server honours the tokens the authorization server issues (SVC-1), a
// refreshed one (TOK-8), one it holds after a refresh (TOK-4), whatever
// the case of its scheme (SVC-7); it refuses a refresh token (TOK-13).
func (s *scenario) tokenAcceptedOrRefused(which, verdict string) error {
	u := s.tokens.user
	token := map[string]string{"access": u.access, "previous access": u.previous, "refresh": u.refresh}[which]
	if token == "" {
		return fmt.Errorf("the scenario holds no %s token", which)
	}
	address, anonymous, err := s.readAnonymously(s.eventsAddress)
	if err != nil {
		return err
	}
	list, err := s.send(s.bearer(s.at("GET", address), token))
	if err != nil {
		return err
	}
	_, offered := list.links()["create-new-event"]
	if _, toAnyone := anonymous.links()["create-new-event"]; !toAnyone {
		if want := verdict == "accepted"; offered != want {
			if want {
				if err := s.probeHonoured(address, "user", token); err != nil {
					return err
				}
			}
			return unmet(s.failf(list, "the event list, read with the %s token, offers \"create-new-event\": %v, want %v", which, offered, want), audit.TokenHonoured)
		}
	}
	protected, err := s.send(s.bearer(s.e.GET(protectedPath), token))
	if err != nil {
		return err
	}
	refused := protected.status == http.StatusUnauthorized || protected.status == http.StatusForbidden
	if want := verdict == "refused"; refused != want {
		err := s.failf(protected, "a request that needs a token, sent with the %s token, got status %d", which, protected.status)
		if !refused {
			if err := s.needsAToken(protectedPath); err != nil {
				return err
			}
		}
		return unmet(err, audit.TokenHonoured)
	}
	return nil
}

// probeHonoured reads the list at address, where holder's token was
// not offered "create-new-event", as the audit needs to tell which rule
// that breaks (audit honour.go), when the token was sent another way than
// a password grant's token with "Bearer": the same token with "Bearer",
// when the scenario writes the scheme otherwise; a fresh token of the
// account from a password grant, written as the scenario writes the
// scheme and with "Bearer", when the token came from a refresh. Each
// answer tells whether the target honours the account, and how. It
// returns the audit's finding about a probe, if any: an address that
// offers the account nothing, however it asks.
func (s *scenario) probeHonoured(address, holder, token string) error {
	h := s.tokens.of(holder)
	spelt := s.spelling(schemeBearer)
	if s.scope == nil || h == nil {
		return nil
	}
	var auths []string
	if spelt != schemeBearer {
		auths = append(auths, schemeBearer+" "+token)
	}
	if h.refreshed && token == h.access {
		if fresh := s.freshToken(holder); fresh != "" {
			auths = append(auths, spelt+" "+fresh)
			if spelt != schemeBearer {
				auths = append(auths, schemeBearer+" "+fresh)
			}
		}
	}
	for _, auth := range auths {
		y, err := s.send(s.at("GET", address).WithHeader("Authorization", auth))
		if err != nil {
			return nil
		}
		if f := s.scope.TakeOne(y.at, audit.ListOffersTokenHolder.Rules()...); f != nil {
			return s.auditFailure(y, f)
		}
	}
	return nil
}

// needsAToken checks, with a probe, that a GET of path without a token is
// refused (spec AUTH-4): when it is not, a check that a token is refused
// there cannot be made, and AUTH-4 is to blame.
func (s *scenario) needsAToken(path string) error {
	bare, err := s.send(s.e.GET(path))
	if err != nil {
		return err
	}
	if bare.status != http.StatusUnauthorized && bare.status != http.StatusForbidden {
		return unmetOnTheWay(s.failf(bare, "a request that needs a token is not refused without one (status %d): whether a token is refused cannot be told", bare.status), audit.OtherRequestNeedsToken)
	}
	return nil
}
