package explore

import (
	"net/http"
	"net/url"
	"strconv"

	"eventsvc/conformance/hal"
)

// walk reads every page of the list as the action's caller, from the
// first through each page's "next" link, and tells the registry the pages
// were one walk (audit.Scope.Walked), which judges them whole (API-5):
// the first without "prev", every other with "prev" and events, no event
// on two pages, every event of the sequence on one. The walk stops at a
// page that is not one (the registry judges the read), at a "next" that
// leads back to a page read, past what the list shows it holds
// (hal.Walk), and at maxPages.
func (s *sequence) walk(a Action) (*finding, error) {
	var at []int
	seen := map[string]bool{}
	var bound hal.Walk
	for address := s.r.listAddress(a.Size); address != "" && !seen[address] && len(at) < maxPages; {
		p, f, err := s.get(address, a.As, a.Scheme)
		if err != nil || f != nil {
			return f, err
		}
		seen[address] = true
		at = append(at, p.log)
		moving := len(at) > 1 && s.scope != nil && s.scope.Moving(at[len(at)-2], p.log)
		if p.status != http.StatusOK || p.doc == nil || bound.Page(listed(p), p.doc, moving) != "" {
			break
		}
		address = ""
		if next, ok := p.links()["next"]; ok {
			address = p.resolve(next)
		}
	}
	if s.scope != nil {
		found, _ := s.scope.Walked(at...)
		s.judged = append(s.judged, found...)
	}
	return nil, nil
}

// listed is every event page p lists, in order, by its "self" link (or
// its JSON, without one).
func listed(p *answer) []string {
	var out []string
	for _, item := range hal.Items(p.doc) {
		if self, ok := hal.Links(item)["self"]; ok {
			out = append(out, p.resolve(self))
		} else {
			out = append(out, jsonText(plain(item)))
		}
	}
	return out
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
