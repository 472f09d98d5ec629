package steps

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/cucumber/godog"
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

func (s *scenario) registerEventSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the other user has a token$`, s.otherUserHasToken)
	sc.Step(`^the user has a token with only the scope "([^"]*)"$`, s.userHasScopedToken)
	sc.Step(`^the user has created an event$`, func() error { return s.userHasCreated(1, nil) })
	sc.Step(`^the user has created (\d+) events?$`, func(n int) error { return s.userHasCreated(n, nil) })
	sc.Step(`^the user has created events named "([^"]*)"$`, func(names string) error { return s.userHasCreated(0, splitList(names)) })

	sc.Step(`^a caller lists the events$`, func() error { return s.listEvents("", "") })
	sc.Step(`^the user lists the events$`, func() error { return s.listEvents(s.accessToken, "") })
	sc.Step(`^a caller with an invalid token lists the events$`, func() error { return s.listEvents(s.invalidToken(), "") })
	sc.Step(`^a caller lists the events with the client's credentials in HTTP Basic$`, s.listWithBasic)
	sc.Step(`^a caller lists the events (\d+) per page$`, func(n int) error { return s.listEvents("", "size="+strconv.Itoa(n)) })
	sc.Step(`^a caller lists the events sorted by "([^"]*)"$`, func(sort string) error { return s.listEvents("", "sort="+sort) })
	sc.Step(`^a caller lists the events with the query "([^"]*)"$`, func(q string) error { return s.listEvents("", q) })
	sc.Step(`^a caller walks through the event list by following its "next" links$`, s.walkPages)
	sc.Step(`^the first page has no "prev" link$`, s.firstPageHasNoPrev)
	sc.Step(`^every page reached through "next" holds events$`, s.laterPagesHoldEvents)
	sc.Step(`^the last page has no "next" link$`, s.lastPageHasNoNext)
	sc.Step(`^following "prev" from each later page leads back to the page before it$`, s.prevLeadsBack)
	sc.Step(`^the page holds (\d+) events?$`, s.pageHolds)
	sc.Step(`^the page reports (\d+) events in (\d+) pages, this being page (\d+)$`, s.pageReports)
	sc.Step(`^the events are listed in the order "([^"]*)"$`, s.listedInOrder)
	sc.Step(`^every listed event links to itself$`, s.listedEventsLinkToThemselves)
	sc.Step(`^the event list holds some number of events$`, s.countEvents)
	sc.Step(`^the event list holds as many events as before$`, s.sameNumberOfEvents)

	sc.Step(`^a caller reads the event$`, func() error { return s.readEvent("") })
	sc.Step(`^the user reads the event$`, func() error { return s.readEvent(s.accessToken) })
	sc.Step(`^the other user reads the event$`, func() error { return s.readEvent(s.otherToken) })
	sc.Step(`^a caller reads the event "([^"]*)" through the "get-an-event" link of the event list$`, s.readEventByID)
	sc.Step(`^the answer is an event in status "([^"]*)" with a manager$`, s.isEventWithManager)
	sc.Step(`^the event is named "([^"]*)"$`, s.eventIsNamed)
	sc.Step(`^the event still has its original name$`, func() error { return s.eventIsNamed(s.eventName) })
	sc.Step(`^the event is (not )?free and (online|offline)$`, s.eventIsFree)

	sc.Step(`^the user creates an event through the "create-new-event" link$`, func() error { return s.createEvent(nil) })
	sc.Step(`^the user creates an event with:$`, func(t *godog.Table) error { return s.createEvent(t) })
	sc.Step(`^the event is created$`, s.eventIsCreated)
	sc.Step(`^the answer's Location is the event's "self" link$`, s.locationIsSelf)
	sc.Step(`^a caller without a token sends a new event to the event list$`, func() error { return s.sendNewEvent("", "") })
	sc.Step(`^a caller with an invalid token sends a new event to the event list$`, func() error { return s.sendNewEvent(s.invalidToken(), "") })
	sc.Step(`^the user sends a new event to the event list$`, func() error { return s.sendNewEvent(s.accessToken, "") })
	sc.Step(`^the user sends the body "([^"]*)" to the event list$`, func(body string) error { return s.sendNewEvent(s.accessToken, body) })
	sc.Step(`^the client's credentials are sent with HTTP Basic in a new event to the event list$`, s.sendNewEventWithBasic)
	sc.Step(`^the answer does not repeat the invalid token$`, s.doesNotRepeatInvalidToken)
	sc.Step(`^no event with the name sent was created$`, s.noEventWithSentName)

	sc.Step(`^the user updates the event through its "update-event" link, renaming it "([^"]*)"$`, func(name string) error { return s.updateThroughLink(map[string]any{"name": name}) })
	sc.Step(`^the user updates the event through its "update-event" link with:$`, s.updateThroughLinkWith)
	sc.Step(`^the other user sends an update of the event to its address, renaming it "([^"]*)"$`, func(name string) error { return s.updateAtAddress(s.otherToken, map[string]any{"name": name}) })
	sc.Step(`^a caller without a token sends an update of the event to its address, renaming it "([^"]*)"$`, func(name string) error { return s.updateAtAddress("", map[string]any{"name": name}) })
	sc.Step(`^the other user sends an invalid update of the event to its address$`, func() error { return s.updateAtAddress(s.otherToken, map[string]any{"name": ""}) })
	sc.Step(`^the user sends an update to the event "([^"]*)" through the "get-an-event" link of the event list$`, s.updateByID)
	sc.Step(`^the answer has a success status$`, s.hasSuccessStatus)

	sc.Step(`^the answer is a validation error on "([^"]*)"$`, func(field string) error { return s.validationError(field, "") })
	sc.Step(`^the answer is a validation error on "([^"]*)" with code "([^"]*)"$`, s.validationError)
	sc.Step(`^the answer is a validation error with the global code "([^"]*)"$`, s.globalValidationError)

	sc.Step(`^a caller sends (GET|POST|PUT|DELETE|PATCH) to "([^"]*)" without a token$`, func(m, p string) error { return s.send(m, p, "") })
	sc.Step(`^the user sends GET to "([^"]*)" with the token$`, func(p string) error { return s.send("GET", p, "Bearer "+s.accessToken) })
	sc.Step(`^a caller sends GET to "([^"]*)" with the Authorization header "([^"]*)"$`, func(p, h string) error { return s.send("GET", p, h) })
	sc.Step(`^the request is not refused for lack of authentication$`, s.notRefused)
}

