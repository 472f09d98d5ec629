package othersvc

import (
	"net/http"
	"net/url"
	"strings"
)

// issuanceReports are faults of a token endpoint that issues a token for
// less than the exact credentials in a form-encoded POST, or for more
// than the client's scopes; and of a store that takes from a body what the
// service owns.
var issuanceReports = []BugReport{
	{
		Name: "the username sent twice: the password checked for the first, the token issued for the last",
		Report: `A security review found that a login form posting username twice, the user's own and then anyone's,
with the user's password, got a token of the second account. The authentication filter reads the first
username (getParameter); the code that builds the token reads the form into a map, where the last copy wins
(HTTP parameter pollution).`,
		Rules:  []string{"ACC-1"},
		Config: Config{Flaws: Flaws{UsernameLastWins: true}},
		Today:  Caught{Scenarios: "", Explorer: "ACC-1"},
		Shows: func(c *Client) error {
			return actsForOther(c, c.tokenRequest(url.Values{"grant_type": {"password"}, "username": {c.Creds.Username, c.Creds.OtherUsername}, "password": {c.Creds.Password}}))
		},
	},
	{
		Name: "a refresh grant that sends a username gets a token of that user",
		Report: `A refresh with a username in its form, which a client library adds to every request it sends to the
token endpoint, gave a token of that username's account. The refresh grant shares the password grant's
handler, which takes the username when the form has one.`,
		Rules:  []string{"TOK-8"},
		Config: Config{Flaws: Flaws{RefreshReadsUsername: true}},
		Today:  Caught{Scenarios: "", Explorer: "TOK-8"},
		Shows: func(c *Client) error {
			return actsForOther(c, c.tokenRequest(url.Values{"grant_type": {"refresh_token"}, "token": {c.refreshToken()}, "username": {c.Creds.OtherUsername}}))
		},
	},
	{
		Name: "the password is compared by its first characters",
		Report: `A user who typed a character too many after their password was let in. Passwords are checked
against a CHAR column of the stored password's width, as systems that hashed with crypt(3) read only the first
eight characters: "secretx" is "secret".`,
		Rules:  []string{"TOK-3"},
		Config: Config{Flaws: Flaws{PasswordPrefix: true}},
		Today:  Caught{Scenarios: "", Explorer: "TOK-3"},
		Shows: func(c *Client) error {
			c.login(c.Creds.Username, c.Creds.Password+"x")
			return c.Err()
		},
	},
	{
		Name: "the password is compared without regard to case",
		Report: `A password typed with Caps Lock on was taken. The accounts table compares passwords stored in clear
with the column's case-insensitive collation (MySQL's default), so "SECRET" is "secret".`,
		Rules:  []string{"TOK-3"},
		Config: Config{Flaws: Flaws{PasswordFolded: true}},
		Today:  Caught{Scenarios: "TOK-3", Explorer: ""},
		Shows: func(c *Client) error {
			c.login(c.Creds.Username, swapCase(c.Creds.Password))
			return c.Err()
		},
	},
	{
		Name: "the access token is looked up without regard to case",
		Report: `A request whose token had been upper-cased by a proxy still created an event. The tokens are random
bytes in base64url, whose letters' case carries half their entropy, and the tokens table keeps them in a column of
a case-insensitive collation (MySQL's default), so a token with its letters' case changed is the same token.`,
		Rules:  []string{"AUTH-3", "API-3"},
		Config: Config{Flaws: Flaws{TokenFolded: true}, Choices: Choices{OpaqueTokens: true}},
		Today:  Caught{Scenarios: "", Explorer: "AUTH-3"},
		Shows: func(c *Client) error {
			return createsWith(c, "Bearer "+swapCase(c.user()))
		},
	},
	{
		Name: "the refresh token is looked up without regard to case",
		Report: `A refresh token typed in by hand, with its letters' case changed, still gave new tokens. The
refresh tokens, random bytes in base64url, are kept in a column of a case-insensitive collation (MySQL's
default).`,
		Rules:  []string{"TOK-4"},
		Config: Config{Flaws: Flaws{RefreshFolded: true}, Choices: Choices{OpaqueTokens: true}},
		Today:  Caught{Scenarios: "", Explorer: "TOK-4"},
		Shows: func(c *Client) error {
			a := c.refresh(swapCase(c.refreshToken()))
			return c.errorIf(a.status != http.StatusOK, "a refresh with the refresh token's case swapped answered %d", a.status)
		},
	},
	{
		Name: "a token's scope is whatever the grant asked for",
		Report: `A token asked for with scope=admin came back with "scope": "admin". The endpoint copies the scope
asked for into the token without checking it against the client's registration (read, write).`,
		Rules:  []string{"CLI-4", "TOK-5"},
		Config: Config{Flaws: Flaws{ScopeAsAsked: true}},
		Today:  Caught{Scenarios: "", Explorer: "TOK-5"},
		Shows: func(c *Client) error {
			a := c.tokenRequest(url.Values{"grant_type": {"password"}, "username": {c.Creds.Username}, "password": {c.Creds.Password}, "scope": {"read write admin"}})
			return c.errorIf(!strings.Contains(a.text("scope"), "admin"), "the token's scope is %q", a.text("scope"))
		},
	},
	{
		Name: "a creation with an existing event's id updates that event",
		Report: `A client that re-sent an event it had read, id and all, as a new one changed the original instead,
whoever managed it. The handler binds the body to the entity, its id too, and the repository's save() updates the
row when an entity of that id exists; an id nobody has is ignored, so nothing odd shows with made-up ids.`,
		Rules:  []string{"API-6"},
		Config: Config{Flaws: Flaws{SaveByBodyID: true}},
		Today:  Caught{Scenarios: "", Explorer: "API-6"},
		Shows: func(c *Client) error {
			token := c.user()
			first := c.post(token, `{"name":"First","startsAt":"2026-11-25T10:00:00+01:00"}`)
			second := c.post(token, `{"id":"`+first.text("id")+`","name":"Second","startsAt":"2026-11-25T10:00:00+01:00"}`)
			return c.errorIf(second.text("id") != first.text("id"), "the second creation made %q, not the first's %q", second.text("id"), first.text("id"))
		},
	},
	{
		Name: "a creation takes the id its body sends",
		Report: `An import tool re-sent events it had read, ids and all, and each creation took the id it sent,
overwriting whatever event had it. The entity is bound from the request body whole (mass assignment, OWASP
API3:2023), its id too.`,
		Rules:  []string{"API-6"},
		Config: Config{Flaws: Flaws{IDFromBody: true}},
		Today:  Caught{Scenarios: "", Explorer: "API-6"},
		Shows: func(c *Client) error {
			a := c.userPosts(`{"id":"ev-4242","name":"Imported","startsAt":"2026-11-25T10:00:00+01:00"}`)
			return c.errorIf(a.text("id") != "ev-4242", "the creation's id is %q", a.text("id"))
		},
	},
}

