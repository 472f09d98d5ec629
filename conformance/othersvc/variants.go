package othersvc

import (
	"net/http"
)

// Variant is a correct variant of the second implementation. shows,
// when set, shows what it chooses: nil against the variant, an error
// against the second implementation as described
// (TestVariantsShowTheirChoice).
type Variant struct {
	Name   string
	Config Config
	Shows  func(c *Client) error
}

// Variants are the second implementation and its correct variants:
// each obeys the specification and chooses where it is silent, some in
// the neighbourhood of a bug report, where a careless check would take the
// choice for the fault.
func Variants() []Variant {
	secretWithPlus := Creds
	secretWithPlus.ClientSecret = "other+secret/123"
	return []Variant{
		{"as described", Config{}, nil},
		{"list items in a top-level array", Config{Choices: Choices{ListAsArray: true}}, nil},
		{"a page's self link is the address asked for", Config{Choices: Choices{SelfAsAsked: true}}, nil},
		{"documentation page without the optional html tag", Config{Choices: Choices{BareHTML: true}}, nil},
		{"documentation page in ISO-8859-1", Config{Choices: Choices{Latin1Docs: true}}, nil},
		{"client secret with + and / compared as sent", Config{Creds: secretWithPlus}, nil},
		{"500 events there before the run", Config{Choices: Choices{Seed: 500}}, nil},
		{"refresh tokens rotated at each refresh", Config{Choices: Choices{Rotate: true}}, nil},
		{"times kept and shown in UTC", Config{Choices: Choices{UtcTimes: true}}, nil},
		{"an update answered 200 with the event", Config{Choices: Choices{PutAnswersEvent: true}}, answersUpdates},
		{"a creation answered 201 with the event's Location", Config{Choices: Choices{Created201: true}}, locatesCreations},
		{"router and filter alike fold /api//events/ and /api/./events", Config{Choices: Choices{FoldPaths: true}}, foldsPaths},
		{"a path written another way refused with 400", Config{Choices: Choices{RefuseOddPaths: true}}, refusesOddPaths},
		{"whole numbers of seats kept as doubles, fractions refused", Config{EventBody: SeatsBody}, nil},
		{"values read as Jackson reads them, an update answered with what was stored", Config{EventBody: SeatsBody,
			Choices: Choices{CoerceScalars: true, PutAnswersEvent: true}}, coercesScalars},
	}
}

// answersUpdates shows an update answered 200 with the event as stored.
func answersUpdates(c *Client) error {
	_, put := c.createdThenUpdated("Room 5")
	return c.errorIf(put.status != http.StatusOK || put.text("name") != "After",
		"the update answered %d, with the name %q", put.status, put.text("name"))
}

// locatesCreations shows a creation answered 201, with a Location that
// leads to the event.
func locatesCreations(c *Client) error {
	a := c.create(c.user(), "Located")
	c.failIf(a.status != http.StatusCreated || a.header.Get("Location") == "",
		"the creation answered %d with Location %q", a.status, a.header.Get("Location"))
	got := c.read(a.header.Get("Location"))
	return c.errorIf(got.doc["id"] != a.doc["id"], "the Location leads to %v, not to %v", got.doc["id"], a.doc["id"])
}

// foldsPaths shows a creation with a token on /api//events/ and
// /api/./events, and one without a token there refused.
func foldsPaths(c *Client) error {
	token := c.user()
	for _, path := range []string{"/api//events/", "/api/./events"} {
		a := c.send(http.MethodPost, path, otherEventJSON("Folded", "Room 4"), asJSON(bearer(token)...)...)
		c.failIf(a.status/100 != 2, "POST %s with a token answered %d", path, a.status)
		a = c.send(http.MethodPost, path, otherEventJSON("Folded", "Room 4"), asJSON()...)
		c.failIf(a.status/100 == 2, "POST %s without a token answered %d", path, a.status)
	}
	return c.Err()
}

// refusesOddPaths shows a read and a creation with a token on paths
// written another way refused with 400.
func refusesOddPaths(c *Client) error {
	token := c.user()
	for _, path := range []string{"/api/events/", "/api//events", "/api/./events", "/api/%65vents"} {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			a := c.send(method, path, otherEventJSON("Odd", "Room 4"), asJSON(bearer(token)...)...)
			c.failIf(a.status != http.StatusBadRequest, "%s %s answered %d", method, path, a.status)
		}
	}
	return c.Err()
}

// coercesScalars shows a creation that sent the seats as a text of
// digits and a fraction, and the venue as a number, answered with what
// was stored: the number of seats, cut, and the venue's text.
func coercesScalars(c *Client) error {
	a := c.userPosts(`{"name":"Coerced","startsAt":"2026-11-25T10:00:00+01:00","venue":42,"seats":"40.5"}`)
	seats, _ := a.doc["seats"].(float64)
	return c.errorIf(a.status/100 != 2 || seats != 40 || a.text("venue") != "42",
		"the creation answered %d with the seats %v and the venue %q", a.status, a.doc["seats"], a.text("venue"))
}