// ---- tokens of the other actors

func (s *scenario) passwordGrant(username, password, scope string) (string, error) {
	req := s.tokenRequest().
		WithFormField("grant_type", "password").
		WithFormField("username", username).
		WithFormField("password", password)
	if scope != "" {
		req = req.WithFormField("scope", scope)
	}
	resp := s.expect(req)
	resp.Status(http.StatusOK)
	token := s.object().Value("access_token").String().NotEmpty().Raw()
	if err := s.done(); err != nil {
		return "", fmt.Errorf("obtain a token: %w", err)
	}
	s.learn(token)
	return token, nil
}

func (s *scenario) otherUserHasToken() (err error) {
	s.otherToken, err = s.passwordGrant(s.creds.OtherUsername, s.creds.OtherPass, "")
	return err
}

func (s *scenario) userHasScopedToken(scope string) (err error) {
	s.accessToken, err = s.passwordGrant(s.creds.Username, s.creds.Password, scope)
	return err
}

func (s *scenario) ensureUserToken() error {
	if s.accessToken != "" {
		return nil
	}
	return s.userHasToken()
}

func (s *scenario) invalidToken() string {
	if s.badToken == "" {
		s.badToken = s.madeUp("invalid-")
	}
	return s.badToken
}

// ---- the event list

// eventsAddress reads the API root and returns the address of the event
// list from its "events" link (spec API-1).
func (s *scenario) eventsAddress() string {
	s.expect(s.e.GET(apiRootPath)).Status(http.StatusOK)
	return s.link("events")
}

func (s *scenario) listEvents(token, query string) error {
	address := s.eventsAddress()
	if address == "" {
		return s.done()
	}
	if query != "" {
		address += sep(address) + query
	}
	s.expect(s.at("GET", address, token))
	return s.done()
}

func sep(address string) string {
	if strings.Contains(address, "?") {
		return "&"
	}
	return "?"
}

func (s *scenario) listWithBasic() error {
	address := s.eventsAddress()
	if address != "" {
		s.expect(s.withClientAuth(s.at("GET", address, ""), s.creds.ClientID, s.creds.ClientSecret))
	}
	return s.done()
}

