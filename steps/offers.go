package steps

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/cucumber/godog"

	"eventsvc/conformance/hal"
)

// What an answer offers its caller (spec SVC-3): one check, offersExactly,
// for every answer whose links depend on who asks, used by every step that
// says "offers the caller exactly what they may do".

func (s *scenario) registerOfferSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the answer offers the caller exactly what they may do$`, func() error {
		x, err := s.theAnswer()
		if err != nil {
			return err
		}
		return s.offersExactly(x)
	})
	sc.Step(`^every page offers the caller exactly what they may do$`, func() error {
		return s.eachWalked(s.offersExactly)
	})
}

// listLinks are the links every page of the event list offers every
// caller (spec API-3).
var listLinks = []string{"self", "profile", "get-an-event"}

// holdsToken reports whether who, an actor phrase, sends a valid access
// token.
func holdsToken(who string) bool { return who == "the user" || who == "the other user" }

// offersExactly checks that x offers its caller what the specification
// lets them do, and nothing they may not:
//
//   - a page of the event list offers "self", "profile" and "get-an-event"
//     (API-3), and "create-new-event" to a caller with a valid token and to
//     nobody else (API-3, API-4); none of the events it lists offers
//     "update-event" to a caller who does not manage it (API-8);
//   - an event offers "update-event" to its manager and to nobody else
//     (API-8), as far as the scenario knows who manages it;
//   - the answer to a creation or an update offers nothing its caller may
//     not do.
//
// The caller is the actor of the step that sent x.
func (s *scenario) offersExactly(x *exchange) error {
	if x.status < 200 || x.status > 299 {
		return s.unreadable(x, s.failf(x, "%s, read by %s, answered %d, not a success", orAnswer(x.kind), x.who, x.status))
	}
	listRule := "API-3"
	if holdsToken(x.who) {
		listRule = "API-4"
	}
	token := holdsToken(x.who)
	links := x.links()
	switch x.kind {
	case kindList:
		var missing []string
		for _, rel := range listLinks {
			if _, ok := links[rel]; !ok {
				missing = append(missing, rel)
			}
		}
		if missing != nil {
			return breaks(s.failf(x, "%s, read by %s, does not offer %q; it offers %s", x.kind, x.who, missing, hal.RelNames(links)), listRule)
		}
		if err := s.offersAction(x, links, "create-new-event", token, "a caller with a valid token, and nobody else"); err != nil {
			return breaks(err, listRule)
		}
		obj, _ := x.json.(map[string]any)
		for i, item := range hal.Items(obj) {
			if _, ok := hal.Links(item)["update-event"]; ok && !s.manages(x.who, x.resolve(hal.Links(item)["self"])) {
				return requires(s.failf(x, "listed event %d offers \"update-event\" to %s, who does not manage it", i+1, x.who), "API-8")
			}
		}
	case kindEvent:
		address := x.url.String()
		if href, ok := links["self"]; ok && s.events.manager(address) == "" {
			address = x.resolve(href)
		}
		if s.events.manager(address) != "" || !token {
			manages := s.manages(x.who, address)
			if err := s.offersAction(x, links, "update-event", manages, "its manager, and nobody else"); err != nil {
				if !manages {
					return requires(err, "API-8") // offered to someone else
				}
				return s.managerNotOffered(x, address, err)
			}
		}
	case kindCreated, kindUpdated:
		if x.jsonErr != nil {
			return nil // no body to offer anything (the specification shows none)
		}
		if _, ok := links["create-new-event"]; ok && !token {
			return breaks(s.failf(x, "%s offers \"create-new-event\" to %s, who holds no valid token", x.kind, x.who), "SVC-3")
		}
	default:
		return fmt.Errorf("the answer of the last step is not one whose links depend on the caller")
	}
	return nil
}

// managerNotOffered tells, for an event that does not offer its creator
// "update-event" (err), which rule is broken, by sending the creator's
// update to the event's address: refused as a non-manager (403), the
// creator did not become the manager (API-6), or an update of the
// scenario's took that from them (API-9); taken, the manager is not
// offered the link (API-8); refused as unauthenticated, the caller's token
// is not taken for them, which is the scenario's to blame.
func (s *scenario) managerNotOffered(x *exchange, address string, err error) error {
	req, rerr := s.as(x.who, s.at("PUT", address).WithJSON(s.updateBody(nil)))
	if rerr != nil {
		return err
	}
	y, rerr := s.send(req)
	switch {
	case rerr != nil:
		return err
	case y.status >= 200 && y.status <= 299:
		return requires(err, "API-8")
	case y.status != http.StatusForbidden:
		return err
	case s.freshTokenManages(x.who, address):
		// The token the scenario holds does not act for its user (a
		// refreshed one, say): the scenario's to blame.
		return err
	case s.events.sent != nil:
		return requires(err, "API-9")
	}
	return requires(err, "API-6")
}

// freshTokenManages reports whether a token of who's from a new password
// grant may update the event at address; true when it cannot be told.
func (s *scenario) freshTokenManages(who, address string) bool {
	username, password := s.creds.Username, s.creds.Password
	if holderOf(who) == "other" {
		username, password = s.creds.OtherUsername, s.creds.OtherPass
	}
	x, err := s.send(s.passwordGrantRequest(username, password, ""))
	if err != nil || s.tokenIssued(x) != nil {
		return true
	}
	access, _ := x.text("access_token")
	s.learn(access)
	y, err := s.send(s.bearer(s.at("PUT", address), access).WithJSON(s.updateBody(nil)))
	return err != nil || y.status != http.StatusForbidden
}

// offersAction checks that x offers rel exactly when want says so.
func (s *scenario) offersAction(x *exchange, links map[string]string, rel string, want bool, to string) error {
	if _, ok := links[rel]; ok != want {
		verb := "offers"
		if !ok {
			verb = "does not offer"
		}
		return s.failf(x, "%s, read by %s, %s %q: it is for %s; it offers %s", x.kind, x.who, verb, rel, to, hal.RelNames(links))
	}
	return nil
}

// manages reports whether who (an actor phrase) manages the event at
// address, as far as the scenario knows.
func (s *scenario) manages(who, address string) bool {
	return holdsToken(who) && address != "" && s.events.manager(address) == holderOf(who)
}

func orAnswer(kind string) string {
	if kind == "" {
		return "the answer"
	}
	return strings.TrimSpace(kind)
}
