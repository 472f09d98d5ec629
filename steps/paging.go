package steps

import (
	"fmt"
	"slices"
)

// What the pages of a walk through the event list say of each other
// (spec API-5): where their "prev" and "next" links lead, and which events
// they list.

func (s *scenario) registerPagingSteps(sc stepRegistry) {
	sc.Step(`^the first page has no "prev" link$`, s.firstPageHasNoPrev)
	sc.Step(`^the last page has no "next" link$`, s.lastPageHasNoNext)
	sc.Step(`^no event is listed on two pages$`, s.noEventTwice)
	sc.Step(`^every page reached through "next" lists events$`, s.nextPagesListEvents)
	sc.Step(`^every event created for it is listed$`, s.madeEventsListed)
	sc.Step(`^following "prev" from each later page leads back to the page before it$`, s.prevLeadsBack)
	sc.Step(`^the first page, reached through "prev", has no "prev" link$`, s.firstPageByPrevHasNoPrev)
}

func (s *scenario) firstPageHasNoPrev() error { return breaks(s.firstPageHasNoPrevCheck(), "API-5") }

func (s *scenario) firstPageHasNoPrevCheck() error {
	if err := s.walked(); err != nil {
		return err
	}
	if prev, ok := s.pages[0].links["prev"]; ok {
		return fmt.Errorf("the first page links to a previous page: %s", s.redactor.String(prev))
	}
	return nil
}

func (s *scenario) lastPageHasNoNext() error { return breaks(s.lastPageHasNoNextCheck(), "API-5") }

func (s *scenario) lastPageHasNoNextCheck() error {
	if err := s.walked(); err != nil {
		return err
	}
	if next, ok := s.pages[len(s.pages)-1].links["next"]; ok {
		return fmt.Errorf("the last page links to a next page: %s", s.redactor.String(next))
	}
	return nil
}

// nextPagesListEvents checks that every page reached through "next"
// lists events: a "next" that leads to an empty page leads to no page
// (spec API-5).
func (s *scenario) nextPagesListEvents() error { return breaks(s.nextPagesListEventsCheck(), "API-5") }

func (s *scenario) nextPagesListEventsCheck() error {
	if err := s.walked(); err != nil {
		return err
	}
	for i, p := range s.pages {
		if i > 0 && len(p.items) == 0 {
			return s.failf(p.x, "the page at %s, reached through the \"next\" link of the page at %s, lists no events", p.address, s.pages[i-1].address)
		}
	}
	return nil
}

// noEventTwice checks that the pages are disjoint, and that every page
// reached through "next" lists events.
func (s *scenario) noEventTwice() error { return breaks(s.noEventTwiceCheck(), "API-5") }

func (s *scenario) noEventTwiceCheck() error {
	if err := s.nextPagesListEvents(); err != nil {
		return err
	}
	seen := map[string]string{}
	for _, p := range s.pages {
		for _, item := range p.items {
			if first, ok := seen[item]; ok {
				return s.failf(p.x, "an event is listed on the page at %s and again on the page at %s: %s", first, p.address, s.redactor.String(item))
			}
			seen[item] = p.address
		}
	}
	return nil
}

// madeEventsListed checks that the walk met every event the scenario
// created, by its address. The list's items are read by their "self" link,
// so a target whose items have none cannot show it.
func (s *scenario) madeEventsListed() error { return breaks(s.madeEventsListedCheck(), "API-5") }

func (s *scenario) madeEventsListedCheck() error {
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

func (s *scenario) prevLeadsBack() error { return breaks(s.prevLeadsBackCheck(), "API-5") }

func (s *scenario) prevLeadsBackCheck() error {
	if err := s.walked(); err != nil {
		return err
	}
	for i := 1; i < len(s.pages); i++ {
		prev, ok := s.pages[i].links["prev"]
		if !ok {
			return s.failf(s.pages[i].x, "the page at %s, reached through \"next\", has no \"prev\" link", s.pages[i].address)
		}
		p, x, err := s.readPage(prev)
		if err != nil {
			return err
		}
		// The same page lists the same events; its self link may be
		// written differently (the specification does not say how).
		if got, want := p.items, s.pages[i-1].items; !slices.Equal(got, want) {
			return s.failf(x, "the \"prev\" link of the page at %s leads to %s, listing %d events that are not those of the page at %s, whose \"next\" led there", s.pages[i].address, prev, len(got), s.pages[i-1].address)
		}
	}
	return nil
}

// firstPageByPrevHasNoPrev reads the first page of the last walk as its
// second page's "prev" link gives it, a first page asked for by its
// paging parameters: it has no "prev" (spec API-5).
func (s *scenario) firstPageByPrevHasNoPrev() error {
	return breaks(s.firstPageByPrevHasNoPrevCheck(), "API-5")
}

func (s *scenario) firstPageByPrevHasNoPrevCheck() error {
	if err := s.walked(); err != nil {
		return err
	}
	if len(s.pages) < 2 {
		return fmt.Errorf("the walk read one page: there is no second page to go back from")
	}
	prev, ok := s.pages[1].links["prev"]
	if !ok {
		return s.failf(s.pages[1].x, "the second page has no \"prev\" link")
	}
	p, x, err := s.readPageAs(s.pages[1].x.who, prev)
	if err != nil {
		return err
	}
	if _, ok := p.links["prev"]; ok {
		return s.failf(x, "the first page, reached through the \"prev\" link of the second, links to a previous page")
	}
	return nil
}
