package steps

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/hal"
)

// Walking through the event list: reading it page by page by its "next"
// links, anonymously or on a caller's behalf, and keeping the pages.

// maxPages bounds a walk through the event list.
const maxPages = 1000

// maxPagingEvents bounds the events a scenario creates to give the event
// list a second page.
const maxPagingEvents = 250

// page is one page of the event list.
type page struct {
	address string            // the address it was read at
	links   map[string]string // resolved
	items   []string          // each listed event, as its resolved self link or its JSON
	docs    []map[string]any  // each listed event
	x       *exchange         // the answer it was read from
}

func (s *scenario) registerWalkSteps(sc stepRegistry) {
	sc.Step(`^the event list has more than one page$`, s.listHasTwoPages)
	sc.Step(`^`+actor+` walks through the event list by following its "next" links$`, func(who string) error { return s.walkPages(who, s.listStart) })
}

// readPage reads one page of the list with a probe, anonymously.
func (s *scenario) readPage(address string) (page, *exchange, error) {
	return s.readPageAs("a caller", address)
}

// readPageAs reads one page of the list with a probe, on who's behalf.
func (s *scenario) readPageAs(who, address string) (page, *exchange, error) {
	x, err := s.sendBy(who, s.at("GET", address))
	if err != nil {
		return page{}, nil, err
	}
	x.who, x.kind = who, kindList
	if x.status != http.StatusOK {
		// Anyone may read the list, a caller with a token too.
		e := audit.ReadOpen(true, who == anonymous)
		if holdsToken(who) {
			e = audit.ListOpenToTokenHolder
		}
		return page{}, x, unmetOnTheWay(s.failf(x, "a page of the event list, read by %s, answered %d", who, x.status), e)
	}
	p := page{address: address, links: map[string]string{}, x: x}
	for rel, href := range x.links() {
		p.links[rel] = x.resolve(href)
	}
	obj, _ := x.json.(map[string]any)
	for _, item := range hal.Items(obj) {
		key := ""
		if self := hal.Links(item)["self"]; self != "" {
			key = x.resolve(self)
		} else {
			b, _ := json.Marshal(item)
			key = string(b)
		}
		p.items = append(p.items, key)
		p.docs = append(p.docs, item)
	}
	return p, x, nil
}

// eachPage reads the event list page by page, anonymously, following
// "next", and calls fn with each page. It fails when "next" leads to a page
// already read.
func (s *scenario) eachPage(fn func(page, *exchange) error) error {
	address, err := s.eventsAddress()
	if err != nil {
		return err
	}
	return s.eachPageFrom("a caller", address, fn)
}

// seekInList reads the event list as eachPage does until see, called
// with each page, says it found what it seeks; it tells whether it did.
func (s *scenario) seekInList(see func(page, *exchange) (bool, error)) (bool, error) {
	errFound := errors.New("found")
	err := s.eachPage(func(p page, x *exchange) error {
		found, err := see(p, x)
		if err == nil && found {
			return errFound
		}
		return err
	})
	if err == errFound {
		return true, nil
	}
	return false, err
}

// eachPageFrom is eachPage on who's behalf, from the page at address. A
// walk that goes on past what the list shows it holds (hal.Walk) stops
// there, failing API-5.
func (s *scenario) eachPageFrom(who, address string, fn func(page, *exchange) error) error {
	var seen []string
	var walk hal.Walk
	prevAt := -1
	for address != "" {
		if len(seen) == maxPages {
			return fmt.Errorf("the event list has more than %d pages; stopped following \"next\"", maxPages)
		}
		p, x, err := s.readPageAs(who, address)
		if err != nil {
			return err
		}
		if err := fn(p, x); err != nil {
			return err
		}
		doc, _ := x.json.(map[string]any)
		// A page read while the run wrote may list what a page before
		// did: it does not count against the walk.
		moving := len(seen) > 0 && s.scope != nil && s.scope.Moving(prevAt, x.at)
		prevAt = x.at
		if why := walk.Page(p.items, doc, moving); why != "" {
			return unmetOnTheWay(s.failf(x, "stopped following \"next\" at page %d, %s: %s", walk.Pages(), address, why), audit.PagingLinks)
		}
		seen = append(seen, address)
		address = p.links["next"]
		if slices.Contains(seen, address) {
			return unmetOnTheWay(s.failf(x, "the \"next\" link of the page at %s leads back to the page at %s, read before", seen[len(seen)-1], address), audit.PagingLinks)
		}
	}
	return nil
}

// listHasTwoPages creates events as the user, in batches of 1, 2, 4…, until
// the first page of the event list links to a next page, at most
// maxPagingEvents of them. A read-only run creates none: on a target whose
// list has a single page, paging cannot be checked.
func (s *scenario) listHasTwoPages() error {
	address, err := s.eventsAddress()
	if err != nil {
		return err
	}
	made := 0
	for batch := 1; ; batch *= 2 {
		first, _, err := s.readPage(address)
		if err != nil {
			return err
		}
		if first.links["next"] != "" {
			return nil
		}
		if s.target.ReadOnly {
			return notChecked("the target lists its %d events on a single page, and a read-only run creates none to make a second", len(first.items))
		}
		if made >= maxPagingEvents {
			return unmetOnTheWay(fmt.Errorf("the first page of the event list has no \"next\" link after %d events were created", made), audit.PagingLinks)
		}
		names := make([]string, min(batch, maxPagingEvents-made))
		if err := s.userHasCreated(names); err != nil {
			return err
		}
		made += len(names)
	}
}

// walkPages reads the event list on who's behalf, page by page, from its
// first page (or from start), and keeps the pages.
func (s *scenario) walkPages(who, start string) error {
	s.pages = nil
	if start == "" {
		var err error
		if start, err = s.eventsAddress(); err != nil {
			return err
		}
	}
	s.walk.found, s.walk.judged = nil, nil
	err := s.eachPageFrom(who, start, func(p page, _ *exchange) error {
		s.pages = append(s.pages, p)
		return nil
	})
	if err == nil && s.scope != nil {
		at := make([]int, len(s.pages))
		for i, p := range s.pages {
			at[i] = p.x.at
		}
		s.walk.found, s.walk.judged = s.scope.Walked(at...)
	}
	return err
}

// eachWalked calls check with the answer of every page of the last walk.
func (s *scenario) eachWalked(check func(*exchange) error) error {
	if err := s.walked(); err != nil {
		return err
	}
	for _, p := range s.pages {
		if err := check(p.x); err != nil {
			return err
		}
	}
	return nil
}

func (s *scenario) walked() error {
	if len(s.pages) == 0 {
		return fmt.Errorf("no page was read")
	}
	return nil
}
