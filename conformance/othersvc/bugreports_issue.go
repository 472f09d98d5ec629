package othersvc

import (
	"errors"
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
			a, put, err := c.createdThenUpdated("Room 5")
			if err != nil {
				return err
			}
			got, err := c.read(a.link("self"))
			if err != nil {
				return err
			}
			if put.status != http.StatusOK || got.text("name") != "After" {
				return fmt.Errorf("the update answered %d and the event reads back named %q", put.status, got.text("name"))
			}
			if put.text("name") != "Before" {
				return fmt.Errorf("the answer to the update shows the name %q", put.text("name"))
			}
			return nil
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
			got, err := c.readBack("Where am I")
			if err != nil {
				return err
			}
			if _, list := got.doc["_embedded"]; !list {
				return fmt.Errorf("the self link of the creation leads to %v, not to the list", got.doc["id"])
			}
			return nil
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
			token, err := c.user()
			if err != nil {
				return err
			}
			for try := range 5 {
				names := []string{fmt.Sprintf("First %d", try), fmt.Sprintf("Second %d", try)}
				answers, err := together(len(names), func(i int) (*Answer, error) { return c.create(token, names[i]) })
				if err != nil {
					return err
				}
				if answers[0].doc["id"] != answers[1].doc["id"] {
					continue
				}
				listed, err := c.names()
				if err != nil {
					return err
				}
				if !slices.Contains(listed, names[0]) || !slices.Contains(listed, names[1]) {
					return nil
				}
			}
			return errors.New("five pairs of creations at once were given ids of their own, and all were listed")
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
			page, err := c.read("/api/events?per_page=50")
			if err != nil {
				return err
			}
			for i, item := range page.items() {
				got, err := c.read(resolveLink(page.url, item, "self"))
				if err != nil {
					return err
				}
				if got.doc["id"] != item["id"] {
					if i != 20 {
						return fmt.Errorf("listed event %d is the first whose self link leads to another event", i+1)
					}
					return nil
				}
			}
			return errors.New("the self link of every listed event leads to that event")
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
			_, refresh, err := c.login(c.Creds.Username, c.Creds.Password)
			if err != nil {
				return err
			}
			c.clock.Add(3000 * time.Second)
			if a, err := c.refresh(refresh); err != nil || a.status != http.StatusOK {
				return fmt.Errorf("a refresh 3000 s after issue failed (%v)", err)
			}
			c.clock.Add(1000 * time.Second)
			a, err := c.refresh(refresh)
			if err != nil {
				return err
			}
			if a.status != http.StatusOK {
				return fmt.Errorf("a refresh 4000 s after issue answered %d: the refresh token expired", a.status)
			}
			return nil
		},
	},
}

// createsAnonymouslyAt shows a creation without a token, sent to path,
// that is answered with success and lists the event.
func createsAnonymouslyAt(path string) func(c *Client) error {
	return func(c *Client) error {
		name := "Posted without a token to " + path
		a, err := c.send(http.MethodPost, path, otherEventJSON(name, "Room 4"), asJSON()...)
		if err != nil {
			return err
		}
		listed, err := c.names()
		if err != nil {
			return err
		}
		if a.status < 200 || a.status > 299 || !slices.Contains(listed, name) {
			return fmt.Errorf("POST %s without a token answered %d, and the event is not listed", path, a.status)
		}
		return nil
	}
}

// createsWith shows a creation taken with the Authorization header auth,
// which holds no valid token.
func createsWith(c *Client, auth string) error {
	name := "Posted with a token nobody was issued"
	a, err := c.send(http.MethodPost, "/api/events", otherEventJSON(name, "Room 4"), asJSON("Authorization", auth)...)
	if err != nil {
		return err
	}
	if listed, err := c.names(); err != nil || a.status < 200 || a.status > 299 || !slices.Contains(listed, name) {
		return fmt.Errorf("POST /api/events with a token nobody was issued answered %d, and the event is not listed (%v)", a.status, err)
	}
	return nil
}

// together runs n calls of f at once, and returns their answers in order.
func together(n int, f func(i int) (*Answer, error)) ([]*Answer, error) {
	answers, errs := make([]*Answer, n), make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			answers[i], errs[i] = f(i)
		})
	}
	close(start)
	wg.Wait()
	return answers, errors.Join(errs...)
}