// numberReports are faults of a store whose columns hold less than what
// a body may send.
var numberReports = []BugReport{
	{
		Name: "seats past 2147483647 wrap around",
		Report: `An event for a stadium, created with 3000000000 seats, showed -1294967296. The seats column is a
32-bit integer and the driver converts without a range check; the JSON decoder took the number as a double,
which holds it exactly.`,
		Rules:  []string{"API-6", "API-9"},
		Config: Config{Flaws: Flaws{SeatsInt32: true}, EventBody: SeatsBody},
		Today:  Caught{Scenarios: "", Explorer: "API-6 API-9"},
		Shows: func(c *Client) error {
			a := c.userPosts(`{"name":"Stadium","startsAt":"2026-11-25T10:00:00+01:00","seats":3000000000}`)
			seats, _ := a.doc["seats"].(float64)
			return c.errorIf(seats != -1294967296, "the creation shows %v seats", a.doc["seats"])
		},
	},
	{
		Name: "a venue sent as null reads back as the text \"null\"",
		Report: `Clearing an event's venue from our app, which sends "venue": null, left the venue showing "null". The
handler builds the row from the body with String(body.venue), which writes null as the text "null"; the
validation before it lets null through, as the venue is optional.`,
		Rules:  []string{"API-6", "API-9"},
		Config: Config{Flaws: Flaws{NullAsText: true}},
		Today:  Caught{Scenarios: "", Explorer: "API-6"},
		Shows: func(c *Client) error {
			v := c.userPosts(`{"name":"Cleared","startsAt":"2026-11-25T10:00:00+01:00","venue":null}`).text("venue")
			return c.errorIf(v != "null", "the venue sent as null reads back as %q", v)
		},
	},
}

// swapCase is s with the case of its ASCII letters swapped.
func swapCase(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case 'a' <= r && r <= 'z':
			return r - 'a' + 'A'
		case 'A' <= r && r <= 'Z':
			return r - 'A' + 'a'
		}
		return r
	}, s)
}

// actsForOther shows that the access token of a, a token answer for the
// user, acts for the other user: it is offered "update-event" on an event
// the other user created.
func actsForOther(c *Client, a *Answer) error {
	token := a.text("access_token")
	c.failIf(a.status != http.StatusOK || token == "", "the grant answered %d without a token", a.status)
	theirs := c.create(c.other(), "Theirs")
	got := c.read(theirs.link("self"), bearer(token)...)
	return c.errorIf(got.link("update-event") == "", "the token is not offered the update of the other user's event: it acts for the user")
}
