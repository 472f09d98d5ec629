package steps

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/cucumber/godog"
)

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
}

func (s *scenario) registerPagingSteps(sc *godog.ScenarioContext) {
	sc.Step(`^`+actor+` lists the events$`, func(who string) error { return s.listEvents(who, "") })
	sc.Step(`^a caller lists the events with the query "([^"]*)"$`, func(q string) error { return s.listEvents("a caller", q) })
	sc.Step(`^the event list has more than one page$`, s.listHasTwoPages)
	sc.Step(`^a caller walks through the event list by following its "next" links$`, s.walkPages)
	sc.Step(`^the first page has no "prev" link$`, s.firstPageHasNoPrev)
	sc.Step(`^the last page has no "next" link$`, s.lastPageHasNoNext)
	sc.Step(`^no event is listed on two pages$`, s.noEventTwice)
	sc.Step(`^every event created for it is listed$`, s.madeEventsListed)
	sc.Step(`^following "prev" from each later page leads back to the page before it$`, s.prevLeadsBack)

	sc.Step(`^the page holds (\d+) events?$`, s.pageHolds)
	sc.Step(`^the page reports (\d+) events in (\d+) pages, this being page (\d+)$`, s.pageReports)
	sc.Step(`^the events are listed in the order "([^"]*)"$`, s.listedInOrder)
	sc.Step(`^every listed event links to itself$`, s.listedEventsLinkToThemselves)
	sc.Step(`^the event list holds some number of events$`, s.countEvents)
	sc.Step(`^the event list holds as many events as before$`, s.sameNumberOfEvents)
}

// readPage reads one page of the list with a probe.
func (s *scenario) readPage(address string) (page, *exchange, error) {
	x, err := s.send(s.at("GET", address))
	if err != nil {
		return page{}, nil, err
	}
	if x.status != http.StatusOK {
		return page{}, x, s.failf(x, "a page of the event list answered %d", x.status)
	}
	p := page{address: address, links: map[string]string{}}
	for rel, href := range x.links() {
		p.links[rel] = x.resolve(href)
	}
	obj, _ := x.json.(map[string]any)
	for _, item := range listItems(obj) {
		key := ""
		if self := hrefs(item)["self"]; self != "" {
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

// eachPage reads the event list page by page, following "next", and calls
// fn with each page. It fails when "next" leads to a page already read.
func (s *scenario) eachPage(fn func(page, *exchange) error) error {
	address, err := s.eventsAddress()
	if err != nil {
		return err
	}
	var seen []string
	for address != "" {
		if len(seen) == maxPages {
			return fmt.Errorf("the event list has more than %d pages; stopped following \"next\"", maxPages)
		}
		p, x, err := s.readPage(address)
		if err != nil {
			return err
		}
		if err := fn(p, x); err != nil {
			return err
		}
		seen = append(seen, address)
		address = p.links["next"]
		if slices.Contains(seen, address) {
			return s.failf(x, "\"next\" of page %d leads back to page %d", len(seen), slices.Index(seen, address)+1)
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
			return fmt.Errorf("the first page of the event list has no \"next\" link after %d events were created", made)
		}
		names := make([]string, min(batch, maxPagingEvents-made))
		if err := s.userHasCreated(names); err != nil {
			return err
		}
		made += len(names)
	}
}

func (s *scenario) walkPages() error {
	s.pages = nil
	return s.eachPage(func(p page, _ *exchange) error {
		s.pages = append(s.pages, p)
		return nil
	})
}

func (s *scenario) walked() error {
	if len(s.pages) == 0 {
		return fmt.Errorf("no page was read")
	}
	return nil
}

func (s *scenario) firstPageHasNoPrev() error {
	if err := s.walked(); err != nil {
		return err
	}
	if prev, ok := s.pages[0].links["prev"]; ok {
		return fmt.Errorf("the first page links to a previous page: %s", s.redactor.String(prev))
	}
	return nil
}

func (s *scenario) lastPageHasNoNext() error {
	if err := s.walked(); err != nil {
		return err
	}
	if next, ok := s.pages[len(s.pages)-1].links["next"]; ok {
		return fmt.Errorf("the last page links to a next page: %s", s.redactor.String(next))
	}
	return nil
}

// noEventTwice checks that the pages are disjoint, and that every page
// reached through "next" lists events.
func (s *scenario) noEventTwice() error {
	if err := s.walked(); err != nil {
		return err
	}
	seen := map[string]int{}
	for i, p := range s.pages {
		if i > 0 && len(p.items) == 0 {
			return fmt.Errorf("page %d, reached through \"next\", lists no events", i+1)
		}
		for _, item := range p.items {
			if first, ok := seen[item]; ok {
				return fmt.Errorf("an event is listed on page %d and again on page %d: %s", first+1, i+1, s.redactor.String(item))
			}
			seen[item] = i
		}
	}
	return nil
}

// madeEventsListed checks that the walk met every event the scenario
// created, by its address. The list's items are read by their "self" link,
// so a target whose items have none cannot show it.
func (s *scenario) madeEventsListed() error {
	if err := s.walked(); err != nil {
		return err
	}
	listed := map[string]bool{}
	for _, p := range s.pages {
		for _, item := range p.items {
			listed[item] = true
		}
	}
	for i, address := range s.events.made {
		if !listed[address] {
			return fmt.Errorf("event %d of the %d created for the walk is on no page: %s", i+1, len(s.events.made), s.redactor.String(address))
		}
	}
	return nil
}

func (s *scenario) prevLeadsBack() error {
	if err := s.walked(); err != nil {
		return err
	}
	for i := 1; i < len(s.pages); i++ {
		prev, ok := s.pages[i].links["prev"]
		if !ok {
			return fmt.Errorf("page %d has no \"prev\" link", i+1)
		}
		p, x, err := s.readPage(prev)
		if err != nil {
			return err
		}
		// The same page lists the same events; its self link may be
		// written differently (the specification does not say how).
		if got, want := p.items, s.pages[i-1].items; !slices.Equal(got, want) {
			return s.failf(x, "\"prev\" of page %d leads to a page listing %d events that are not those of page %d", i+1, len(got), i)
		}
	}
	return nil
}
