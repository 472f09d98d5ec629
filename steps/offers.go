package steps

import (
	"net/http"

	"eventsvc/conformance/audit"
)

// What an answer offers its caller (spec SVC-3): the run's audit checks it
// on every answer whose links depend on who asks (package audit); these
// steps say which answers a scenario looks at.

func (s *scenario) registerOfferSteps(sc stepRegistry) {
	sc.Step(`^the answer offers the caller exactly what they may do$`, func() error { return s.onTheAnswer(s.offersExactly) })
	sc.Step(`^every page offers the caller exactly what they may do$`, func() error {
		return s.eachWalked(s.offersExactly)
	})
}

// offersExactly checks, through the audit, that x offers its caller what
// the specification lets them do, and nothing they may not: x itself,
// the events a list shows included; the audit reports apart what the
// links it follows from x lead to. An event that
// does not offer its creator "update-event" is first sent the creator's
// update, as a client would: whether the target takes it tells the audit
// whether the creator manages it (API-6) or is only not offered the link
// (API-8).
func (s *scenario) offersExactly(x *exchange) error {
	if x.status < 200 || x.status > 299 {
		return s.unreadable(x, s.failf(x, "%s, read by %s, answered %d, not a success", orAnswer(x.kind), x.who, x.status))
	}
	if _, offered := x.links()["update-event"]; x.kind == kindEvent && !offered && s.manages(x.who, x.url.String()) {
		if err := s.probeManager(x); err != nil {
			return err
		}
	}
	return s.auditedAnswer(x, "what it offers its caller", audit.Offers)
}

// freshToken is a new access token of holder's account from a password
// grant, "" when none is issued.
func (s *scenario) freshToken(holder string) string {
	username, password := s.creds.Username, s.creds.Password
	if holder == "other" {
		username, password = s.creds.OtherUsername, s.creds.OtherPass
	}
	g, err := s.send(s.passwordGrantRequest(username, password, ""))
	if err != nil || s.tokenIssued(g) != nil {
		return ""
	}
	fresh, _ := g.text("access_token")
	s.learn(fresh)
	return fresh
}

// probeManager sends the event's last body to its address on behalf of
// x's caller, who created it; when the caller's token came from a refresh
// or writes its scheme otherwise, also with a fresh token of the
// caller's account from a password grant, with "Bearer": what the target
// makes of each tells the audit whether the creator manages the event
// (API-6) and whether the caller's token is taken for its account (TOK-8,
// SVC-7). It returns the audit's finding about the probes, if any.
func (s *scenario) probeManager(x *exchange) error {
	if s.scope == nil {
		return nil
	}
	body := s.updateBody(nil)
	var probes []*exchange
	if h := s.tokens.of(holderOf(x.who)); h != nil && (h.refreshed || s.spelling(schemeBearer) != schemeBearer) {
		if fresh := s.freshToken(holderOf(x.who)); fresh != "" {
			req := s.at(http.MethodPut, x.url.String()).WithHeader("Authorization", schemeBearer+" "+fresh).WithJSON(body)
			if y, err := s.send(req); err == nil {
				probes = append(probes, y)
			}
		}
	}
	if y, err := s.sendBy(x.who, s.at(http.MethodPut, x.url.String()).WithJSON(body)); err == nil {
		probes = append(probes, y)
	}
	for _, y := range probes {
		if found, _ := s.scope.TakeAt(y.at, audit.ManagerOffered.Rules()...); len(found) > 0 {
			return s.auditFailure(y, found[0])
		}
	}
	return nil
}

// holdsToken reports whether who, an actor phrase, sends a valid access
// token.
func holdsToken(who string) bool { return who == "the user" || who == "the other user" }

// anonymous is the actor phrase of a caller who sends no credentials.
const anonymous = "a caller"

// manages reports whether who (an actor phrase) manages the event at
// address, as far as the scenario knows.
func (s *scenario) manages(who, address string) bool {
	return holdsToken(who) && address != "" && s.events.manager(address) == holderOf(who)
}

func orAnswer(kind string) string {
	if kind == "" {
		return "the answer"
	}
	return kind
}
