package explore

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"eventsvc/conformance/hal"
)

// walk reads every page of the list as the action's caller, each checked
// as a page, and checks that the pages partition the list (API-5): "next"
// is there only when a next page is, and leads to a page that lists
// events; "prev" only when a previous page is; no event is listed twice,
// and every event of the sequence is listed. A list that changes while it
// is read (another client writes) shows none of this: a partition found
// broken is read again, and counts only when the second walk lists the
// same events.
func (s *sequence) walk(a Action) (*finding, error) {
	pages, f, err := s.readPages(a)
	if f != nil && f.walkBound {
		// The list may have moved under the walk (another sequence
		// creates): it counts when a second walk stops as well.
		pages, f, err = s.readPages(a)
	}
	if err != nil || f != nil || pages == nil {
		return f, err
	}
	broken, message, at := partition(pages, s.m.events)
	if !broken {
		return nil, nil
	}
	again, f, err := s.readPages(a)
	if err != nil || f != nil || again == nil {
		return f, err
	}
	if !slices.Equal(listed(pages), listed(again)) {
		return nil, nil // the list changed under the walk: nothing can be told
	}
	return s.breaks("API-5", pages[at], "%s (the same on a second walk)", message), nil
}

// readPages reads the list's pages from the first, following "next", and
// checks each as it comes (each page itself is the registry's to judge,
// and a read not answered 200 with JSON ends the walk): the first
// without "prev"; every other with "prev", and events to list; no walk
// past what the list shows it holds (hal.Walk). It returns nil pages when
// the walk is too long to check as a whole.
func (s *sequence) readPages(a Action) ([]*answer, *finding, error) {
	var pages []*answer
	seen := map[string]bool{}
	var walk hal.Walk
	address := s.r.listAddress(a.Size)
	for address != "" {
		if len(pages) == maxPages {
			return nil, nil, nil
		}
		p, f, err := s.get(address, a.As, a.Scheme)
		if err != nil || f != nil {
			return nil, f, err
		}
		if p.status != http.StatusOK || p.doc == nil {
			return nil, nil, nil // the registry judges the page
		}
		_, prev := p.links()["prev"]
		switch {
		case len(pages) == 0 && prev:
			return nil, s.breaks("API-5", p, "the first page links to a previous page: %s", p.links()["prev"]), nil
		case len(pages) > 0 && len(hal.Items(p.doc)) == 0:
			return nil, s.breaks("API-5", p, "the page at %s, reached through the \"next\" link of the page at %s, lists no events", s.r.redactor.String(p.url.String()), s.r.redactor.String(pages[len(pages)-1].url.String())), nil
		case len(pages) > 0 && !prev:
			return nil, s.breaks("API-5", p, "the page at %s, reached through \"next\", has no \"prev\" link", s.r.redactor.String(p.url.String())), nil
		}
		if why := walk.Page(listed([]*answer{p}), p.doc, false); why != "" {
			f := s.breaks("API-5", p, "stopped following \"next\" at page %d, %s: %s", walk.Pages(), s.r.redactor.String(p.url.String()), why)
			f.walkBound = true
			return nil, f, nil
		}
		pages = append(pages, p)
		seen[address] = true
		next, ok := p.links()["next"]
		if !ok {
			break
		}
		address = p.resolve(next)
		if seen[address] {
			return nil, s.breaks("API-5", p, "the \"next\" link of the page at %s leads back to the page at %s, read before", s.r.redactor.String(p.url.String()), s.r.redactor.String(address)), nil
		}
	}
	s.checked("API-5") // every page read, and its links judged
	return pages, nil, nil
}

// listed is every event the pages list, in order, by its "self" link (or
// its JSON, without one).
func listed(pages []*answer) []string {
	var out []string
	for _, p := range pages {
		for _, item := range hal.Items(p.doc) {
			if self, ok := hal.Links(item)["self"]; ok {
				out = append(out, p.resolve(self))
			} else {
				out = append(out, jsonText(plain(item)))
			}
		}
	}
	return out
}

// partition tells whether the pages list an event twice, or leave out one
// of events, with a message and the page it speaks of.
func partition(pages []*answer, events []*event) (bool, string, int) {
	first := map[string]int{}
	for i, p := range pages {
		for _, item := range hal.Items(p.doc) {
			self, ok := hal.Links(item)["self"]
			if !ok {
				continue
			}
			address := p.resolve(self)
			if j, ok := first[address]; ok {
				return true, "an event is listed on the page at " + pages[j].url.String() + " and again on the page at " + p.url.String() + ": " + address, i
			}
			first[address] = i
		}
	}
	for n, ev := range events {
		found := false
		for address := range first {
			if sameAddress(address, ev.address) {
				found = true
				break
			}
		}
		if !found && len(first) > 0 {
			return true, "event #" + strconv.Itoa(n+1) + " of the sequence is on no page: " + ev.address, len(pages) - 1
		}
	}
	return false, "", 0
}

// learnPaging reads, from the first two pages of the list, the query
// parameter that sets a page size: one that the first page's "next" link
// and the second page's "prev" link both carry with the same number (the
// page's index changes between them, or "prev" leaves it out). It returns
// "" when there is no such parameter, or more than one.
func learnPaging(first, second *answer) string {
	n1, ok1 := first.links()["next"]
	n2, ok2 := second.links()["prev"]
	if !ok1 || !ok2 {
		return ""
	}
	u1, err1 := url.Parse(first.resolve(n1))
	u2, err2 := url.Parse(second.resolve(n2))
	if err1 != nil || err2 != nil {
		return ""
	}
	q1, q2 := u1.Query(), u2.Query()
	var names []string
	for name, v := range q1 {
		if len(v) != 1 || len(q2[name]) != 1 || v[0] != q2[name][0] {
			continue
		}
		if _, err := strconv.Atoi(v[0]); err == nil {
			names = append(names, name)
		}
	}
	if len(names) != 1 {
		return ""
	}
	return names[0]
}

// listAddress is the list's first page, with a page size of size when the
// run knows how to ask for one.
func (r *runner) listAddress(size int) string {
	if size <= 0 || r.sizeParam == "" {
		return r.events
	}
	u, err := url.Parse(r.events)
	if err != nil {
		return r.events
	}
	q := u.Query()
	q.Set(r.sizeParam, strconv.Itoa(size))
	u.RawQuery = q.Encode()
	return u.String()
}