// page is one page of the event list, as walked through "next" links.
type page struct {
	address string
	links   map[string]string // resolved
	items   []string          // each listed event, as its resolved self link or its JSON
}

func (s *scenario) snapshot(address string) page {
	p := page{address: address, links: map[string]string{}}
	for rel, href := range s.links() {
		p.links[rel] = s.resolve(href)
	}
	var doc map[string]any
	decodeJSON(s.lastBody, &doc)
	for _, item := range embeddedItems(doc) {
		key := ""
		if self := hrefs(item)["self"]; self != "" {
			key = s.resolve(self)
		} else {
			b, _ := json.Marshal(item)
			key = string(b)
		}
		p.items = append(p.items, key)
	}
	return p
}

// maxPages bounds a walk through the event list.
const maxPages = 1000

func (s *scenario) walkPages() error {
	address := s.eventsAddress()
	s.pages = nil
	for address != "" && len(s.pages) < maxPages {
		s.expect(s.at("GET", address, "")).Status(http.StatusOK)
		if err := s.done(); err != nil {
			return err
		}
		p := s.snapshot(address)
		s.pages = append(s.pages, p)
		address = p.links["next"]
	}
	if len(s.pages) == maxPages {
		return fmt.Errorf("the event list has more than %d pages; stopped following \"next\"", maxPages)
	}
	return s.done()
}

func (s *scenario) firstPageHasNoPrev() error {
	if len(s.pages) == 0 {
		return fmt.Errorf("no page was read")
	}
	if _, ok := s.pages[0].links["prev"]; ok {
		return fmt.Errorf("the first page has a \"prev\" link")
	}
	return nil
}

func (s *scenario) laterPagesHoldEvents() error {
	for i, p := range s.pages[1:] {
		if len(p.items) == 0 {
			return fmt.Errorf("page %d, reached through \"next\", holds no events (%s)", i+2, s.redactor.String(p.address))
		}
	}
	return nil
}

func (s *scenario) lastPageHasNoNext() error {
	if len(s.pages) == 0 {
		return fmt.Errorf("no page was read")
	}
	if next, ok := s.pages[len(s.pages)-1].links["next"]; ok {
		return fmt.Errorf("the last page links to a next page: %s", next)
	}
	return nil
}

func (s *scenario) prevLeadsBack() error {
	for i := 1; i < len(s.pages); i++ {
		prev, ok := s.pages[i].links["prev"]
		if !ok {
			return fmt.Errorf("page %d has no \"prev\" link", i+1)
		}
		s.expect(s.at("GET", prev, "")).Status(http.StatusOK)
		if err := s.done(); err != nil {
			return err
		}
		// The same page lists the same events; its self link may be
		// written differently (the specification does not say how).
		if got, want := s.snapshot(prev).items, s.pages[i-1].items; strings.Join(got, "\n") != strings.Join(want, "\n") {
			return fmt.Errorf("\"prev\" of page %d leads to a page listing %d events that are not those of page %d", i+1, len(got), i)
		}
	}
	return nil
}

// embeddedItems returns the items of a list: the elements of the arrays
// under "_embedded" (HAL), or, where there is no "_embedded", of the
// top-level arrays. The specification does not show the list's shape.
func embeddedItems(doc map[string]any) []map[string]any {
	embedded, ok := doc["_embedded"].(map[string]any)
	if !ok {
		embedded = doc
	}
	var items []map[string]any
	for _, v := range embedded {
		list, _ := v.([]any)
		for _, e := range list {
			if m, ok := e.(map[string]any); ok {
				items = append(items, m)
			}
		}
	}
	return items
}

func (s *scenario) pageHolds(n int) error {
	var doc map[string]any
	decodeJSON(s.lastBody, &doc)
	if got := len(embeddedItems(doc)); got != n {
		s.rec.fail("the page holds %d events, want %d", got, n)
	}
	return s.done()
}

func (s *scenario) pageReports(total, pages, number int) error {
	p := s.object().Value("page").Object()
	p.Value("totalElements").Number().IsEqual(total)
	p.Value("totalPages").Number().IsEqual(pages)
	p.Value("number").Number().IsEqual(number)
	return s.done()
}

