package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"eventsvc/conformance/hal"
	"eventsvc/conformance/origin"
	"eventsvc/conformance/repro"
)

// Walks: a runner that reads a listing page by page, from its first page
// through each page's "next" link, tells the audit which of its exchanges
// were that walk (Scope.Walked), and the registry judges the walk as a
// whole (spec API-5): a scenario's walk and an exploration's alike.

// The checks of a walk through a listing, by what they judge: the name a
// finding of one carries (Finding.Check).
const (
	// WalkFirstPage: the first page offers no "prev".
	WalkFirstPage = "the first page of a listing offers no \"prev\""
	// WalkListsSome: every page reached through "next" lists something.
	WalkListsSome = "every page reached through \"next\" lists resources"
	// WalkOffersPrev: every page reached through "next" offers "prev".
	WalkOffersPrev = "every page reached through \"next\" offers \"prev\""
	// WalkEnds: "next" ends after the last page: it never leads back to a
	// page read before, nor on past what the listing holds (hal.Walk).
	WalkEnds = "\"next\" ends after the last page"
	// WalkOnce: no resource is listed on two pages of the walk.
	WalkOnce = "no resource is listed on two pages"
	// WalkEvery: a walk through the whole event list meets every event
	// the audit saw created before it began and not deleted.
	WalkEvery = "every event created is listed"
)

// walkCheck is one judgment of a walk: its findings, and whether it
// could judge the walk at all.
type walkCheck struct {
	name  string
	judge func(w *world, wk *walked) ([]*Finding, bool)
}

// walkChecks are the registry's judgments of a walk, in the order they
// judge one; each finds API-5 broken.
var walkChecks = []walkCheck{
	{WalkFirstPage, (*world).firstWithoutPrev},
	{WalkListsSome, (*world).listsSome},
	{WalkOffersPrev, (*world).offersPrev},
	{WalkEnds, (*world).walkEnds},
	{WalkOnce, (*world).listedOnce},
	{WalkEvery, (*world).everyListed},
}

// walked is one walk as its checks read it.
type walked struct {
	pages []*observed
	keys  [][]string // each page's listed resources, by self link (or JSON)
}

// Walked judges the walk the at-th exchanges of the scope were, in order:
// reads of a listing from its first page, each through the "next" link
// of the page before (a walk that stopped early, at a page that was not
// a listing or at a bound of its own, ends there). Each exchange was
// observed before (Observe). It returns the findings, each about the
// exchange of its page, kept as Observe keeps them, and the names of the
// walk checks that could judge the walk (WalkEvery judges a walk through
// the whole event list alone).
func (s *Scope) Walked(at ...int) (found []*Finding, judged []string) {
	s.mu.Lock()
	place, wk := s.place, worldKey{base: s.base, key: s.worldKey}
	var xs []Exchange
	var ats []int
	for _, n := range at {
		if n < 0 || n >= len(s.log) || s.log[n].Method == "" {
			continue
		}
		xs = append(xs, Exchange{Exchange: s.log[n], Start: s.spans[n].start, End: s.spans[n].end})
		ats = append(ats, n)
	}
	s.mu.Unlock()
	w := s.a.world(wk)
	walk := &walked{}
	for _, x := range xs {
		o := newObserved(w, x)
		if o.url == nil || o.x.Status != http.StatusOK || o.doc == nil || !isListing(o.doc) {
			break // the walk ends at what is not a page
		}
		walk.pages = append(walk.pages, o)
		walk.keys = append(walk.keys, listedKeys(o))
	}
	if len(walk.pages) == 0 {
		return nil, nil
	}
	for _, c := range walkChecks {
		fs, ok := c.judge(w, walk)
		if !ok {
			continue
		}
		judged = append(judged, c.name)
		for _, f := range fs {
			f.Check = c.name
			s.own(f, place, ats[f.at], w, walk.pages[f.at])
			found = append(found, f)
		}
	}
	if s.trial {
		return found, judged
	}
	last := ats[len(walk.pages)-1]
	checks := make([]string, len(judged))
	for i := range checks {
		checks[i] = "API-5"
	}
	s.a.record(s, last, true, checks, nil)
	s.a.record(s, last, true, nil, found)
	return found, judged
}

// Moving reports whether the listing may have changed between the
// scope's at-th and to-th exchanges, two pages of a walk: a write of the
// run was observed between the first's request and the second's answer,
// or is under way now. A walk reads such a page as a fresh one
// (hal.Walk's moving): a creation may push a listed resource onto the
// next page.
func (s *Scope) Moving(at, to int) bool {
	s.mu.Lock()
	if at < 0 || to >= len(s.spans) || at > to {
		s.mu.Unlock()
		return true
	}
	start, end := s.spans[at].start, s.spans[to].end
	wk := worldKey{base: s.base, key: s.worldKey}
	s.mu.Unlock()
	return s.a.writing.any() || !s.a.world(wk).quiet(start, end)
}

