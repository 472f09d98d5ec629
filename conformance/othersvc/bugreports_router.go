package othersvc

import (
	"net/http"
	"net/url"
	"slices"
)

// routerReports are faults of a router that reads a path, or a token, in
// more ways than the security filter in front of it.
var routerReports = []BugReport{
	{
		Name: "a creation without a token on /api//events (double slash)",
		Report: `Events appeared that nobody had created: the access log showed anonymous POSTs to /api//events. The
router collapses repeated slashes before matching a route; the security filter matches the path as sent, so its
rule for /api/events does not apply, and the creation runs as anonymous; so does one to //api/events, which is not
even under /api/ as written.`,
		Rules:  []string{"AUTH-3", "AUTH-4", "SVC-5"},
		Config: Config{Flaws: Flaws{DoubleSlash: true}},
		Today:  Caught{Scenarios: "AUTH-3", Explorer: "AUTH-3 AUTH-4"},
		Shows:  createsAnonymouslyAt("/api//events"),
	},
	{
		Name: "a creation without a token on /api/%65vents (percent-encoded letter)",
		Report: `A scanner created an event without a token by sending POST /api/%65vents. The router decodes the path
before it matches a route, as RFC 3986 §2.3 allows for unreserved characters; the security filter matches the
path still encoded, finds no rule for it, and lets the request through, at /%61pi/events too, which is not even
under /api/ as written.`,
		Rules:  []string{"AUTH-3", "AUTH-4", "SVC-5"},
		Config: Config{Flaws: Flaws{EncodedLetters: true}},
		Today:  Caught{Scenarios: "AUTH-3", Explorer: "AUTH-3 AUTH-4"},
		Shows:  createsAnonymouslyAt("/api/%65vents"),
	},
	{
		Name: "a creation without a token on /api/./events (dot segment)",
		Report: `A client library that does not remove dot segments posted to /api/./events, and the event was created
although its token had been dropped on the way. The router cleans the path (dot segments, repeated and trailing
slashes) before matching; the security filter matches it as sent, /./api/events too, which is not even under /api/
as written.`,
		Rules:  []string{"AUTH-3", "AUTH-4", "SVC-5"},
		Config: Config{Flaws: Flaws{DotSegments: true}},
		Today:  Caught{Scenarios: "AUTH-3", Explorer: "AUTH-3 AUTH-4"},
		Shows:  createsAnonymouslyAt("/api/./events"),
	},
	{
		Name: "a creation without a token on /api/Events (another case)",
		Report: `POST /api/Events without a token created an event. The router matches paths without regard to case;
the security filter is case-sensitive, so its rule for /api/events does not match /api/Events, nor /API/EVENTS,
which is not even under /api/ as written (the family of Spring's CVE-2016-5007).`,
		Rules:  []string{"AUTH-3", "AUTH-4", "SVC-5"},
		Config: Config{Flaws: Flaws{CaseFolded: true}},
		Today:  Caught{Scenarios: "AUTH-4", Explorer: "AUTH-3 AUTH-4"},
		Shows:  createsAnonymouslyAt("/api/Events"),
	},
	{
		Name: "the token taken from an access_token form field",
		Report: `An HTML form posted with the token in a hidden field, and no Authorization header, created an event.
The bearer middleware also reads a form-encoded body's access_token field (RFC 6750 §2.2), which the OAuth library
allows by default, and the creation handler binds a form as it binds JSON.`,
		Rules:  []string{"SVC-4"},
		Config: Config{Flaws: Flaws{FormToken: true}},
		Today:  Caught{Scenarios: "SVC-4", Explorer: "SVC-4"},
		Shows: func(c *Client) error {
			name := "Posted with a form field"
			form := url.Values{"name": {name}, "startsAt": {"2026-11-25T10:00:00+01:00"}, "access_token": {c.user()}}
			a := c.send(http.MethodPost, "/api/events", form.Encode(), "Content-Type", "application/x-www-form-urlencoded")
			return listedAfter(c, a, name, "a creation with a form with the token in access_token")
		},
	},
	{
		Name: "the token taken from an access_token cookie",
		Report: `Our single-page front end keeps the access token in a cookie named access_token; a page on another
site that posted to the API with the user's cookies created an event in the user's name. The API reads the token
from that cookie when the Authorization header is missing.`,
		Rules:  []string{"SVC-4"},
		Config: Config{Flaws: Flaws{CookieToken: true}},
		Today:  Caught{Scenarios: "SVC-4", Explorer: "SVC-4"},
		Shows: func(c *Client) error {
			name := "Posted with a cookie"
			a := c.send(http.MethodPost, "/api/events", otherEventJSON(name, "Room 4"), asJSON("Cookie", "access_token="+c.user())...)
			return listedAfter(c, a, name, "a creation with a cookie access_token")
		},
	},
	{
		Name: "the token taken from the access_token query parameter of an update",
		Report: `Updates were made with the token in the address (PUT /api/events/7?access_token=…), which our proxy
logs. The update route, added later than the others, authenticates with the OAuth library's default extractor,
which also reads the access_token query parameter (RFC 6750 §2.3); the other routes read the header only.`,
		Rules:  []string{"SVC-4"},
		Config: Config{Flaws: Flaws{QueryTokenOnUpdate: true}},
		Today:  Caught{Scenarios: "SVC-4", Explorer: "SVC-4"},
		Shows: func(c *Client) error {
			token, a := c.userCreated("Before")
			put := c.send(http.MethodPut, a.link("self")+"?access_token="+url.QueryEscape(token), otherEventJSON("Renamed by query", "Room 4"), asJSON()...)
			got := c.read(a.link("self"))
			return c.errorIf(got.text("name") != "Renamed by query", "an update with the token in the query answered %d and changed nothing", put.status)
		},
	},
}

// listedAfter shows an event named name, listed after request, a creation
// without a valid Authorization header, was answered a with success.
func listedAfter(c *Client, a *Answer, name, request string) error {
	listed := c.names()
	return c.errorIf(a.status/100 != 2 || !slices.Contains(listed, name), "%s answered %d, and the event is not listed", request, a.status)
}
