package steps

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"eventsvc/conformance/hal"
)

// DefaultEventBody is a body the reference server's POST /api/events
// accepts. Its "name" is replaced by a name that carries the run id.
const DefaultEventBody = `{
  "name": "Conformance event",
  "description": "Created by the Event Service conformance suite",
  "beginEnrollmentDateTime": "2026-11-23T10:00:00",
  "closeEnrollmentDateTime": "2026-11-24T10:00:00",
  "beginEventDateTime": "2026-11-25T10:00:00",
  "endEventDateTime": "2026-11-25T18:00:00",
  "location": "Main hall",
  "basePrice": 100,
  "maxPrice": 200,
  "limitOfEnrollment": 100
}`

// absent is the table value that leaves a field out of an event body.
const absent = "(absent)"

// events are the events a scenario created or sent.
type events struct {
	address  string         // the address of the event the scenario created last, or found
	name     string         // its name when created
	body     map[string]any // the body it was last written with
	created  int            // bodies made by this scenario
	made     []string       // the addresses of the events it created, in order
	sentName string         // the name in the last new-event body sent
	sent     map[string]any // the body of the last update sent
	nonce    string         // marks the names of this scenario's events
	count    int            // the number of events counted earlier
	// managers are the holders ("user", "other") of the accounts that
	// manage the events the scenario created or found, by address.
	managers map[string]string
	// create is the "create-new-event" address each holder was offered.
	create map[string]string
	// creator is the holder that created the event last.
	creator string
}

// manager returns the holder that manages the event at address, as far as
// the scenario knows ("" when it does not).
func (e *events) manager(address string) string { return e.managers[address] }

// setManager records that holder manages the event at address.
func (e *events) setManager(address, holder string) {
	if e.managers == nil {
		e.managers = map[string]string{}
	}
	e.managers[address] = holder
}

func (s *scenario) registerEventSteps(sc *godog.ScenarioContext) {
	sc.Step(`^`+account+` has created (an event|\d+ events|events named "[^"]*")$`, s.hasCreatedPhrase)
	sc.Step(`^the user manages an event$`, s.userManagesAnEvent)

	sc.Step(`^`+account+` creates an event through the "create-new-event" link$`, func(who string) error { return s.createEventAs(who, nil) })
	sc.Step(`^the user creates an event named "([^"]*)"$`, s.createNamed)
	sc.Step(`^the user creates an event with:$`, s.createEvent)
	sc.Step(`^`+actor+` sends a new event to the event list$`, func(who string) error { return s.sendNewEvent(who, "") })
	sc.Step(`^the user sends the body "([^"]*)" to the event list$`, func(body string) error { return s.sendNewEvent("the user", body) })
	sc.Step(`^the event is created$`, s.eventIsCreated)
	sc.Step(`^the answer's Location is the event's "self" link$`, s.locationIsSelf)
	sc.Step(`^no event with the name sent was created$`, s.noEventWithSentName)

	sc.Step(`^`+actor+` reads the event$`, func(who string) error { return s.atEvent(who, "GET", nil) })
	sc.Step(`^a caller reads the event "([^"]*)" through the "get-an-event" link of the event list$`, func(id string) error { return s.atEventID("a caller", "GET", id) })
	sc.Step(`^the answer is an event(?: in status "([^"]*)")? with a manager$`, s.isEventWithManager)
	sc.Step(`^the event is named "([^"]*)"$`, s.eventIsNamed)
	sc.Step(`^the event still has its original name$`, func() error { return s.eventIsNamed(s.events.name) })
	sc.Step(`^the event is (not )?free and (online|offline)$`, s.eventIsFree)

	sc.Step(`^`+account+` updates the event through its "update-event" link, renaming it "([^"]*)"$`, func(who, name string) error {
		return s.updateThroughLinkAs(who, s.updateBody(map[string]any{"name": name}))
	})
	sc.Step(`^the user updates the event through its "update-event" link with:$`, s.updateThroughLinkWith)
	sc.Step(`^the user updates the event through its "update-event" link, renaming it "([^"]*)" and changing every other text$`, s.changeEveryText)
	sc.Step(`^every field sent reads back as sent$`, s.fieldsReadBack)
	sc.Step(`^`+actor+` sends an update of the event to its address, renaming it "([^"]*)"$`, func(who, name string) error { return s.atEvent(who, "PUT", map[string]any{"name": name}) })
	sc.Step(`^the other user sends an invalid update of the event to its address$`, func() error { return s.atEvent("the other user", "PUT", map[string]any{"name": ""}) })
	sc.Step(`^the user sends an update to the event "([^"]*)" through the "get-an-event" link of the event list$`, func(id string) error { return s.atEventID("the user", "PUT", id) })
	sc.Step(`^`+actor+` sends (PUT|DELETE|PATCH) to the event's address$`, func(who, method string) error { return s.atEvent(who, method, nil) })

	sc.Step(`^the answer is a validation error on "([^"]*)"$`, func(field string) error { return s.validationError(field, "") })
	sc.Step(`^the answer is a validation error on "([^"]*)" with code "([^"]*)"$`, s.validationError)
	sc.Step(`^the answer is a validation error with the global code "([^"]*)"$`, func(code string) error { return s.validationError("", code) })
}

