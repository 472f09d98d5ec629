package steps

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/cucumber/godog"

	"eventsvc/conformance/hal"
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
	x       *exchange         // the answer it was read from
}

func (s *scenario) registerPagingSteps(sc *godog.ScenarioContext) {
	sc.Step(`^`+actor+` lists the events$`, func(who string) error { return s.listEvents(who, "") })
	sc.Step(`^a caller lists the events with the query "([^"]*)"$`, func(q string) error { return s.listEvents("a caller", q) })
	sc.Step(`^the event list has more than one page$`, s.listHasTwoPages)
	sc.Step(`^`+actor+` walks through the event list by following its "next" links$`, func(who string) error { return s.walkPages(who, s.listStart) })
	sc.Step(`^the first page has no "prev" link$`, s.firstPageHasNoPrev)
	sc.Step(`^the last page has no "next" link$`, s.lastPageHasNoNext)
	sc.Step(`^no event is listed on two pages$`, s.noEventTwice)
	sc.Step(`^every page reached through "next" lists events$`, s.nextPagesListEvents)
	sc.Step(`^every event created for it is listed$`, s.madeEventsListed)
	sc.Step(`^following "prev" from each later page leads back to the page before it$`, s.prevLeadsBack)
	sc.Step(`^the first page, reached through "prev", has no "prev" link$`, s.firstPageByPrevHasNoPrev)
	sc.Step(`^`+actor+` walks through the event list with a page size of its own$`, s.walkWithOwnPageSize)
	sc.Step(`^the event list fills its last page exactly$`, s.listFillsLastPage)

	sc.Step(`^the page holds (\d+) events?$`, s.pageHolds)
	sc.Step(`^the page reports (\d+) events in (\d+) pages, this being page (\d+)$`, s.pageReports)
	sc.Step(`^the events are listed in the order "([^"]*)"$`, s.listedInOrder)
	sc.Step(`^the event list holds some number of events$`, s.countEvents)
	sc.Step(`^the event list holds as many events as before$`, s.sameNumberOfEvents)
}

// readPage reads one page of the list with a probe, anonymously.
func (s *scenario) readPage(address string) (page, *exchange, error) {
	return s.readPageAs("a caller", address)
}

