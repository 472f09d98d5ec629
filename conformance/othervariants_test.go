package conformance

import (
	"fmt"
	"net/http"
	"testing"
)

// otherVariant is a correct variant of the second implementation. shows,
// when set, shows what it chooses: nil against the variant, an error
// against the second implementation as described
// (TestVariantsShowTheirChoice).
type otherVariant struct {
	name  string
	c     otherConfig
	shows func(c *otherClient) error
}

// otherVariants are the second implementation and its correct variants:
// each obeys the specification and chooses where it is silent, some in
// the neighbourhood of a bug report, where a careless check would take the
// choice for the fault.
func otherVariants() []otherVariant {
	secretWithPlus := otherCreds
	secretWithPlus.ClientSecret = "other+secret/123"
	return []otherVariant{
		{"as described", otherConfig{}, nil},
		{"list items in a top-level array", otherConfig{choices: otherChoices{listAsArray: true}}, nil},
		{"a page's self link is the address asked for", otherConfig{choices: otherChoices{selfAsAsked: true}}, nil},
		{"documentation page without the optional html tag", otherConfig{choices: otherChoices{bareHTML: true}}, nil},
		{"documentation page in ISO-8859-1", otherConfig{choices: otherChoices{latin1Docs: true}}, nil},
		{"client secret with + and / compared as sent", otherConfig{creds: secretWithPlus}, nil},
		{"500 events there before the run", otherConfig{choices: otherChoices{seed: 500}}, nil},
		{"refresh tokens rotated at each refresh", otherConfig{choices: otherChoices{rotate: true}}, nil},
		{"times kept and shown in UTC", otherConfig{choices: otherChoices{utcTimes: true}}, nil},
		{"an update answered 200 with the event", otherConfig{choices: otherChoices{putAnswersEvent: true}}, answersUpdates},
		{"a creation answered 201 with the event's Location", otherConfig{choices: otherChoices{created201: true}}, locatesCreations},
		{"router and filter alike fold /api//events/ and /api/./events", otherConfig{choices: otherChoices{foldPaths: true}}, foldsPaths},
		{"a path written another way refused with 400", otherConfig{choices: otherChoices{refuseOddPaths: true}}, refusesOddPaths},
	}
}

// TestVariantsShowTheirChoice: each correct variant with a shows function
// answers as it chooses, and the second implementation as described does
// not, so that a variant that passes the suite's checks passes them with
// its choice made.
func TestVariantsShowTheirChoice(t *testing.T) {
	for _, v := range otherVariants() {
		if v.shows == nil {
			continue
		}
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			if err := v.shows(newOtherClient(t, v.c)); err != nil {
				t.Fatalf("the choice does not show: %v", err)
			}
			if err := v.shows(newOtherClient(t, otherConfig{})); err == nil {
				t.Fatal("the second implementation as described shows the choice too")
			}
		})
	}
}

// answersUpdates shows an update answered 200 with the event as stored.
func answersUpdates(c *otherClient) error {
	token, err := c.user()
	if err != nil {
		return err
	}
	a, err := c.create(token, "Before")
	if err != nil {
		return err
	}
	put, err := c.send(http.MethodPut, a.link("self"), otherEventJSON("After", "Room 5"), asJSON(bearer(token)...)...)
	if err != nil {
		return err
	}
	if put.status != http.StatusOK || put.text("name") != "After" {
		return fmt.Errorf("the update answered %d, with the name %q", put.status, put.text("name"))
	}
	return nil
}

// locatesCreations shows a creation answered 201, with a Location that
// leads to the event.
func locatesCreations(c *otherClient) error {
	token, err := c.user()
	if err != nil {
		return err
	}
	a, err := c.create(token, "Located")
	if err != nil {
		return err
	}
	if a.status != http.StatusCreated || a.header.Get("Location") == "" {
		return fmt.Errorf("the creation answered %d with Location %q", a.status, a.header.Get("Location"))
	}
	got, err := c.read(a.header.Get("Location"))
	if err != nil {
		return err
	}
	if got.doc["id"] != a.doc["id"] {
		return fmt.Errorf("the Location leads to %v, not to %v", got.doc["id"], a.doc["id"])
	}
	return nil
}

// foldsPaths shows a creation with a token on /api//events/ and
// /api/./events, and one without a token there refused.
func foldsPaths(c *otherClient) error {
	token, err := c.user()
	if err != nil {
		return err
	}
	for _, path := range []string{"/api//events/", "/api/./events"} {
		a, err := c.send(http.MethodPost, path, otherEventJSON("Folded", "Room 4"), asJSON(bearer(token)...)...)
		if err != nil {
			return err
		}
		if a.status/100 != 2 {
			return fmt.Errorf("POST %s with a token answered %d", path, a.status)
		}
		if a, err = c.send(http.MethodPost, path, otherEventJSON("Folded", "Room 4"), asJSON()...); err != nil {
			return err
		}
		if a.status/100 == 2 {
			return fmt.Errorf("POST %s without a token answered %d", path, a.status)
		}
	}
	return nil
}

// refusesOddPaths shows a read and a creation with a token on paths
// written another way refused with 400.
func refusesOddPaths(c *otherClient) error {
	token, err := c.user()
	if err != nil {
		return err
	}
	for _, path := range []string{"/api/events/", "/api//events", "/api/./events", "/api/%65vents"} {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			a, err := c.send(method, path, otherEventJSON("Odd", "Room 4"), asJSON(bearer(token)...)...)
			if err != nil {
				return err
			}
			if a.status != http.StatusBadRequest {
				return fmt.Errorf("%s %s answered %d", method, path, a.status)
			}
		}
	}
	return nil
}
