package steps

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/cucumber/godog"

	"eventsvc/conformance/hal"
	"eventsvc/conformance/origin"
)

// Following links (spec API-10): every href of an answer resolves, against
// the answer's address, to an address the client can follow, and leads
// where its relation says.

func (s *scenario) registerFollowSteps(sc *godog.ScenarioContext) {
	sc.Step(`^every link of the answer leads where its relation says$`, func() error {
		x, err := s.theAnswer()
		if err != nil {
			return err
		}
		return s.linksLead(x)
	})
	sc.Step(`^every link of every page leads where its relation says$`, func() error { return s.eachWalked(s.linksLead) })
	sc.Step(`^every event it lists links to itself$`, func() error { return s.listedEventsLeadToThemselves(false) })
	sc.Step(`^the first and the last event it lists, and those the scenario made, link to themselves$`, func() error { return s.listedEventsLeadToThemselves(true) })
}

// actions are the relations a client follows with a method other than GET
// (spec: Relation names): the scenarios that create and update events
// follow them so.
var actions = []string{"create-new-event", "update-event"}

// templateVar is a variable of a URI template (RFC 6570).
var templateVar = regexp.MustCompile(`\{([^{}]*)\}`)

// linksLead follows every link of x with a GET on behalf of x's caller,
// once a scenario for each address, and checks where it leads:
//
//   - "self" to the resource itself: an event to the same event (the same
//     "id", or the same "self" link), a page of a list to a page of a list;
//   - "profile" to documentation that is served (2xx with a body);
//   - every other relation to an answer of 2xx.
//
// An action ("create-new-event", "update-event") is only checked to
// resolve to an address. A URI template is filled with the "id" of an
// event the answer lists, when it lists one and the template's only
// variable is "id"; otherwise, only checked to resolve.
func (s *scenario) linksLead(x *exchange) error {
	return breaks(s.linksLeadTo(x), "API-10")
}

func (s *scenario) linksLeadTo(x *exchange) error {
	obj, _ := x.json.(map[string]any)
	templated := templatedRels(obj)
	links := x.links()
	rels := make([]string, 0, len(links))
	for rel := range links {
		rels = append(rels, rel)
	}
	slices.Sort(rels)
	for _, rel := range rels {
		address := x.resolve(links[rel])
		if u, err := url.Parse(address); err != nil || !u.IsAbs() || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return s.failf(x, "the %q link %q does not resolve to an address a client can follow", rel, links[rel])
		}
		if slices.Contains(actions, rel) {
			continue
		}
		if templated[rel] {
			filled, ok := fillTemplate(address, obj)
			if !ok {
				continue
			}
			address = filled
		}
		y, err := s.follow(x.who, address, fmt.Sprintf("the %q link in the answer to %s %s", rel, x.method, x.url.Path))
		if err != nil {
			return err
		}
		if y.status < 200 || y.status > 299 {
			err := s.failf(y, "the %q link of the answer to %s %s leads to an answer of %d", rel, x.method, s.redactor.String(x.url.String()), y.status)
			if y.status == http.StatusUnauthorized || y.status == http.StatusForbidden {
				// The address is there, but not served to this caller:
				// the rule that lets anyone read it is broken.
				return requires(err, readRule(x, rel))
			}
			return err
		}
		switch {
		case rel == "profile" && strings.TrimSpace(y.body) == "":
			return s.failf(y, "the \"profile\" link leads to an empty page")
		case rel == "self" && !sameResource(x, y):
			return s.failf(y, "the \"self\" link of the answer to %s %s leads to another resource", x.method, s.redactor.String(x.url.String()))
		case templated[rel] && !sameEvent(firstItem(obj), y):
			return s.failf(y, "the %q template, filled with the id of the first event listed, leads to another event", rel)
		}
	}
	return nil
}

// readRule is the rule that lets anyone read where rel of x leads: the
// documentation (SVC-6), an event (API-7), the list (API-2).
func readRule(x *exchange, rel string) string {
	switch {
	case rel == "profile":
		return "SVC-6"
	case rel == "get-an-event", rel == "self" && (x.kind == kindEvent || x.kind == kindCreated || x.kind == kindUpdated):
		return "API-7"
	}
	return "API-2"
}