func (s *scenario) listedInOrder(list string) error {
	var doc map[string]any
	decodeJSON(s.lastBody, &doc)
	var got []string
	for _, item := range embeddedItems(doc) {
		name, _ := item["name"].(string)
		got = append(got, s.plainName(name))
	}
	if want := splitList(list); strings.Join(got, ", ") != strings.Join(want, ", ") {
		s.rec.fail("events listed as %q, want %q", strings.Join(got, ", "), strings.Join(want, ", "))
	}
	return s.done()
}

func (s *scenario) listedEventsLinkToThemselves() error {
	var doc map[string]any
	decodeJSON(s.lastBody, &doc)
	items := embeddedItems(doc)
	if len(items) == 0 {
		s.rec.fail("the list holds no events")
	}
	for i, item := range items {
		if hrefs(item)["self"] == "" {
			s.rec.fail("listed event %d has no \"self\" link", i+1)
		}
	}
	return s.done()
}

func (s *scenario) countEvents() error {
	if err := s.listEvents("", ""); err != nil {
		return err
	}
	s.eventCount = int(s.object().Value("page").Object().Value("totalElements").Number().Raw())
	return s.done()
}

func (s *scenario) sameNumberOfEvents() error {
	before := s.eventCount
	if err := s.listEvents("", ""); err != nil {
		return err
	}
	s.object().Value("page").Object().Value("totalElements").Number().IsEqual(before)
	return s.done()
}

// ---- creating

// eventBody returns the body of a new event with a recognizable name.
func (s *scenario) eventBody(name string) (map[string]any, error) {
	raw := s.target.EventBody
	if len(raw) == 0 {
		raw = []byte(DefaultEventBody)
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, fmt.Errorf("the event body is not a JSON object: %w", err)
	}
	s.created++
	if name == "" {
		name = fmt.Sprintf("event %d", s.created)
	}
	body["name"] = s.runName(name)
	return body, nil
}

// runName marks a name with the run id, so that events a run leaves on a
// deployment can be found, and with a mark of the scenario, so that no
// other scenario's event has the same name. plainName takes the marks off.
func (s *scenario) runName(name string) string {
	if s.nonce == "" {
		s.nonce = randomWord(6) // not a secret: not masked
	}
	return name + " [conformance " + s.target.RunID + " " + s.nonce + "]"
}

func (s *scenario) plainName(name string) string {
	if i := strings.Index(name, " [conformance "); i >= 0 {
		return name[:i]
	}
	return name
}

// applyTable sets or removes fields of body from a two-column table.
func applyTable(body map[string]any, table *godog.Table) error {
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
		var n json.Number
		if err := json.Unmarshal([]byte(value), &n); err == nil && value != "" {
			body[field] = n
		} else {
			body[field] = value
		}
	}
	return nil
}

// postEvent sends body through the "create-new-event" link of the event
// list, as the user, and remembers the event when it was created. It
// reports false when the link could not be reached.
func (s *scenario) postEvent(body map[string]any) bool {
	if err := s.ensureUserToken(); err != nil {
		s.rec.fail("%v", err)
		return false
	}
	address := s.eventsAddress()
	if address == "" {
		return false
	}
	s.expect(s.at("GET", address, s.accessToken))
	create := s.link("create-new-event")
	if create == "" {
		return false
	}
	s.expect(s.at("POST", create, s.accessToken).WithJSON(body))
	if code := s.last.Raw().StatusCode; code >= 200 && code < 300 {
		s.rememberEvent(body)
	}
	return true
}

func (s *scenario) createEvent(table *godog.Table) error {
	body, err := s.eventBody("")
	if err != nil {
		return err
	}
	if err := applyTable(body, table); err != nil {
		return err
	}
	s.postEvent(body)
	return s.done()
}

// rememberEvent keeps the address and name of the event just created.
func (s *scenario) rememberEvent(body map[string]any) {
	s.eventURL = ""
	if loc := s.last.Raw().Header.Get("Location"); loc != "" {
		s.eventURL = s.resolve(loc)
	} else if self, ok := s.links()["self"]; ok {
		s.eventURL = s.resolve(self)
	}
	s.eventName, _ = body["name"].(string)
	s.eventBodySent = body
}

func (s *scenario) userHasCreated(n int, names []string) error {
	if names == nil {
		names = make([]string, n)
	}
	for _, name := range names {
		body, err := s.eventBody(name)
		if err != nil {
			return err
		}
		if !s.postEvent(body) {
			return s.done()
		}
		if err := s.eventIsCreated(); err != nil {
			return err
		}
	}
	return nil
}

