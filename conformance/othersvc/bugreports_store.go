package othersvc

import (
	"strings"
	"time"
)

// serializerReports are faults of what writes the answers.
var serializerReports = []BugReport{
	{
		Name: "a link the caller may not follow written as null",
		Report: `Our HAL client crashed on reading an event anonymously: its "_links" held "update-event": null. The
link builder returns no link for a relation the caller may not have, and the serializer writes that map entry as
null rather than leaving it out.`,
		Rules:  []string{"SVC-2"},
		Config: Config{Flaws: Flaws{NullLinks: true}},
		Today:  Caught{Scenarios: "SVC-2", Explorer: "SVC-2"},
		Shows: func(c *Client) error {
			links, _ := c.readBack("Null links").doc["_links"].(map[string]any)
			v, ok := links["update-event"]
			return c.errorIf(!ok || v != nil, "an anonymous read's links are %v", links)
		},
	},
	{
		Name: "paging links written with &amp;",
		Report: `Paging with 3 events a page, the second page held 2 events and repeated one of the first. The links
are written by a template that escapes them as HTML attributes: "events?p=2&amp;per_page=3" reads as p=2 and a
parameter named "amp;per_page", so every page after the first has the default size.`,
		Rules:  []string{"API-5", "API-10"},
		Config: Config{Choices: Choices{Seed: 7}, Flaws: Flaws{AmpEscapedHrefs: true}},
		Today:  Caught{Scenarios: "", Explorer: "API-5 API-10"},
		Shows: func(c *Client) error {
			second := c.read(c.read("/api/events?per_page=3").link("next"))
			n := len(second.items())
			return c.errorIf(n == 3, "the page after the first holds %d events", n)
		},
	},
	{
		Name: "texts written HTML-escaped",
		Report: `An event named "Rock & Roll <live>" reads back as "Rock &amp; Roll &lt;live&gt;" in our mobile app.
The JSON writer was given the escaping filter of the web pages, and escapes every text it writes as HTML.`,
		Rules:  []string{"API-6", "API-9"},
		Config: Config{Flaws: Flaws{HtmlEscapedTexts: true}},
		Today:  Caught{Scenarios: "", Explorer: "API-6 API-9"},
		Shows:  readsBackAs("Rock & Roll <live>", "Rock &amp; Roll &lt;live&gt;"),
	},
}

// columnReports are faults of the database's columns.
var columnReports = []BugReport{
	{
		Name: "names cut at 100 characters",
		Report: `A long event name was cut at its 100th character without any error. The name column is
varchar(100), and the database, not in strict mode, truncates a longer value silently; the answer shows what was
stored.`,
		Rules:  []string{"API-6", "API-9"},
		Config: Config{Flaws: Flaws{NameVarchar100: true}},
		Today:  Caught{Scenarios: "", Explorer: "API-6 API-9"},
		Shows:  readsBackAs(strings.Repeat("Long name ", 15), strings.Repeat("Long name ", 10)),
	},
	{
		Name: "characters outside the BMP stored as ?",
		Report: `"Launch party 🎉" reads back as "Launch party ?". The table's character set is MySQL's utf8 (utf8mb3),
which holds three bytes a character at most: emoji and the rarer CJK ideographs become "?".`,
		Rules:  []string{"API-6", "API-9"},
		Config: Config{Flaws: Flaws{Utf8mb3: true}},
		Today:  Caught{Scenarios: "API-6 API-9", Explorer: "API-6 API-9"},
		Shows:  readsBackAs("Launch party 🎉", "Launch party ?"),
	},
	{
		Name: "the time's offset dropped",
		Report: `An event sent to start at 10:00+01:00 reads back as starting at 10:00Z, an hour later. The column is a
TIMESTAMP WITHOUT TIME ZONE: the driver stores the local time as sent and drops its offset, and the time read
back is taken to be UTC.`,
		Rules:  []string{"API-6", "API-9"},
		Config: Config{Flaws: Flaws{ZoneDropped: true}},
		Today:  Caught{Scenarios: "API-6 API-9", Explorer: "API-6"},
		Shows: func(c *Client) error {
			got := c.readBack("Starts at ten")
			sent, _ := time.Parse(time.RFC3339, "2026-11-25T10:00:00+01:00")
			at, err := time.Parse(time.RFC3339, got.text("startsAt"))
			return c.errorIf(err != nil || at.Equal(sent), "startsAt reads back as %q (%v)", got.text("startsAt"), err)
		},
	},
	{
		Name: "the venue padded with spaces",
		Report: `The venue "Room 4" reads back followed by 34 spaces, which breaks our map search. The venue column is
CHAR(40), which pads what it stores to its length and gives it back so.`,
		Rules:  []string{"API-6", "API-9"},
		Config: Config{Flaws: Flaws{VenuePadded: true}},
		Today:  Caught{Scenarios: "API-6 API-9", Explorer: "API-6 API-9"},
		Shows: func(c *Client) error {
			v := c.readBack("Padded").text("venue")
			return c.errorIf(v != "Room 4"+strings.Repeat(" ", 34), "the venue reads back as %q", v)
		},
	},
}

// raceReports are faults that show when two requests meet.
var raceReports = []BugReport{
	{
		Name: "two logins at the same moment given the same user's token",
		Report: `Two colleagues who logged in at the same moment both saw the second one's events as theirs, and one of
them updated the other's event. The password grant keeps the user it is logging in on the handler (a field
shared by every request) while it checks the password, and issues the token for whoever is there then.`,
		Rules:  []string{"ACC-1", "TOK-3"},
		Config: Config{Flaws: Flaws{TokenSwapRace: true}},
		Today:  Caught{Scenarios: "", Explorer: "ACC-1"},
		Shows: func(c *Client) error {
			users := [][2]string{{c.Creds.Username, c.Creds.Password}, {c.Creds.OtherUsername, c.Creds.OtherPass}}
			for range 5 {
				tokens := together(2, func(i int) string {
					access, _ := c.login(users[i][0], users[i][1])
					return access
				})
				a := c.create(tokens[0], "Whose is it")
				if got := c.read(a.link("self"), bearer(tokens[1])...); got.link("update-event") != "" {
					return c.Err() // the two tokens act for one user
				}
			}
			return c.errorIf(true, "five pairs of logins at once were given tokens of their own users")
		},
	},
	{
		Name: "two creations at the same moment managed by one user",
		Report: `Two organisers created events at the same moment; one of them could not edit hers, which the other
managed. The creation handler keeps the current user in a field of a singleton (it was meant to be scoped to the
request) while it stores the event, a database round trip later.`,
		Rules:  []string{"API-6"},
		Config: Config{Flaws: Flaws{ManagerSwapRace: true}},
		Today:  Caught{Scenarios: "API-6", Explorer: "API-6"},
		Shows: func(c *Client) error {
			tokens := []string{c.user(), c.other()}
			for range 5 {
				created := together(2, func(i int) *Answer { return c.create(tokens[i], "Mine") })
				for i, a := range created {
					if got := c.read(a.link("self"), bearer(tokens[i])...); got.link("update-event") == "" {
						return c.Err() // the creator does not manage it
					}
				}
			}
			return c.errorIf(true, "five pairs of creations at once were each managed by its creator")
		},
	},
}

// readsBackAs shows an event created with the name sent read back with
// the name want.
func readsBackAs(sent, want string) func(c *Client) error {
	return func(c *Client) error {
		name := c.readBack(sent).text("name")
		return c.errorIf(name != want, "%q reads back as %q", sent, name)
	}
}