// readPageAs reads one page of the list with a probe, on who's behalf.
func (s *scenario) readPageAs(who, address string) (page, *exchange, error) {
	req, err := s.as(who, s.at("GET", address))
	if err != nil {
		return page{}, nil, err
	}
	x, err := s.send(req)
	if err != nil {
		return page{}, nil, err
	}
	x.who, x.kind = who, kindList
	if x.status != http.StatusOK {
		// Anyone may read the list (API-2), a caller with a token too (API-4).
		rule := "API-2"
		if holdsToken(who) {
			rule = "API-4"
		}
		return page{}, x, requires(s.failf(x, "a page of the event list, read by %s, answered %d", who, x.status), rule)
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

// eachPageFrom is eachPage on who's behalf, from the page at address.
func (s *scenario) eachPageFrom(who, address string, fn func(page, *exchange) error) error {
	var seen []string
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
		seen = append(seen, address)
		address = p.links["next"]
		if slices.Contains(seen, address) {
			return requires(s.failf(x, "the \"next\" link of the page at %s leads back to the page at %s, read before", seen[len(seen)-1], address), "API-5")
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
			return requires(fmt.Errorf("the first page of the event list has no \"next\" link after %d events were created", made), "API-5")
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
	return s.eachPageFrom(who, start, func(p page, _ *exchange) error {
		s.pages = append(s.pages, p)
		return nil
	})
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

// pagingParams tells apart, from the first page's "next" link and the
// second page's "prev" link, the query parameters that name the page
// (they differ between the two, or "prev" leaves them out) from those that
// stay (a page size, an order). It returns the numeric ones that stay.
func pagingParams(next, prev string) (sizes []string, index []string, err error) {
	n, err := url.Parse(next)
	if err != nil {
		return nil, nil, err
	}
	p, err := url.Parse(prev)
	if err != nil {
		return nil, nil, err
	}
	nq, pq := n.Query(), p.Query()
	for _, k := range slices.Sorted(maps.Keys(nq)) {
		v := nq.Get(k)
		if len(nq[k]) != 1 || pq.Get(k) != v {
			index = append(index, k)
			continue
		}
		if i, err := strconv.Atoi(v); err == nil && i >= 1 {
			sizes = append(sizes, k)
		}
	}
	return sizes, index, nil
}

// withPageSize is the address of the first page of the list with the
// numeric parameter size set to n: the first page's "next" link without
// the parameters that name the page.
func withPageSize(next string, index []string, size string, n int) string {
	u, err := url.Parse(next)
	if err != nil {
		return next
	}
	q := u.Query()
	for _, k := range index {
		q.Del(k)
	}
	q.Set(size, strconv.Itoa(n))
	u.RawQuery = q.Encode()
	return u.String()
}

// pageSizeParam reads the first two pages of the list as who (or takes
// them from the last walk, when it has them), and returns the parameter of
// its "next" links that stays from page to page and is a number (a page
// size, in all likelihood), its value, and the parameters that name the
// page. A list whose links carry no such parameter cannot be asked for
// pages of another size: not checked.
func (s *scenario) pageSizeParam(who string) (size string, value int, index []string, next string, err error) {
	var first, second page
	var x *exchange
	if len(s.pages) >= 2 && s.listStart == "" {
		first, second, x = s.pages[0], s.pages[1], s.pages[1].x
	} else {
		address, err := s.eventsAddress()
		if err != nil {
			return "", 0, nil, "", err
		}
		if first, _, err = s.readPageAs(who, address); err != nil {
			return "", 0, nil, "", err
		}
		if first.links["next"] == "" {
			return "", 0, nil, "", notChecked("the event list has a single page")
		}
		if second, x, err = s.readPageAs(who, first.links["next"]); err != nil {
			return "", 0, nil, "", err
		}
	}
	next = first.links["next"]
	prev := second.links["prev"]
	if prev == "" {
		return "", 0, nil, "", requires(s.failf(x, "the second page of the event list has no \"prev\" link"), "API-5")
	}
	sizes, index, err := pagingParams(next, prev)
	if err != nil || len(sizes) == 0 {
		return "", 0, nil, "", notChecked("the \"next\" and \"prev\" links of the event list carry no parameter besides the page's own, so the suite cannot ask for pages of another size")
	}
	u, _ := url.Parse(next)
	value, _ = strconv.Atoi(u.Query().Get(sizes[0]))
	return sizes[0], value, index, next, nil
}

// walkWithOwnPageSize walks the event list as who, from its first page
// asked for with a page size one more than the target's own (the first
// numeric parameter its "next" links keep from page to page). A target
// that refuses that size is not checked.
func (s *scenario) walkWithOwnPageSize(who string) error {
	size, value, index, next, err := s.pageSizeParam(who)
	if err != nil {
		return err
	}
	start := withPageSize(next, index, size, value+1)
	req, err := s.as(who, s.at("GET", start))
	if err != nil {
		return err
	}
	x, err := s.send(req)
	if err != nil {
		return err
	}
	if x.status != http.StatusOK {
		return notChecked("the target answers %d to the first page of %d events (%s=%d)", x.status, value+1, size, value+1)
	}
	return s.walkPages(who, start)
}

// maxFillPages bounds the pages of a list that listFillsLastPage makes
// with a page size of its own.
const maxFillPages = 50

// listFillsLastPage makes the event list, as the scenario walks it next,
// one whose last page is full, so that a target that offers "next" on a
// full last page shows it (spec API-5). It counts the events by walking
// the list; when the target's "next" links carry a page size (a number
// that stays from page to page), it picks the smaller size that needs the
// fewest new events and pages, and checks that the target takes it;
// otherwise it keeps the target's own size. Then it creates the events
// the last page lacks, if any; a read-only run that would need some is
// not checked. The walk that follows starts from the list with that size
// (s.listStart). Other writers at work on the target may add events
// meanwhile: the last page is then not full, and the walk checks less.
func (s *scenario) listFillsLastPage() error {
	if err := s.listHasTwoPages(); err != nil {
		return err
	}
	if err := s.walkPages("a caller", ""); err != nil {
		return err
	}
	full, total := len(s.pages[0].items), 0
	for _, p := range s.pages {
		total += len(p.items)
	}
	if full == 0 {
		return s.failf(s.pages[0].x, "the first page of the event list lists no events")
	}
	if total%full == 0 {
		return nil
	}
	missing := full - total%full
	if size, _, index, next, err := s.pageSizeParam("a caller"); err == nil {
		best, cost := 0, 0
		for n := full - 1; n >= 1; n-- {
			m := (n - total%n) % n
			pages := (total + m) / n
			if pages < 2 || pages > maxFillPages || s.target.ReadOnly && m > 0 {
				continue
			}
			if best == 0 || m+pages < cost {
				best, cost = n, m+pages
			}
		}
		if best > 0 {
			start := withPageSize(next, index, size, best)
			if x, err := s.send(s.at("GET", start)); err == nil && x.status == http.StatusOK {
				s.listStart, missing = start, (best-total%best)%best
			}
		}
	}
	if missing == 0 {
		return nil
	}
	if s.target.ReadOnly {
		return notChecked("the target lists %d events in pages of %d, and a read-only run creates none to fill the last page", total, full)
	}
	return s.userHasCreated(make([]string, missing))
}