func (s *scenario) eventIsCreated() error {
	if !s.requireLast() {
		return s.done()
	}
	if code := s.last.Raw().StatusCode; code < 200 || code > 299 {
		s.rec.fail("creating the event failed with status %d", code)
	} else if s.eventURL == "" {
		s.rec.fail("the created event's address is neither in Location nor in a \"self\" link")
	}
	return s.done()
}

func (s *scenario) locationIsSelf() error {
	loc := s.last.Header("Location").NotEmpty().Raw()
	if self := s.link("self"); self != "" && s.resolve(loc) != self {
		s.rec.fail("Location %q is not the \"self\" link %q", loc, self)
	}
	return s.done()
}

func (s *scenario) sendNewEvent(token, rawBody string) error {
	body, err := s.eventBody("")
	if err != nil {
		return err
	}
	s.sentName, _ = body["name"].(string)
	address := s.eventsAddress()
	if address == "" {
		return s.done()
	}
	req := s.at("POST", address, token)
	if rawBody != "" {
		req = req.WithHeader("Content-Type", "application/json").WithText(rawBody)
	} else {
		req = req.WithJSON(body)
	}
	s.expect(req)
	return s.done()
}

func (s *scenario) sendNewEventWithBasic() error {
	body, err := s.eventBody("")
	if err != nil {
		return err
	}
	s.sentName, _ = body["name"].(string)
	if address := s.eventsAddress(); address != "" {
		s.expect(s.withClientAuth(s.at("POST", address, ""), s.creds.ClientID, s.creds.ClientSecret).WithJSON(body))
	}
	return s.done()
}

// noEventWithSentName walks the whole event list, as anyone may read it,
// and fails if an event carries the name of the refused request's body. The
// name holds the run id, so no other run's event matches it.
func (s *scenario) noEventWithSentName() error {
	if s.sentName == "" {
		return fmt.Errorf("no event body was sent in this scenario")
	}
	refused := s.last
	address := s.eventsAddress()
	for n := 0; address != "" && n < maxPages; n++ {
		s.expect(s.at("GET", address, "")).Status(http.StatusOK)
		if err := s.done(); err != nil {
			return err
		}
		var doc map[string]any
		decodeJSON(s.lastBody, &doc)
		for _, item := range embeddedItems(doc) {
			if item["name"] == s.sentName {
				return fmt.Errorf("the refused request created the event %q anyway", s.sentName)
			}
		}
		next := s.links()["next"]
		address = ""
		if next != "" {
			address = s.resolve(next)
		}
	}
	s.last = refused
	return nil
}

func (s *scenario) doesNotRepeatInvalidToken() error {
	var head strings.Builder
	_ = s.last.Raw().Header.Write(&head)
	if strings.Contains(head.String()+s.lastBody, s.badToken) {
		s.rec.fail("the answer repeats the invalid token")
	}
	return s.done()
}

// ---- reading

func (s *scenario) readEvent(token string) error {
	if s.eventURL == "" {
		return fmt.Errorf("no event was created in this scenario")
	}
	s.expect(s.at("GET", s.eventURL, token))
	return s.done()
}

func (s *scenario) eventTemplate() string {
	address := s.eventsAddress()
	if address == "" {
		return ""
	}
	s.expect(s.at("GET", address, ""))
	return s.link("get-an-event")
}

func (s *scenario) readEventByID(id string) error {
	if template := s.eventTemplate(); template != "" {
		s.expect(s.at("GET", expand(template, map[string]string{"id": id}), ""))
	}
	return s.done()
}

func (s *scenario) isEventWithManager(status string) error {
	obj := s.object()
	obj.Value("id").Number().IsInt()
	obj.Value("eventStatus").String().IsEqual(status)
	manager := obj.Value("manager").Object()
	manager.Value("id").Number().IsInt()
	manager.Keys().ContainsOnly("id")
	return s.done()
}

func (s *scenario) eventIsNamed(name string) error {
	if !s.requireLast() {
		return s.done()
	}
	s.last.Status(http.StatusOK)
	if got := s.object().Value("name").String().Raw(); got != name && s.plainName(got) != name {
		s.rec.fail("the event is named %q, want %q", got, name)
	}
	return s.done()
}

