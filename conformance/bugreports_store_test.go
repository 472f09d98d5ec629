package conformance

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// serializerReports are faults of what writes the answers.
var serializerReports = []bugReport{
	{
		name: "a link the caller may not follow written as null",
		report: `Our HAL client crashed on reading an event anonymously: its "_links" held "update-event": null. The
link builder returns no link for a relation the caller may not have, and the serializer writes that map entry as
null rather than leaving it out.`,
		rules:  []string{"SVC-2"},
		config: otherConfig{flaws: otherFlaws{nullLinks: true}},
		today:  caught{scenarios: "SVC-2", explorer: "SVC-2"},
		shows: func(c *otherClient) error {
			token, err := c.user()
			if err != nil {
				return err
			}
			a, err := c.create(token, "Null links")
			if err != nil {
				return err
			}
			got, err := c.read(a.link("self"))
			if err != nil {
				return err
			}
			links, _ := got.doc["_links"].(map[string]any)
			if v, ok := links["update-event"]; !ok || v != nil {
				return fmt.Errorf("an anonymous read's links are %v", links)
			}
			return nil
		},
	},
	{
		name: "paging links written with &amp;",
		report: `Paging with 3 events a page, the second page held 2 events and repeated one of the first. The links
are written by a template that escapes them as HTML attributes: "events?p=2&amp;per_page=3" reads as p=2 and a
parameter named "amp;per_page", so every page after the first has the default size.`,
		rules:  []string{"API-5", "API-10"},
		config: otherConfig{choices: otherChoices{seed: 7}, flaws: otherFlaws{ampEscapedHrefs: true}},
		today:  caught{scenarios: "", explorer: ""},
		shows: func(c *otherClient) error {
			first, err := c.read("/api/events?per_page=3")
			if err != nil {
				return err
			}
			second, err := c.read(first.link("next"))
			if err != nil {
				return err
			}
			if n := len(second.items()); n == 3 {
				return fmt.Errorf("the page after the first holds %d events", n)
			}
			return nil
		},
	},
	{
		name: "texts written HTML-escaped",
		report: `An event named "Rock & Roll <live>" reads back as "Rock &amp; Roll &lt;live&gt;" in our mobile app.
The JSON writer was given the escaping filter of the web pages, and escapes every text it writes as HTML.`,
		rules:  []string{"API-6", "API-9"},
		config: otherConfig{flaws: otherFlaws{htmlEscapedTexts: true}},
		today:  caught{scenarios: "", explorer: "API-6 API-9"},
		shows:  readsBackAs("Rock & Roll <live>", "Rock &amp; Roll &lt;live&gt;"),
	},
}

// columnReports are faults of the database's columns.
var columnReports = []bugReport{
	{
		name: "names cut at 100 characters",
		report: `A long event name was cut at its 100th character without any error. The name column is
varchar(100), and the database, not in strict mode, truncates a longer value silently; the answer shows what was
stored.`,
		rules:  []string{"API-6", "API-9"},
		config: otherConfig{flaws: otherFlaws{nameVarchar100: true}},
		today:  caught{scenarios: "", explorer: "API-6 API-9"},
		shows:  readsBackAs(strings.Repeat("Long name ", 15), strings.Repeat("Long name ", 10)),
	},
	{
		name: "characters outside the BMP stored as ?",
		report: `"Launch party 🎉" reads back as "Launch party ?". The table's character set is MySQL's utf8 (utf8mb3),
which holds three bytes a character at most: emoji and the rarer CJK ideographs become "?".`,
		rules:  []string{"API-6", "API-9"},
		config: otherConfig{flaws: otherFlaws{utf8mb3: true}},
		today:  caught{scenarios: "API-6 API-9", explorer: "API-6 API-9"},
		shows:  readsBackAs("Launch party 🎉", "Launch party ?"),
	},
	{
		name: "the time's offset dropped",
		report: `An event sent to start at 10:00+01:00 reads back as starting at 10:00Z, an hour later. The column is a
TIMESTAMP WITHOUT TIME ZONE: the driver stores the local time as sent and drops its offset, and the time read
back is taken to be UTC.`,
		rules:  []string{"API-6", "API-9"},
		config: otherConfig{flaws: otherFlaws{zoneDropped: true}},
		today:  caught{scenarios: "API-6 API-9", explorer: "API-6"},
		shows: func(c *otherClient) error {
			token, err := c.user()
			if err != nil {
				return err
			}
			a, err := c.create(token, "Starts at ten")
			if err != nil {
				return err
			}
			got, err := c.read(a.link("self"))
			if err != nil {
				return err
			}
			sent, _ := time.Parse(time.RFC3339, "2026-11-25T10:00:00+01:00")
			at, err := time.Parse(time.RFC3339, got.text("startsAt"))
			if err != nil || at.Equal(sent) {
				return fmt.Errorf("startsAt reads back as %q (%v)", got.text("startsAt"), err)
			}
			return nil
		},
	},
	{
		name: "the venue padded with spaces",
		report: `The venue "Room 4" reads back followed by 34 spaces, which breaks our map search. The venue column is
CHAR(40), which pads what it stores to its length and gives it back so.`,
		rules:  []string{"API-6", "API-9"},
		config: otherConfig{flaws: otherFlaws{venuePadded: true}},
		today:  caught{scenarios: "API-6 API-9", explorer: "API-6"},
		shows: func(c *otherClient) error {
			token, err := c.user()
			if err != nil {
				return err
			}
			a, err := c.create(token, "Padded")
			if err != nil {
				return err
			}
			got, err := c.read(a.link("self"))
			if err != nil {
				return err
			}
			if v := got.text("venue"); v != "Room 4"+strings.Repeat(" ", 34) {
				return fmt.Errorf("the venue reads back as %q", v)
			}
			return nil
		},
	},
}

