package steps

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"eventsvc/conformance/audit"
)

// Walking through the event list with a page size of the scenario's own,
// set in the parameter the list's "next" and "prev" links keep from page
// to page.

func (s *scenario) registerPageSizeSteps(sc stepRegistry) {
	sc.Step(`^`+actor+` walks through the event list with a page size of its own$`, s.walkWithOwnPageSize)
	sc.Step(`^the event list fills its last page exactly$`, s.listFillsLastPage)
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
		return "", 0, nil, "", unmetOnTheWay(s.failf(x, "the second page of the event list has no \"prev\" link"), audit.PagingLinks)
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
	x, err := s.sendBy(who, s.at("GET", start))
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