// follow GETs address on who's behalf, once a scenario: the answers are
// kept by address without its fragment. why says which link it follows.
func (s *scenario) follow(who, address, why string) (*exchange, error) {
	key := address
	if i := strings.IndexByte(key, '#'); i >= 0 {
		key = key[:i]
	}
	if y, ok := s.followed[key]; ok {
		return y, nil
	}
	if who == "" {
		who = "a caller"
	}
	req, err := s.as(who, s.at("GET", key).WithContext(origin.Via(context.Background(), why)))
	if err != nil {
		return nil, err
	}
	y, err := s.send(req)
	if err != nil {
		return nil, err
	}
	if s.followed == nil {
		s.followed = map[string]*exchange{}
	}
	s.followed[key] = y
	return y, nil
}

// templatedRels are the relations of doc's links marked "templated".
func templatedRels(doc map[string]any) map[string]bool {
	out := map[string]bool{}
	links, _ := doc["_links"].(map[string]any)
	for rel, v := range links {
		if list, ok := v.([]any); ok && len(list) > 0 {
			v = list[0]
		}
		if link, ok := v.(map[string]any); ok {
			if t, _ := link["templated"].(bool); t {
				out[rel] = true
			}
		}
	}
	return out
}

// firstItem is the first event a list answer lists, or nil.
func firstItem(doc map[string]any) map[string]any {
	if items := hal.Items(doc); len(items) > 0 {
		return items[0]
	}
	return nil
}

// fillTemplate fills a template whose only variable is "id" with the id of
// the first event doc lists.
func fillTemplate(template string, doc map[string]any) (string, bool) {
	vars := templateVar.FindAllStringSubmatch(template, -1)
	item := firstItem(doc)
	if len(vars) != 1 || vars[0][1] != "id" || item == nil {
		return "", false
	}
	id := fmt.Sprint(item["id"])
	if item["id"] == nil {
		return "", false
	}
	if f, ok := item["id"].(float64); ok {
		id = fmt.Sprintf("%.0f", f)
	}
	return hal.Expand(template, map[string]string{"id": id}), true
}

// sameResource reports whether y, reached through the "self" link of x,
// is the resource x is: for an event, the same event; for anything else, a
// JSON object too.
func sameResource(x, y *exchange) bool {
	xo, _ := x.json.(map[string]any)
	if xo == nil {
		return true // not JSON: nothing to compare
	}
	if _, ok := y.json.(map[string]any); !ok {
		return false
	}
	if _, isEvent := xo["id"]; isEvent || x.kind == kindEvent || x.kind == kindCreated || x.kind == kindUpdated {
		return sameEvent(xo, y)
	}
	return true
}

// sameEvent reports whether y is the event doc: the same "id" when both
// have one, else the same "name" (the suite's events have names of their
// own) when both have one. Without either, nothing tells them apart.
func sameEvent(doc map[string]any, y *exchange) bool {
	if doc == nil {
		return true
	}
	yo, _ := y.json.(map[string]any)
	if yo == nil {
		return false
	}
	for _, key := range []string{"id", "name"} {
		v, ok := doc[key]
		w, yok := yo[key]
		if ok && yok {
			return fmt.Sprint(v) == fmt.Sprint(w)
		}
	}
	return true
}

// listedEventsLeadToThemselves checks the "self" link of every event the
// answer lists, and follows it: each leads to that event. With sample,
// it follows only those of the first and the last event listed, and of
// the events the scenario made, so that a long page costs a few requests.
func (s *scenario) listedEventsLeadToThemselves(sample bool) error {
	return breaks(s.listedEventsLeadTo(sample), "API-10")
}

func (s *scenario) listedEventsLeadTo(sample bool) error {
	items, x, err := s.answerItems()
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return s.failf(x, "the list holds no events")
	}
	for i, item := range items {
		self := hal.Links(item)["self"]
		if self == "" {
			return s.failf(x, "listed event %d has no \"self\" link", i+1)
		}
		if sample && i != 0 && i != len(items)-1 && s.events.manager(x.resolve(self)) == "" {
			continue
		}
		y, err := s.follow(x.who, x.resolve(self), fmt.Sprintf("the \"self\" link of an event listed in the answer to %s %s", x.method, x.url.Path))
		if err != nil {
			return err
		}
		if y.status == http.StatusUnauthorized || y.status == http.StatusForbidden {
			return requires(s.failf(y, "the \"self\" link of listed event %d leads to an answer of %d: the event is not served to %s", i+1, y.status, orAnyone(x.who)), "API-7")
		}
		if y.status != 200 || !sameEvent(item, y) {
			return s.failf(y, "the \"self\" link of listed event %d leads to an answer of %d that is not that event", i+1, y.status)
		}
	}
	return nil
}