// raceReports are faults that show when two requests meet.
var raceReports = []bugReport{
	{
		name: "two logins at the same moment given the same user's token",
		report: `Two colleagues who logged in at the same moment both saw the second one's events as theirs, and one of
them updated the other's event. The password grant keeps the user it is logging in on the handler (a field
shared by every request) while it checks the password, and issues the token for whoever is there then.`,
		rules:  []string{"ACC-1", "TOK-3"},
		config: otherConfig{flaws: otherFlaws{tokenSwapRace: true}},
		today:  caught{scenarios: "", explorer: ""},
		shows: func(c *otherClient) error {
			users := [][2]string{{c.creds.Username, c.creds.Password}, {c.creds.OtherUsername, c.creds.OtherPass}}
			for range 5 {
				tokens := make([]string, 2)
				if _, err := together(2, func(i int) (*otherAnswer, error) {
					var err error
					tokens[i], _, err = c.login(users[i][0], users[i][1])
					return nil, err
				}); err != nil {
					return err
				}
				a, err := c.create(tokens[0], "Whose is it")
				if err != nil {
					return err
				}
				got, err := c.read(a.link("self"), bearer(tokens[1])...)
				if err != nil {
					return err
				}
				if got.link("update-event") != "" {
					return nil // the two tokens act for one user
				}
			}
			return errors.New("five pairs of logins at once were given tokens of their own users")
		},
	},
	{
		name: "two creations at the same moment managed by one user",
		report: `Two organisers created events at the same moment; one of them could not edit hers, which the other
managed. The creation handler keeps the current user in a field of a singleton (it was meant to be scoped to the
request) while it stores the event, a database round trip later.`,
		rules:  []string{"API-6"},
		config: otherConfig{flaws: otherFlaws{managerSwapRace: true}},
		today:  caught{scenarios: "API-6 API-8", explorer: "API-6 API-8"},
		shows: func(c *otherClient) error {
			ann, err := c.user()
			if err != nil {
				return err
			}
			bob, _, err := c.login(c.creds.OtherUsername, c.creds.OtherPass)
			if err != nil {
				return err
			}
			tokens := []string{ann, bob}
			for range 5 {
				created, err := together(2, func(i int) (*otherAnswer, error) { return c.create(tokens[i], "Mine") })
				if err != nil {
					return err
				}
				for i, a := range created {
					got, err := c.read(a.link("self"), bearer(tokens[i])...)
					if err != nil {
						return err
					}
					if got.link("update-event") == "" {
						return nil // the creator does not manage it
					}
				}
			}
			return errors.New("five pairs of creations at once were each managed by its creator")
		},
	},
}

// readsBackAs shows an event created with the name sent read back with
// the name want.
func readsBackAs(sent, want string) func(c *otherClient) error {
	return func(c *otherClient) error {
		token, err := c.user()
		if err != nil {
			return err
		}
		a, err := c.send(http.MethodPost, "/api/events", otherEventJSON(sent, "Room 4"), asJSON(bearer(token)...)...)
		if err != nil || a.status/100 != 2 {
			return fmt.Errorf("the creation failed (%v)", err)
		}
		got, err := c.read(a.link("self"))
		if err != nil {
			return err
		}
		if got.text("name") != want {
			return fmt.Errorf("%q reads back as %q", sent, got.text("name"))
		}
		return nil
	}
}
