package steps

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"eventsvc/conformance/audit"
)

// Spellings of an address (spec AUTH-3, AUTH-4): the address the API gave,
// written another way that routers and proxies commonly fold onto it. The
// suite never builds an address; it writes one it was given another way.

// addressSpellings are the ways to write an address, by the phrase that names
// each in the features. Each takes the path as it goes on the wire
// (escaped) and gives it written that way, or false when it cannot.
var addressSpellings = map[string]func(path string) (string, bool){
	// A trailing slash, or none where the address has one.
	"with a trailing slash": func(p string) (string, bool) {
		if strings.HasSuffix(p, "/") && p != "/" {
			return strings.TrimSuffix(p, "/"), true
		}
		return p + "/", true
	},
	// The slash after the first segment doubled: /api//events.
	"with a doubled slash": func(p string) (string, bool) { return afterFirstSegment(p, "/"), true },
	// The first letter percent-encoded, which RFC 3986 §2.3 and §6.2.2.2
	// say is the same address: /%61pi/events.
	"with a letter percent-encoded": encodeFirstLetter,
	// A "." segment after the first segment: /api/./events.
	`with a "." segment`: func(p string) (string, bool) { return afterFirstSegment(p, "/."), true },
	// A made-up segment and a ".." that undoes it: /api/x/../events.
	`with a ".." segment`: func(p string) (string, bool) { return afterFirstSegment(p, "/x/.."), true },
	// Every letter in upper case: /API/EVENTS, another path to RFC 3986
	// but the same one to a router that ignores case.
	"in upper case": func(p string) (string, bool) {
		up := strings.ToUpper(p)
		return up, up != p
	},
}

// spell writes address the way phrase says, its path only.
func spell(address, phrase string) (string, error) {
	how, ok := addressSpellings[phrase]
	if !ok {
		return "", fmt.Errorf("no such spelling of an address: %q", phrase)
	}
	u, err := url.Parse(address)
	if err != nil {
		return "", fmt.Errorf("the address %q: %w", address, err)
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	spelled, ok := how(p)
	if !ok || spelled == p {
		return "", fmt.Errorf("the address %q cannot be written %s", address, phrase)
	}
	if u.Path, err = url.PathUnescape(spelled); err != nil {
		return "", fmt.Errorf("the address %q written %s: %w", address, phrase, err)
	}
	u.RawPath, u.Fragment, u.RawFragment = spelled, "", ""
	if u.EscapedPath() != spelled {
		return "", fmt.Errorf("the address %q cannot be written %s", address, phrase)
	}
	return u.String(), nil
}

// afterFirstSegment inserts text after the first segment of the path p, or
// before it when it is the only one.
func afterFirstSegment(p, text string) string {
	if i := strings.Index(p[1:], "/"); i >= 0 {
		return p[:i+1] + text + p[i+1:]
	}
	return text + p
}

// encodeFirstLetter percent-encodes the first ASCII letter of the path p,
// in upper-case hexadecimal (RFC 3986 §2.1), leaving the hexadecimal
// digits of the percent-encodings it holds as they are.
func encodeFirstLetter(p string) (string, bool) {
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '%':
			i += 2
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			return fmt.Sprintf("%s%%%02X%s", p[:i], c, p[i+1:]), true
		}
	}
	return p, false
}

// The steps that write to an address another way, and check that nothing
// came of it.
func (s *scenario) registerSpellingSteps(sc stepRegistry) {
	sc.Step(`^`+actor+` sends a new event to the event list's address written (.+)$`, s.sendNewEventSpelled)
	sc.Step(`^`+actor+` sends an update of the event to its address written (.+), renaming it "([^"]*)"$`, func(who, phrase, name string) error {
		return s.atEventSpelled(who, http.MethodPut, phrase, s.updateBody(map[string]any{"name": name}))
	})
	sc.Step(`^`+actor+` sends PATCH to the event's address written (.+), renaming it "([^"]*)"$`, func(who, phrase, name string) error {
		return s.atEventSpelled(who, http.MethodPatch, phrase, map[string]any{"name": s.runName(name)})
	})
	sc.Step(`^`+actor+` sends DELETE to the event's address written (.+)$`, func(who, phrase string) error {
		return s.atEventSpelled(who, http.MethodDelete, phrase, nil)
	})
	sc.Step(`^the write is refused$`, s.writeRefused)
	sc.Step(`^the event is still there with its original name$`, s.eventStillThere)
}

// sendNewEventSpelled posts a new event to the address of the event list,
// as the API root gives it, written the way phrase says, on who's behalf.
func (s *scenario) sendNewEventSpelled(who, phrase string) error {
	body, address, err := s.newEventToList()
	if err != nil {
		return err
	}
	spelled, err := spell(address, phrase)
	if err != nil {
		return err
	}
	return s.whenAs(who, kindCreated, s.at(http.MethodPost, spelled).WithJSON(body))
}

// atEventSpelled sends method, with body unless it is nil, to the address
// of the event the scenario created, as its creation gave it, written the
// way phrase says, on who's behalf.
func (s *scenario) atEventSpelled(who, method, phrase string, body map[string]any) error {
	address, err := s.eventAddress()
	if err != nil {
		return err
	}
	spelled, err := spell(address, phrase)
	if err != nil {
		return err
	}
	req := s.at(method, spelled)
	if body != nil {
		req = req.WithJSON(body)
	}
	return s.whenAs(who, kindUpdated, req)
}

// writeRefused checks that the answer to a write without a valid token is
// not a success. Any other status refuses it: which one the specification
// leaves open, and at an address written another way it may come from a
// router that knows no such address (404, 405) or a firewall that takes
// none (400) as well as from the check of the token (401, 403). A redirect
// (3xx) carries nothing out either (RFC 9110 §15.4): it asks the client to
// send another request, which the suite does not follow, and that request
// would meet the same rules at its own address. What the write changed is
// checked by reading the event list or the event (a 303 that follows a
// creation is caught there).
func (s *scenario) writeRefused() error {
	x, err := s.theAnswer()
	if err == nil && x.status >= 200 && x.status <= 299 {
		err = s.failf(x, "%s without a valid token was answered %d, a success", x.method, x.status)
	}
	return err
}

// eventStillThere reads the event the scenario created with a probe,
// anonymously, and checks that it is there with the name it was created
// with: no write refused in the scenario deleted or renamed it.
func (s *scenario) eventStillThere() error {
	_, x, err := s.readAnonymously(s.eventAddress)
	if err != nil {
		return err
	}
	x.who, x.kind = "a caller", kindEvent
	switch {
	case x.status == http.StatusNotFound || x.status == http.StatusGone:
		return s.failf(x, "the event is gone (status %d): a write refused in this scenario deleted it", x.status)
	case x.status != http.StatusOK:
		return s.unreadable(x, s.failf(x, "reading the event back: status %d", x.status))
	}
	name, err := x.text("name")
	if err != nil {
		return unmet(s.about(x, err), audit.ReadsBackAsWritten)
	}
	if name != s.events.name {
		return s.failf(x, "the event is named %q, not %q: a write refused in this scenario renamed it", plainName(name), plainName(s.events.name))
	}
	return nil
}
