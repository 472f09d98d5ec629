package steps

import (
	"fmt"
	"slices"

	"eventsvc/conformance/audit"
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

// firstPageHasNoPrev, nextPagesListEvents, noEventTwice and
// madeEventsListed ask the registry's judgment of the last walk
// (audit.Scope.Walked): the step phrases what the scenario looks at, the
// registry holds the rule.
func (s *scenario) firstPageHasNoPrev() error { return s.walkJudged(audit.WalkFirstPage) }

func (s *scenario) lastPageHasNoNext() error {
	return unmet(s.lastPageHasNoNextCheck(), audit.PagingLinks)
}

func (s *scenario) lastPageHasNoNextCheck() error {
	if err := s.walked(); err != nil {
		return err
	}
	if next, ok := s.pages[len(s.pages)-1].links["next"]; ok {
		return fmt.Errorf("the last page links to a next page: %s", s.redactor.String(next))
	}
	return nil
}

// nextPagesListEvents: every page reached through "next" lists events:
// a "next" that leads to an empty page leads to no page (spec API-5).
func (s *scenario) nextPagesListEvents() error { return s.walkJudged(audit.WalkListsSome) }

// noEventTwice: the pages are disjoint.
func (s *scenario) noEventTwice() error { return s.walkJudged(audit.WalkOnce) }

// madeEventsListed: the walk met every event the run saw created before
// it, those the scenario created among them, by their addresses. The
// list's items are read by their "self" link, so a target whose items
// have none cannot show it.
func (s *scenario) madeEventsListed() error { return s.walkJudged(audit.WalkEvery) }

// walkJudged fails with the registry's finding of check about the last
// walk, or as not run when the registry could not judge the walk by it.
func (s *scenario) walkJudged(check string) error {
	if err := s.walked(); err != nil {
		return err
	}
	if s.scope == nil {
		return errNoAudit
	}
	for _, f := range s.walk.found {
		if f.Check == check && f.Stands() {
			s.scope.Claim(f)
			return s.findingFailure(f, f.At(), s.redactor.String(f.Message))
		}
	}
	if !slices.Contains(s.walk.judged, check) {
		return notChecked("the audit could not judge the walk by %q: it was not through the whole event list", check)
	}
	return nil
}

func (s *scenario) prevLeadsBack() error { return unmet(s.prevLeadsBackCheck(), audit.PagingLinks) }

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
	return unmet(s.firstPageByPrevHasNoPrevCheck(), audit.PagingLinks)
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
