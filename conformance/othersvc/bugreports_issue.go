package othersvc

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"
)

// issueReports are the six faults that passed every check of the project
// when they were found in independent implementations.
var issueReports = []BugReport{
	{
		Name: "an update answered with the values it replaced",
		Report: `After renaming an event, our front end showed the old name until the page was reloaded: the answer to
the PUT holds the event as it was before the update, while the new values are stored and every later read shows
them. The handler renders the entity it loaded before saving, and the save writes a new copy.`,
		Rules:  []string{"API-9"},
		Config: Config{Choices: Choices{PutAnswersEvent: true}, Flaws: Flaws{PutStaleAnswer: true}},
		Today:  Caught{Scenarios: "API-9", Explorer: "API-9"},
		Shows: func(c *Client) error {
			a, put := c.createdThenUpdated("Room 5")
			got := c.read(a.link("self"))
			c.failIf(put.status != http.StatusOK || got.text("name") != "After",
				"the update answered %d and the event reads back named %q", put.status, got.text("name"))
			return c.errorIf(put.text("name") != "Before", "the answer to the update shows the name %q", put.text("name"))
		},
	},
	{
		Name: "the self link of a creation's answer leads to the list",
		Report: `Our client follows the "self" link of the answer to a POST to show the new event, and got the whole
list instead; the Location of the 201 is right. The creation handler builds "self" from the address of the
request, which is the list's, rather than from the id of the event it created.`,
		Rules:  []string{"API-10"},
		Config: Config{Choices: Choices{Created201: true}, Flaws: Flaws{CreateSelfToList: true}},
		Today:  Caught{Scenarios: "API-10", Explorer: "API-10"},
		Shows: func(c *Client) error {
			_, created := c.userCreated("Where am I")
			return listAt(c, created.link("self"), "the creation")
		},
	},
	{
		Name: "a creation without a token on /api/events/ (trailing slash)",
		Report: `A penetration test created events without logging in by posting to /api/events/ with a trailing
slash. The router folds /api/events/ onto /api/events, but the security filter matches the path as it was sent:
its rule for /api/events does not apply, and the write goes through as anonymous (the family of Spring
Security's CVE-2023-34034 and CVE-2016-5007).`,
		Rules:  []string{"AUTH-3", "SVC-5"},
		Config: Config{Flaws: Flaws{TrailingSlash: true}},
		Today:  Caught{Scenarios: "AUTH-3", Explorer: "AUTH-3"},
		Shows:  createsAnonymouslyAt("/api/events/"),
	},
	{
		Name: "two creations at the same moment given one id",
		Report: `Two organisers created events within a few milliseconds of each other; both were told their event
was created, under the same id, and only one of the two events exists. The id is max(id)+1, read outside the
transaction that inserts the event, and the insert overwrites a row of the same id.`,
		Rules:  []string{"API-6"},
		Config: Config{Flaws: Flaws{SameIDRace: true}},
		Today:  Caught{Scenarios: "API-6", Explorer: "API-6"},
		Shows: func(c *Client) error {
			token := c.user()
			for try := range 5 {
				names := []string{fmt.Sprintf("First %d", try), fmt.Sprintf("Second %d", try)}
				answers := together(len(names), func(i int) *Answer { return c.create(token, names[i]) })
				if answers[0].doc["id"] != answers[1].doc["id"] {
					continue
				}
				if listed := c.names(); !slices.Contains(listed, names[0]) || !slices.Contains(listed, names[1]) {
					return c.Err()
				}
			}
			return c.errorIf(true, "five pairs of creations at once were given ids of their own, and all were listed")
		},
	},
	{
		Name: "listed events from the 21st on link to the next event",
		Report: `On a server holding a few dozen events, clicking the 21st event of the list, or any after it, opened
the event listed after it. The item links are built from a second query for the ids, twenty at a time, whose
second batch starts one row too late.`,
		Rules:  []string{"API-10"},
		Config: Config{Choices: Choices{Seed: 25}, Flaws: Flaws{ItemSelfFrom21st: true}},
		Today:  Caught{Scenarios: "API-10", Explorer: "API-10"},
		Shows: func(c *Client) error {
			page := c.read("/api/events?per_page=50")
			for i, item := range page.items() {
				if got := c.read(resolveLink(page.url, item, "self")); got.doc["id"] != item["id"] {
					return c.errorIf(i != 20, "listed event %d is the first whose self link leads to another event", i+1)
				}
			}
			return c.errorIf(true, "the self link of every listed event leads to that event")
		},
	},
	{
		Name: "a refresh slides the refresh token's expiry",
		Report: `A user who opened the app once a day stayed logged in for weeks: each refresh gives the refresh
token a new hour to live, where it should stop working 3600 s after it was issued. The token store's entries are
kept with a time to live that is reset whenever an entry is read.`,
		Rules:  []string{"LIM-2"},
		Config: Config{Flaws: Flaws{RefreshSlidesExpiry: true}},
		Today:  Caught{Scenarios: "", Explorer: ""},
		Shows: func(c *Client) error {
			refresh := c.refreshToken()
			c.clock.Add(3000 * time.Second)
			a := c.refresh(refresh)
			c.failIf(a.status != http.StatusOK, "a refresh 3000 s after issue answered %d", a.status)
			c.clock.Add(1000 * time.Second)
			a = c.refresh(refresh)
			return c.errorIf(a.status != http.StatusOK, "a refresh 4000 s after issue answered %d: the refresh token expired", a.status)
		},
	},
}

// createsAnonymouslyAt shows a creation without a token, sent to path,
// that is answered with success and lists the event.
func createsAnonymouslyAt(path string) func(c *Client) error {
	return func(c *Client) error {
		name := "Posted without a token to " + path
		a := c.send(http.MethodPost, path, otherEventJSON(name, "Room 4"), asJSON()...)
		return listedAfter(c, a, name, "POST "+path+" without a token")
	}
}

// createsWith shows a creation taken with the Authorization header auth,
// which holds no valid token.
func createsWith(c *Client, auth string) error {
	name := "Posted with a token nobody was issued"
	a := c.send(http.MethodPost, "/api/events", otherEventJSON(name, "Room 4"), asJSON("Authorization", auth)...)
	return listedAfter(c, a, name, "POST /api/events with a token nobody was issued")
}

// together runs n calls of f at once, and returns their results in order.
func together[T any](n int, f func(i int) T) []T {
	out := make([]T, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			out[i] = f(i)
		})
	}
	close(start)
	wg.Wait()
	return out
}

// listAt shows that address, the self link of what, leads to the list.
func listAt(c *Client, address, what string) error {
	got := c.read(address)
	_, list := got.doc["_embedded"]
	return c.errorIf(!list, "the self link of %s leads to %v, not to the list", what, got.doc["id"])
}