func (s *scenario) eventIsFree(not, where string) error {
	obj := s.object()
	obj.Value("free").Boolean().IsEqual(not == "")
	obj.Value("offline").Boolean().IsEqual(where == "offline")
	return s.done()
}

// ---- updating

// updateBody is the body sent at creation with changes applied: a full
// replacement, as PUT means.
func (s *scenario) updateBody(changes map[string]any) map[string]any {
	body := map[string]any{}
	for k, v := range s.eventBodySent {
		body[k] = v
	}
	for k, v := range changes {
		body[k] = v
	}
	return body
}

func (s *scenario) updateThroughLink(changes map[string]any) error {
	if err := s.readEvent(s.accessToken); err != nil {
		return err
	}
	update := s.link("update-event")
	if update == "" {
		return s.done()
	}
	s.expect(s.at("PUT", update, s.accessToken).WithJSON(s.updateBody(changes)))
	return s.done()
}

func (s *scenario) updateThroughLinkWith(table *godog.Table) error {
	changes := map[string]any{}
	if err := applyTable(changes, table); err != nil {
		return err
	}
	body := s.updateBody(changes)
	for _, row := range table.Rows {
		if row.Cells[1].Value == absent {
			delete(body, row.Cells[0].Value)
		}
	}
	if err := s.readEvent(s.accessToken); err != nil {
		return err
	}
	if update := s.link("update-event"); update != "" {
		s.expect(s.at("PUT", update, s.accessToken).WithJSON(body))
	}
	return s.done()
}

func (s *scenario) updateAtAddress(token string, changes map[string]any) error {
	if s.eventURL == "" {
		return fmt.Errorf("no event was created in this scenario")
	}
	s.expect(s.at("PUT", s.eventURL, token).WithJSON(s.updateBody(changes)))
	return s.done()
}

func (s *scenario) updateByID(id string) error {
	if template := s.eventTemplate(); template != "" {
		s.expect(s.at("PUT", expand(template, map[string]string{"id": id}), s.accessToken).WithJSON(s.updateBody(nil)))
	}
	return s.done()
}

func (s *scenario) hasSuccessStatus() error {
	if s.requireLast() {
		if code := s.last.Raw().StatusCode; code < 200 || code > 299 {
			s.rec.fail("expected a success status (2xx), got %d", code)
		}
	}
	return s.done()
}

// ---- validation errors (reference rule API-11)

func (s *scenario) validationErrors() []map[string]any {
	if !s.requireLast() {
		return nil
	}
	s.last.Status(http.StatusBadRequest)
	obj := s.object()
	obj.Value("_links").Object().Value("index").Object().Value("href").String().NotEmpty()
	var out []map[string]any
	for _, v := range obj.Value("content").Array().Iter() {
		out = append(out, v.Object().Raw())
	}
	return out
}

func (s *scenario) validationError(field, code string) error {
	errs := s.validationErrors()
	found := false
	for _, e := range errs {
		if e["field"] == field && (code == "" || e["code"] == code) {
			found = true
			if msg, _ := e["defaultMessage"].(string); msg == "" {
				s.rec.fail("the error on %q has no defaultMessage", field)
			}
		}
	}
	if !found {
		s.rec.fail("no error on field %q with code %q among %v", field, code, errs)
	}
	return s.done()
}

func (s *scenario) globalValidationError(code string) error {
	errs := s.validationErrors()
	found := false
	for _, e := range errs {
		_, hasField := e["field"]
		found = found || (!hasField && e["code"] == code)
	}
	if !found {
		s.rec.fail("no global error with code %q among %v", code, errs)
	}
	return s.done()
}

// ---- any request

func (s *scenario) send(method, path, authorization string) error {
	req := s.e.Request(method, path)
	if authorization != "" {
		req = req.WithHeader("Authorization", authorization)
	}
	if method != "GET" {
		req = req.WithHeader("Content-Type", "application/json").WithText("{}")
	}
	s.expect(req)
	return s.done()
}

func (s *scenario) notRefused() error {
	if s.requireLast() {
		if code := s.last.Raw().StatusCode; code == http.StatusUnauthorized || code == http.StatusForbidden {
			s.rec.fail("the request was refused with status %d", code)
		}
	}
	return s.done()
}

// ---- helpers

func decodeJSON(body string, v any) bool { return json.Unmarshal([]byte(body), v) == nil }

func sortStrings(s []string) []string { sort.Strings(s); return s }
