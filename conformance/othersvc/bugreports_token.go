package othersvc

import (
	"fmt"
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
			a, err := c.tokenRequest(url.Values{"grant_type": {"password"}, "username": {c.Creds.Username, c.Creds.OtherUsername}, "password": {c.Creds.Password}})
			if err != nil {
				return err
			}
			return actsForOther(c, a)
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
			_, refresh, err := c.login(c.Creds.Username, c.Creds.Password)
			if err != nil {
				return err
			}
			a, err := c.tokenRequest(url.Values{"grant_type": {"refresh_token"}, "token": {refresh}, "username": {c.Creds.OtherUsername}})
			if err != nil {
				return err
			}
			return actsForOther(c, a)
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
			_, _, err := c.login(c.Creds.Username, c.Creds.Password+"x")
			return err
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
			_, _, err := c.login(c.Creds.Username, swapCase(c.Creds.Password))
			return err
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
			token, err := c.user()
			if err != nil {
				return err
			}
			return createsWith(c, "Bearer "+swapCase(token))
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
			_, refresh, err := c.login(c.Creds.Username, c.Creds.Password)
			if err != nil {
				return err
			}
			a, err := c.tokenRequest(url.Values{"grant_type": {"refresh_token"}, "token": {swapCase(refresh)}})
			if err != nil {
				return err
			}
			if a.status != http.StatusOK {
				return fmt.Errorf("a refresh with the refresh token's case swapped answered %d", a.status)
			}
			return nil
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
			a, err := c.tokenRequest(url.Values{"grant_type": {"password"}, "username": {c.Creds.Username}, "password": {c.Creds.Password}, "scope": {"read write admin"}})
			if err != nil {
				return err
			}
			if !strings.Contains(a.text("scope"), "admin") {
				return fmt.Errorf("the token's scope is %q", a.text("scope"))
			}
			return nil
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
			token, err := c.user()
			if err != nil {
				return err
			}
			first, err := c.post(token, `{"name":"First","startsAt":"2026-11-25T10:00:00+01:00"}`)
			if err != nil {
				return err
			}
			second, err := c.post(token, `{"id":"`+first.text("id")+`","name":"Second","startsAt":"2026-11-25T10:00:00+01:00"}`)
			if err != nil {
				return err
			}
			if second.text("id") != first.text("id") {
				return fmt.Errorf("the second creation made %q, not the first's %q", second.text("id"), first.text("id"))
			}
			return nil
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
			a, err := c.userPosts(`{"id":"ev-4242","name":"Imported","startsAt":"2026-11-25T10:00:00+01:00"}`)
			if err != nil {
				return err
			}
			if a.text("id") != "ev-4242" {
				return fmt.Errorf("the creation's id is %q", a.text("id"))
			}
			return nil
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
			a, err := c.userPosts(`{"name":"Stadium","startsAt":"2026-11-25T10:00:00+01:00","seats":3000000000}`)
			if err != nil {
				return err
			}
			if seats, _ := a.doc["seats"].(float64); seats != -1294967296 {
				return fmt.Errorf("the creation shows %v seats", a.doc["seats"])
			}
			return nil
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
			a, err := c.userPosts(`{"name":"Cleared","startsAt":"2026-11-25T10:00:00+01:00","venue":null}`)
			if err != nil {
				return err
			}
			if v := a.text("venue"); v != "null" {
				return fmt.Errorf("the venue sent as null reads back as %q", v)
			}
			return nil
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
	if a.status != http.StatusOK || token == "" {
		return fmt.Errorf("the grant answered %d without a token", a.status)
	}
	other, _, err := c.login(c.Creds.OtherUsername, c.Creds.OtherPass)
	if err != nil {
		return err
	}
	theirs, err := c.create(other, "Theirs")
	if err != nil {
		return err
	}
	got, err := c.read(theirs.link("self"), bearer(token)...)
	if err != nil {
		return err
	}
	if got.link("update-event") == "" {
		return fmt.Errorf("the token is not offered the update of the other user's event: it acts for the user")
	}
	return nil
}