// onPage is a finding of a walk about its i-th page (Walked turns i into
// the page's number in its scope).
func onPage(i int, format string, args ...any) *Finding {
	f := finding("API-5", format, args...)
	f.at = i
	return f
}

// firstWithoutPrev: the first page offers no "prev".
func (w *world) firstWithoutPrev(wk *walked) ([]*Finding, bool) {
	if prev, ok := hal.Links(wk.pages[0].doc)["prev"]; ok {
		return []*Finding{onPage(0, "the first page of the listing, %s, links to a previous page: %s", wk.pages[0].url, prev)}, true
	}
	return nil, true
}

// listsSome: every page reached through "next" lists resources: a
// "next" link is there only when a next page is.
func (w *world) listsSome(wk *walked) ([]*Finding, bool) {
	for i := 1; i < len(wk.pages); i++ {
		if len(wk.keys[i]) == 0 {
			return []*Finding{onPage(i, "the page at %s, reached through the \"next\" link of the page at %s, lists no events: a \"next\" link is there only when a next page is", wk.pages[i].url, wk.pages[i-1].url)}, true
		}
	}
	return nil, len(wk.pages) > 1
}

// offersPrev: every page reached through "next" offers "prev".
func (w *world) offersPrev(wk *walked) ([]*Finding, bool) {
	for i := 1; i < len(wk.pages); i++ {
		if _, ok := hal.Links(wk.pages[i].doc)["prev"]; !ok {
			return []*Finding{onPage(i, "the page at %s, reached through \"next\", has no \"prev\" link, though the page at %s is before it", wk.pages[i].url, wk.pages[i-1].url)}, true
		}
	}
	return nil, len(wk.pages) > 1
}

// walkEnds: the last page's "next" does not lead back to a page of the
// walk, and the walk went no further than the listing shows it holds
// (hal.Walk): pages read while the run created count as new.
func (w *world) walkEnds(wk *walked) ([]*Finding, bool) {
	if i, why := w.pastTheEnd(wk); why != "" {
		f := onPage(i, "stopped following \"next\" at page %d, %s: %s", i+1, wk.pages[i].url, why)
		found := w.confirmed(wk, f) // another writer's creations may have pushed the events on
		if len(found) > 0 {
			stands := found[0].stands
			// With the writes the audit learns of later.
			found[0].stands = func() bool { _, still := w.pastTheEnd(wk); return still != "" && stands() }
		}
		return found, true
	}
	last := len(wk.pages) - 1
	if u, ok := wk.pages[last].resolve(hal.Links(wk.pages[last].doc)["next"]); ok {
		for _, p := range wk.pages {
			if key(p.url) == key(u) {
				return []*Finding{onPage(last, "the \"next\" link of the page at %s leads back to the page at %s, read before", wk.pages[last].url, p.url)}, true
			}
		}
	}
	return nil, true
}

// pastTheEnd is the page at which the walk went on past what the
// listing shows it holds (hal.Walk), and why; "" when it did not. A page
// read while the run wrote counts as new.
func (w *world) pastTheEnd(wk *walked) (int, string) {
	var bound hal.Walk
	for i, p := range wk.pages {
		moving := i > 0 && !w.quietAround(wk.pages[i-1], p)
		if why := bound.Page(wk.keys[i], p.doc, moving); why != "" {
			return i, why
		}
	}
	return 0, ""
}

// listedOnce: no resource is listed on two pages of the walk. A creation
// of the run under way meanwhile may move one onto the next page, and so
// may a writer the run does not know of: the finding stands when the run
// wrote nothing while the walk went on, and the audit, reading the pages
// again, finds them listing the same.
func (w *world) listedOnce(wk *walked) ([]*Finding, bool) {
	first := map[string]int{}
	for i, keys := range wk.keys {
		for _, k := range keys {
			if j, ok := first[k]; ok && j != i {
				f := onPage(i, "a resource is listed on the page at %s and again on the page at %s: %s", wk.pages[j].url, wk.pages[i].url, k)
				return w.confirmed(wk, f), true
			}
			first[k] = i
		}
	}
	return nil, true
}

