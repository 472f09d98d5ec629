package othersvc

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
var lastReports = []BugReport{
	{
		Name: "the API root's last link leads nowhere",
		Report: `Our API browser shows the root's links in order; "events" works, and "self", the last, gives a 404.
The root writes its own address with a trailing slash, api/, which the router, strict about slashes, does not
serve.`,
		Rules:  []string{"API-10"},
		Config: Config{Flaws: Flaws{RootSelfNowhere: true}},
		Today:  Caught{Scenarios: "API-10", Explorer: "API-10"},
		Shows: func(c *Client) error {
			a := c.send(http.MethodGet, c.read("/api").link("self"), "")
			return c.errorIf(a.status/100 == 2, "the root's self link answers %d", a.status)
		},
	},
	{
		Name: "the last page of the list has no get-an-event",
		Report: `Our client reads the "get-an-event" template from the page it is on, and failed on the last page of
the list, which has none. A page shorter than the page size is rendered by a branch of its own, which forgets
the template.`,
		Rules:  []string{"API-3", "API-4"},
		Config: Config{Choices: Choices{Seed: 5}, Flaws: Flaws{LastPageNoTemplate: true}},
		Today:  Caught{Scenarios: "API-3 API-4", Explorer: "API-3 API-4"},
		Shows: func(c *Client) error {
			pages := c.pages("/api/events")
			return c.errorIf(len(pages) < 2 || pages[0].link("get-an-event") == "" || pages[len(pages)-1].link("get-an-event") != "",
				"the first and the last of %d pages both offer get-an-event, or neither", len(pages))
		},
	},
	{
		Name: "the last page's self link leads to the page before",
		Report: `Bookmarking the last page of the list bookmarked the page before it. The "self" link of the last page
is built from the number of its "prev" link, to which one was to be added.`,
		Rules:  []string{"API-10"},
		Config: Config{Choices: Choices{Seed: 5}, Flaws: Flaws{LastPageSelfToPrev: true}},
		Today:  Caught{Scenarios: "", Explorer: "API-10"},
		Shows: func(c *Client) error {
			pages := c.pages("/api/events")
			last := pages[len(pages)-1]
			again := c.read(last.link("self"))
			return c.errorIf(ids(again) == ids(last), "the last page's self link leads to the same events, %s", ids(last))
		},
	},
	{
		Name: "the last event of the list has no _links",
		Report: `The oldest event, the last one the list shows, had no link to open it. The loop that adds each
event's links stops one short of the end of the result set.`,
		Rules:  []string{"SVC-2"},
		Config: Config{Choices: Choices{Seed: 5}, Flaws: Flaws{LastItemNoLinks: true}},
		Today:  Caught{Scenarios: "SVC-2", Explorer: "SVC-2"},
		Shows: func(c *Client) error {
			pages := c.pages("/api/events")
			var without []string
			for _, p := range pages {
				for _, item := range p.items() {
					if _, ok := item["_links"]; !ok {
						without = append(without, fmt.Sprint(item["id"]))
					}
				}
			}
			return c.errorIf(len(without) != 1 || len(pages) < 2 || !strings.Contains(ids(pages[len(pages)-1]), without[0]),
				"the events without links are %v", without)
		},
	},
	{
		Name: "the last page repeats events of the page before",
		Report: `Scrolling to the end of the list showed the second-to-last event twice. The last page is read with
OFFSET total-size, so that it is full, and repeats the events of the page before that it fills up with.`,
		Rules:  []string{"API-5"},
		Config: Config{Choices: Choices{Seed: 5}, Flaws: Flaws{LastPageRepeats: true}},
		Today:  Caught{Scenarios: "API-5", Explorer: "API-5"},
		Shows: func(c *Client) error {
			var all []string
			for _, p := range c.pages("/api/events") {
				all = append(all, strings.Fields(ids(p))...)
			}
			return c.errorIf(len(slices.Compact(slices.Sorted(slices.Values(all)))) == len(all), "no event is listed twice: %v", all)
		},
	},
	{
		Name: "update-event, the event's last link, leads to the list",
		Report: `Saving an edited event failed with 405: the "update-event" link of an event, the last of its links,
leads to the list. It is built as "create-new-event" is, from the collection's address.`,
		Rules:  []string{"API-10"},
		Config: Config{Flaws: Flaws{UpdateLinkToList: true}},
		Today:  Caught{Scenarios: "API-10", Explorer: "API-10"},
		Shows: func(c *Client) error {
			token, a := c.userCreated("Edit me")
			got := c.read(a.link("self"), bearer(token)...)
			return c.errorIf(got.link("update-event") != c.base+"/api/events", "update-event leads to %s", got.link("update-event"))
		},
	},
	{
		Name: "the self link of an update's answer leads to the list",
		Report: `After saving an event, our client followed the "self" link of the answer to the PUT and showed the
list. The update handler builds "self" the way the list does; the creation's answer, checked first, is right.`,
		Rules:  []string{"API-10"},
		Config: Config{Choices: Choices{PutAnswersEvent: true}, Flaws: Flaws{UpdateAnswerSelfToList: true}},
		Today:  Caught{Scenarios: "API-10", Explorer: "API-10"},
		Shows: func(c *Client) error {
			_, put := c.createdThenUpdated("Room 4")
			return listAt(c, put.link("self"), "the update's answer")
		},
	},
	{
		Name: "an update leaves the venue, the last field, as it was",
		Report: `A moved event kept its old venue, though its new name and time were saved. The venue column came with
a later migration, and the UPDATE statement, written before it, sets the other columns only.`,
		Rules:  []string{"API-9"},
		Config: Config{Flaws: Flaws{VenueNotUpdated: true}},
		Today:  Caught{Scenarios: "API-9", Explorer: "API-9"},
		Shows: func(c *Client) error {
			token, a := c.userCreated("Before")
			c.update(token, a.link("self"), "Moved", "Room 9")
			got := c.read(a.link("self"))
			return c.errorIf(got.text("name") != "Moved" || got.text("venue") != "Room 4",
				"the event reads back as %q in %q", got.text("name"), got.text("venue"))
		},
	},
	{
		Name: "the refresh grant's answer may be cached",
		Report: `Our CDN cached a token answer: the answer to a refresh carries no Cache-Control: no-store, where the
password grant's does. The refresh grant is a handler of its own, which does not set the header.`,
		Rules:  []string{"TOK-15"},
		Config: Config{Flaws: Flaws{RefreshNotNoStore: true}},
		Today:  Caught{Scenarios: "TOK-15", Explorer: "TOK-15"},
		Shows: func(c *Client) error {
			a := c.refresh(c.refreshToken())
			return c.errorIf(a.status != http.StatusOK || strings.Contains(a.header.Get("Cache-Control"), "no-store"),
				"the refresh answered %d with Cache-Control %q", a.status, a.header.Get("Cache-Control"))
		},
	},
	{
		Name: "a refreshed access token lives an hour",
		Report: `Access tokens from a refresh said "expires_in": 3600 and worked for an hour, where the first access
token of a login lives at most 600 s. The refresh handler gives the new access token the lifetime of the refresh
token's client setting, the wrong one of the two.`,
		Rules:  []string{"TOK-5", "LIM-1"},
		Config: Config{Flaws: Flaws{RefreshLivesAnHour: true}},
		Today:  Caught{Scenarios: "TOK-5", Explorer: "TOK-5"},
		Shows: func(c *Client) error {
			a := c.refresh(c.refreshToken())
			c.clock.Add(601 * time.Second)
			list := c.read("/api/events", bearer(a.text("access_token"))...)
			return c.errorIf(a.doc["expires_in"] != 3600.0 || list.link("create-new-event") == "",
				"the refresh said expires_in %v, and 601 s later its token is refused", a.doc["expires_in"])
		},
	},
}

// ids are the ids of the events a page lists, in order.
func ids(page *Answer) string {
	var out []string
	for _, item := range page.items() {
		out = append(out, fmt.Sprint(item["id"]))
	}
	return strings.Join(out, " ")
}