// eventBody returns the body of a new event with a name that carries the
// run's and the scenario's marks.
func (s *scenario) eventBody(name string) (map[string]any, error) {
	raw := s.target.EventBody
	if len(raw) == 0 {
		raw = []byte(DefaultEventBody)
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, fmt.Errorf("the event body is not a JSON object: %w", err)
	}
	s.events.created++
	if name == "" {
		name = fmt.Sprintf("event %d", s.events.created)
	}
	body["name"] = s.runName(name)
	return body, nil
}

// runName marks a name with the run id, so that events a run leaves on a
// deployment can be found, and with a mark of the scenario, so that no
// other scenario's event has the same name. plainName takes the marks off.
func (s *scenario) runName(name string) string {
	if s.events.nonce == "" {
		s.events.nonce = randomWord(6) // not a secret: not masked
	}
	return name + " [conformance " + s.target.RunID + " " + s.events.nonce + "]"
}

func plainName(name string) string {
	if i := strings.Index(name, " [conformance "); i >= 0 {
		return name[:i]
	}
	return name
}

// charactersCell is a table value of n characters: "(255 characters)".
var charactersCell = regexp.MustCompile(`^\((\d+) characters\)$`)

// applyTable sets or removes fields of body from a two-column table. A
// value "(absent)" removes the field; "(N characters)" is a text of N
// characters, which for the name ends with the run's marks.
func (s *scenario) applyTable(body map[string]any, table *godog.Table) error {
	if table == nil {
		return nil
	}
	for _, row := range table.Rows {
		if len(row.Cells) != 2 {
			return fmt.Errorf("each row needs a field and a value")
		}
		field, value := row.Cells[0].Value, row.Cells[1].Value
		if value == absent {
			delete(body, field)
			continue
		}
		if m := charactersCell.FindStringSubmatch(value); m != nil {
			n, _ := strconv.Atoi(m[1])
			text := strings.Repeat("x", n)
			if mark := s.runName(""); field == "name" && n >= len(mark) {
				text = strings.Repeat("x", n-len(mark)) + mark
			}
			body[field] = text
			continue
		}
		var n json.Number
		if err := json.Unmarshal([]byte(value), &n); err == nil && value != "" {
			body[field] = n
		} else {
			body[field] = value
		}
	}
	return nil
}

// createAddress returns the "create-new-event" address the event list
// offers who, read once a run (the target's Discovery) or else once a
// scenario, for each account.
func (s *scenario) createAddress(who string) (string, error) {
	holder := holderOf(who)
	if a := s.events.create[holder]; a != "" {
		return a, nil
	}
	if a, ok := s.target.Discovery.lookup(s.base, "create-new-event "+holder); ok {
		return a, nil
	}
	address, err := s.eventsAddress()
	if err != nil {
		return "", err
	}
	req, err := s.as(who, s.at("GET", address))
	if err != nil {
		return "", err
	}
	list, err := s.send(req)
	if err != nil {
		return "", err
	}
	create, err := list.link("create-new-event")
	if err != nil {
		return "", breaks(s.about(list, err), "API-4")
	}
	if s.events.create == nil {
		s.events.create = map[string]string{}
	}
	s.events.create[holder] = create
	s.target.Discovery.learn(s.base, "create-new-event "+holder, create)
	return create, nil
}

// postEvent sends body, as who (an account), through the "create-new-event"
// link of the event list, and remembers the event when it was created.
func (s *scenario) postEvent(who string, body map[string]any) (*exchange, error) {
	s.events.sentName, _ = body["name"].(string)
	create, err := s.createAddress(who)
	if err != nil {
		return nil, err
	}
	req, err := s.as(who, s.at("POST", create).WithJSON(body))
	if err != nil {
		return nil, err
	}
	x, err := s.send(req)
	if err == nil {
		x.who, x.kind = who, kindCreated
		if x.status >= 200 && x.status <= 299 {
			s.rememberEvent(x, body, holderOf(who))
		}
	}
	return x, err
}

// rememberEvent keeps the address, name and manager of the event just
// created.
func (s *scenario) rememberEvent(x *exchange, body map[string]any, holder string) {
	s.events.address = ""
	if loc := x.header.Get("Location"); loc != "" {
		s.events.address = x.resolve(loc)
	} else if self, err := x.link("self"); err == nil {
		s.events.address = self
	}
	s.events.name, _ = body["name"].(string)
	s.events.body = body
	s.events.creator = holder
	if s.events.address != "" {
		s.events.setManager(s.events.address, holder)
	}
}

// hasCreatedPhrase creates "an event", "N events", or "events named
// "A, B"", as who (an account), with probes.
func (s *scenario) hasCreatedPhrase(who, what string) error {
	var n int
	switch {
	case what == "an event":
		return s.hasCreated(who, make([]string, 1))
	case strings.HasPrefix(what, "events named "):
		return s.hasCreated(who, splitList(strings.Trim(strings.TrimPrefix(what, "events named "), `"`)))
	}
	if _, err := fmt.Sscanf(what, "%d events", &n); err != nil {
		return fmt.Errorf("how many events: %q", what)
	}
	return s.hasCreated(who, make([]string, n))
}

