package conformance

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// lastReports each break the last instance only of what a scenario says
// holds for "every" one: the last link, the last page, the last event
// listed, the last field, the refreshed token. A scenario that checks
// every instance fails on them; one that checks the first does not.
var lastReports = []bugReport{
	{
		name: "the API root's last link leads nowhere",
		report: `Our API browser shows the root's links in order; "events" works, and "self", the last, gives a 404.
The root writes its own address with a trailing slash, api/, which the router, strict about slashes, does not
serve.`,
		rules:  []string{"API-10"},
		config: otherConfig{flaws: otherFlaws{rootSelfNowhere: true}},
		today:  caught{scenarios: "API-10", explorer: "API-10"},
		shows: func(c *otherClient) error {
			root, err := c.read("/api")
			if err != nil {
				return err
			}
			a, err := c.send(http.MethodGet, root.link("self"), "")
			if err != nil {
				return err
			}
			if a.status/100 == 2 {
				return fmt.Errorf("the root's self link answers %d", a.status)
			}
			return nil
		},
	},
	{
		name: "the last page of the list has no get-an-event",
		report: `Our client reads the "get-an-event" template from the page it is on, and failed on the last page of
the list, which has none. A page shorter than the page size is rendered by a branch of its own, which forgets
the template.`,
		rules:  []string{"API-3", "API-4"},
		config: otherConfig{choices: otherChoices{seed: 5}, flaws: otherFlaws{lastPageNoTemplate: true}},
		today:  caught{scenarios: "API-3 API-4", explorer: "API-3 API-4"},
		shows: func(c *otherClient) error {
			pages, err := c.pages()
			if err != nil {
				return err
			}
			if len(pages) < 2 || pages[0].link("get-an-event") == "" || pages[len(pages)-1].link("get-an-event") != "" {
				return fmt.Errorf("the first and the last of %d pages both offer get-an-event, or neither", len(pages))
			}
			return nil
		},
	},
	{
		name: "the last page's self link leads to the page before",
		report: `Bookmarking the last page of the list bookmarked the page before it. The "self" link of the last page
is built from the number of its "prev" link, to which one was to be added.`,
		rules:  []string{"API-10"},
		config: otherConfig{choices: otherChoices{seed: 5}, flaws: otherFlaws{lastPageSelfToPrev: true}},
		today:  caught{scenarios: "", explorer: "API-10"},
		shows: func(c *otherClient) error {
			pages, err := c.pages()
			if err != nil {
				return err
			}
			last := pages[len(pages)-1]
			again, err := c.read(last.link("self"))
			if err != nil {
				return err
			}
			if ids(again) == ids(last) {
				return fmt.Errorf("the last page's self link leads to the same events, %s", ids(last))
			}
			return nil
		},
	},
	{
		name: "the last event of the list has no _links",
		report: `The oldest event, the last one the list shows, had no link to open it. The loop that adds each
event's links stops one short of the end of the result set.`,
		rules:  []string{"SVC-2"},
		config: otherConfig{choices: otherChoices{seed: 5}, flaws: otherFlaws{lastItemNoLinks: true}},
		today:  caught{scenarios: "SVC-2", explorer: "SVC-2"},
		shows: func(c *otherClient) error {
			pages, err := c.pages()
			if err != nil {
				return err
			}
			var without []string
			for _, p := range pages {
				for _, item := range p.items() {
					if _, ok := item["_links"]; !ok {
						without = append(without, fmt.Sprint(item["id"]))
					}
				}
			}
			if len(without) != 1 || len(pages) < 2 || !strings.Contains(ids(pages[len(pages)-1]), without[0]) {
				return fmt.Errorf("the events without links are %v", without)
			}
			return nil
		},
	},
	{
		name: "the last page repeats events of the page before",
		report: `Scrolling to the end of the list showed the second-to-last event twice. The last page is read with
OFFSET total-size, so that it is full, and repeats the events of the page before that it fills up with.`,
		rules:  []string{"API-5"},
		config: otherConfig{choices: otherChoices{seed: 5}, flaws: otherFlaws{lastPageRepeats: true}},
		today:  caught{scenarios: "API-5", explorer: "API-5"},
		shows: func(c *otherClient) error {
			pages, err := c.pages()
			if err != nil {
				return err
			}
			var all []string
			for _, p := range pages {
				all = append(all, strings.Fields(ids(p))...)
			}
			if len(slices.Compact(slices.Sorted(slices.Values(all)))) == len(all) {
				return fmt.Errorf("no event is listed twice: %v", all)
			}
			return nil
		},
	},
	{
		name: "update-event, the event's last link, leads to the list",
		report: `Saving an edited event failed with 405: the "update-event" link of an event, the last of its links,
leads to the list. It is built as "create-new-event" is, from the collection's address.`,
		rules:  []string{"API-10"},
		config: otherConfig{flaws: otherFlaws{updateLinkToList: true}},
		today:  caught{scenarios: "TOK-8 API-8 API-9 API-10", explorer: "API-10"},
		shows: func(c *otherClient) error {
			token, err := c.user()
			if err != nil {
				return err
			}
			a, err := c.create(token, "Edit me")
			if err != nil {
				return err
			}
			got, err := c.read(a.link("self"), bearer(token)...)
			if err != nil {
				return err
			}
			if got.link("update-event") != c.base+"/api/events" {
				return fmt.Errorf("update-event leads to %s", got.link("update-event"))
			}
			return nil
		},
	},
	{
		name: "the self link of an update's answer leads to the list",
		report: `After saving an event, our client followed the "self" link of the answer to the PUT and showed the
list. The update handler builds "self" the way the list does; the creation's answer, checked first, is right.`,
		rules:  []string{"API-10"},
		config: otherConfig{choices: otherChoices{putAnswersEvent: true}, flaws: otherFlaws{updateAnswerSelfToList: true}},
		today:  caught{scenarios: "API-10", explorer: "API-10"},
		shows: func(c *otherClient) error {
			token, err := c.user()
			if err != nil {
				return err
			}
			a, err := c.create(token, "Before")
			if err != nil {
				return err
			}
			put, err := c.send(http.MethodPut, a.link("self"), otherEventJSON("After", "Room 4"), asJSON(bearer(token)...)...)
			if err != nil {
				return err
			}
			got, err := c.read(put.link("self"))
			if err != nil {
				return err
			}
			if _, list := got.doc["_embedded"]; !list {
				return fmt.Errorf("the self link of the update's answer leads to %v, not to the list", got.doc["id"])
			}
			return nil
		},
	},
	{
		name: "an update leaves the venue, the last field, as it was",
		report: `A moved event kept its old venue, though its new name and time were saved. The venue column came with
a later migration, and the UPDATE statement, written before it, sets the other columns only.`,
		rules:  []string{"API-9"},
		config: otherConfig{flaws: otherFlaws{venueNotUpdated: true}},
		today:  caught{scenarios: "API-9", explorer: "API-9"},
		shows: func(c *otherClient) error {
			token, err := c.user()
			if err != nil {
				return err
			}
			a, err := c.create(token, "Before")
			if err != nil {
				return err
			}
			if _, err := c.send(http.MethodPut, a.link("self"), otherEventJSON("Moved", "Room 9"), asJSON(bearer(token)...)...); err != nil {
				return err
			}
			got, err := c.read(a.link("self"))
			if err != nil {
				return err
			}
			if got.text("name") != "Moved" || got.text("venue") != "Room 4" {
				return fmt.Errorf("the event reads back as %q in %q", got.text("name"), got.text("venue"))
			}
			return nil
		},
	},
	{
		name: "the refresh grant's answer may be cached",
		report: `Our CDN cached a token answer: the answer to a refresh carries no Cache-Control: no-store, where the
password grant's does. The refresh grant is a handler of its own, which does not set the header.`,
		rules:  []string{"TOK-15"},
		config: otherConfig{flaws: otherFlaws{refreshNotNoStore: true}},
		today:  caught{scenarios: "TOK-15", explorer: "TOK-15"},
		shows: func(c *otherClient) error {
			_, refresh, err := c.login(c.creds.Username, c.creds.Password)
			if err != nil {
				return err
			}
			a, err := c.refresh(refresh)
			if err != nil {
				return err
			}
			if a.status != http.StatusOK || strings.Contains(a.header.Get("Cache-Control"), "no-store") {
				return fmt.Errorf("the refresh answered %d with Cache-Control %q", a.status, a.header.Get("Cache-Control"))
			}
			return nil
		},
	},
	{
		name: "a refreshed access token lives an hour",
		report: `Access tokens from a refresh said "expires_in": 3600 and worked for an hour, where the first access
token of a login lives at most 600 s. The refresh handler gives the new access token the lifetime of the refresh
token's client setting, the wrong one of the two.`,
		rules:  []string{"TOK-5", "LIM-1"},
		config: otherConfig{flaws: otherFlaws{refreshLivesAnHour: true}},
		today:  caught{scenarios: "TOK-5", explorer: "TOK-5"},
		shows: func(c *otherClient) error {
			_, refresh, err := c.login(c.creds.Username, c.creds.Password)
			if err != nil {
				return err
			}
			a, err := c.refresh(refresh)
			if err != nil {
				return err
			}
			c.clock.Add(601 * time.Second)
			list, err := c.read("/api/events", bearer(a.text("access_token"))...)
			if err != nil {
				return err
			}
			if a.doc["expires_in"] != 3600.0 || list.link("create-new-event") == "" {
				return fmt.Errorf("the refresh said expires_in %v, and 601 s later its token is refused", a.doc["expires_in"])
			}
			return nil
		},
	},
}

// pages are the pages of the list, read anonymously from its first,
// following "next".
func (c *otherClient) pages() ([]*otherAnswer, error) {
	var out []*otherAnswer
	for address := c.base + "/api/events"; address != "" && len(out) < 100; {
		a, err := c.read(address)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
		address = a.link("next")
	}
	return out, nil
}

// ids are the ids of the events a page lists, in order.
func ids(page *otherAnswer) string {
	var out []string
	for _, item := range page.items() {
		out = append(out, fmt.Sprint(item["id"]))
	}
	return strings.Join(out, " ")
}