// everyListed: a walk through the whole event list, from its first page
// to one without "next", meets every event the audit saw created before
// the walk began, and not deleted since, nor written in a way it cannot
// follow. It stands as listedOnce does. It judges no other walk.
func (w *world) everyListed(wk *walked) ([]*Finding, bool) {
	last := wk.pages[len(wk.pages)-1]
	if _, more := hal.Links(last.doc)["next"]; more {
		return nil, false // not the whole list
	}
	w.mu.Lock()
	list := w.list
	w.mu.Unlock()
	first := wk.pages[0]
	if list == "" || listKey(first.url) != list {
		return nil, false // not the event list
	}
	// An item is known by its "self" link, or by its id: an item with
	// neither cannot be told from another event.
	listed, ids := map[string]bool{}, map[string]bool{}
	idOnly := false // an item known by its id alone
	for _, p := range wk.pages {
		for _, item := range hal.Items(p.doc) {
			u, self := p.resolve(hal.Links(item)["self"])
			id, hasID := idText(item["id"])
			if !self && !hasID {
				return nil, false
			}
			idOnly = idOnly || !self
			if self {
				listed[key(u)] = true
			}
			if hasID {
				ids[id] = true // an address spelt otherwise is the same event
			}
		}
	}
	w.mu.Lock()
	var missing []string
	for _, ev := range w.events {
		if !ev.mayBeAbsent() && !w.a.writing.unsure(ev.address) && ev.versions[0].when.end.Before(first.x.Start) && !listed[ev.address] && !(ev.id != "" && ids[ev.id]) && !(ev.id == "" && idOnly) {
			missing = append(missing, ev.address)
		}
	}
	w.mu.Unlock()
	if len(missing) == 0 {
		return nil, true
	}
	slices.Sort(missing)
	f := onPage(len(wk.pages)-1, "the walk through the event list read %d pages to the last, and listed no event at %s, created before it began", len(wk.pages), strings.Join(missing[:min(3, len(missing))], ", "))
	if len(missing) > 3 {
		f.Message += fmt.Sprintf(" (and %d more)", len(missing)-3)
	}
	return w.confirmed(wk, f), true
}

// listedKeys are the resources page o lists, in order: each by its
// "self" link, or by its JSON without one.
func listedKeys(o *observed) []string {
	var out []string
	for _, item := range hal.Items(o.doc) {
		if u, ok := o.resolve(hal.Links(item)["self"]); ok {
			out = append(out, key(u))
		} else {
			b, _ := json.Marshal(item)
			out = append(out, string(b))
		}
	}
	return out
}

// settle is how long the audit waits before it reads the pages of a walk
// again to confirm a finding.
const settle = 500 * time.Millisecond

// confirmed is f, a finding about how the pages of wk list resources
// between them, when the audit, reading each page again on behalf of
// the same caller, finds it listing the same as before; nil otherwise.
// The pages read again are its evidence (Followed). It stands while the
// run wrote nothing from the walk's first request to the last answer read
// again: a writer the run does not know of shows in the pages read again.
func (w *world) confirmed(wk *walked, f *Finding) []*Finding {
	client := w.a.readClient(w)
	// A replica behind, or an index updated after the write, shows the
	// list as it was a moment ago.
	time.Sleep(settle)
	var chain []repro.Exchange
	end := wk.pages[len(wk.pages)-1].x.End
	for i, p := range wk.pages {
		again, x, ok := w.readAgain(client, p)
		if !ok || !slices.Equal(again, wk.keys[i]) {
			return nil // the listing moved, or nothing tells
		}
		chain = append(chain, x.Exchange)
		end = x.End
	}
	start := wk.pages[0].x.Start
	if !w.quiet(start, end) {
		return nil
	}
	f.Message += fmt.Sprintf(" (the same when the audit read the %d pages again)", len(wk.pages))
	f.Followed = chain
	for i := range f.Followed {
		f.Followed[i].Transcript = repro.Transcribe(w.a.o.Redactor, f.Followed[i])
	}
	f.stands = func() bool { return w.quiet(start, end) }
	return []*Finding{f}
}

// readAgain reads page p again as its caller did, and returns what it
// lists; ok is false when it is no longer a page.
func (w *world) readAgain(client *http.Client, p *observed) ([]string, Exchange, bool) {
	req, err := http.NewRequestWithContext(origin.Via(context.Background(), "the audit's second read of a page of a walk"), http.MethodGet, p.url.String(), nil)
	if err != nil {
		return nil, Exchange{}, false
	}
	req.Header.Set("Accept", "application/hal+json, application/json;q=0.9, */*;q=0.1")
	req.Header.Set("Cache-Control", "no-cache") // what a cache kept is what the first read may have had
	if auth := p.x.Header.Get("Authorization"); auth != "" {
		req.Header.Set("Authorization", auth)
	}
	start := w.a.o.Now()
	resp, err := client.Do(req)
	if err != nil {
		return nil, Exchange{}, false
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, Exchange{}, false
	}
	x := Exchange{Exchange: repro.Exchange{Method: req.Method, URL: req.URL.String(), Header: req.Header.Clone(),
		Status: resp.StatusCode, RespHeader: resp.Header.Clone(), RespBody: body}, Start: start, End: w.a.o.Now()}
	y := newObserved(w, x)
	if y.x.Status != http.StatusOK || y.doc == nil || !isListing(y.doc) {
		return nil, x, false
	}
	return listedKeys(y), x, true
}

// readClient is the client with which the audit reads w's target itself:
// the follower's, or one that sends credentials to w's origin only.
func (a *Audit) readClient(w *world) *http.Client {
	if a.follow != nil {
		return a.follow.client(w)
	}
	return guardedClient(a, w)
}

// guardedClient is a client of the audit's transport that sends
// credentials to w's origin only, and follows no redirect.
func guardedClient(a *Audit, w *world) *http.Client {
	base := a.o.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	return &http.Client{
		Transport:     &origin.Guard{Target: w.family().base, Base: base, Log: a.o.Origins},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