// userHasCreated creates an event for each name ("": a name of its own),
// as the user, with probes.
func (s *scenario) userHasCreated(names []string) error { return s.hasCreated("the user", names) }

// hasCreated creates an event for each name ("": a name of its own), as
// who (an account), with probes.
func (s *scenario) hasCreated(who string, names []string) error {
	for _, name := range names {
		body, err := s.eventBody(name)
		if err != nil {
			return err
		}
		x, err := s.postEvent(who, body)
		if err != nil {
			return err
		}
		if err := s.created(x); err != nil {
			return err
		}
		s.events.made = append(s.events.made, s.events.address)
	}
	return nil
}

func (s *scenario) createEvent(table *godog.Table) error { return s.createEventAs("the user", table) }

// createNamed creates an event named name (with the run's marks), as the
// user, as the request of a When step.
func (s *scenario) createNamed(name string) error {
	body, err := s.eventBody(name)
	if err != nil {
		return err
	}
	x, err := s.postEvent("the user", body)
	if err != nil {
		return err
	}
	s.answer = x
	return nil
}

// createEventAs creates an event as who (an account), with the fields of
// table, as the request of a When step.
func (s *scenario) createEventAs(who string, table *godog.Table) error {
	body, err := s.eventBody("")
	if err != nil {
		return err
	}
	if err := s.applyTable(body, table); err != nil {
		return err
	}
	x, err := s.postEvent(who, body)
	if err != nil {
		return err
	}
	s.answer = x
	return nil
}

// created checks that x created an event whose address is known: from
// its Location or "self" link, or else, since the specification shows no
// answer to a creation, from the "self" link of the event the list shows
// under the name sent.
func (s *scenario) created(x *exchange) error {
	if x.status < 200 || x.status > 299 {
		return s.failf(x, "creating the event failed with status %d", x.status)
	}
	if s.events.address != "" {
		return nil
	}
	errFound := fmt.Errorf("found")
	err := s.eachPage(func(p page, _ *exchange) error {
		for i, item := range p.docs {
			if item["name"] == s.events.sentName && p.items[i] != "" && hal.Links(item)["self"] != "" {
				s.events.address = p.items[i]
				return errFound
			}
		}
		return nil
	})
	switch {
	case err == errFound:
		s.events.setManager(s.events.address, s.events.creator)
		return nil
	case err != nil:
		return err
	}
	return s.failf(x, "the created event is neither in the answer's Location nor its \"self\" link, nor listed under the name sent")
}

func (s *scenario) eventIsCreated() error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	return breaks(s.created(x), "API-6", "SVC-7")
}

func (s *scenario) locationIsSelf() error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	loc := x.header.Get("Location")
	self, err := x.link("self")
	if err != nil {
		return s.about(x, err)
	}
	if loc == "" || x.resolve(loc) != self {
		return s.failf(x, "Location %q is not the \"self\" link %q", loc, self)
	}
	return nil
}

// sendNewEvent posts a new event, or rawBody, to the address of the event
// list, on who's behalf.
func (s *scenario) sendNewEvent(who, rawBody string) error {
	body, err := s.eventBody("")
	if err != nil {
		return err
	}
	s.events.sentName, _ = body["name"].(string)
	address, err := s.eventsAddress()
	if err != nil {
		return err
	}
	req := s.at("POST", address)
	if rawBody != "" {
		req = req.WithHeader("Content-Type", "application/json").WithText(rawBody)
	} else {
		req = req.WithJSON(body)
	}
	return s.whenAs(who, kindCreated, req)
}

// noEventWithSentName walks the whole event list with probes, as anyone
// may read it, and fails if an event carries the name of the refused
// request's body. The name holds the run id, so no other run's event
// matches it.
func (s *scenario) noEventWithSentName() error {
	if s.events.sentName == "" {
		return fmt.Errorf("no event body with a name was sent in this scenario")
	}
	seen := 0
	err := s.eachPage(func(p page, x *exchange) error {
		for _, item := range p.docs {
			seen++
			if item["name"] == s.events.sentName {
				// A refused write changes nothing: whoever sent it, the
				// write needed a valid token.
				return requires(s.failf(x, "the refused request created the event %q anyway", plainName(s.events.sentName)), s.tokenRule(s.answer))
			}
		}
		return nil
	})
	return err
}

// tokenRule is the rule by which the request of x, a write, needs a valid
// token: AUTH-3 for a path under /api/ of the target, AUTH-4 for any other
// (an address written another way, such as /API/EVENTS).
func (s *scenario) tokenRule(x *exchange) string {
	base, err := url.Parse(s.base)
	if x == nil || err != nil {
		return "AUTH-3"
	}
	api := strings.TrimSuffix(base.Path, "/") + apiRootPath
	if x.url.Path == api || strings.HasPrefix(x.url.Path, api+"/") {
		return "AUTH-3"
	}
	return "AUTH-4"
}
