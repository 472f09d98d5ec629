package audit

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"eventsvc/conformance/hal"
	"eventsvc/conformance/origin"
	"eventsvc/conformance/repro"
)

// maxWalk bounds the pages of one walk through a listing by its "next"
// links: a target whose "next" never ends, or whose list is long, costs
// that many requests a caller.
const maxWalk = 50

// follower follows every link of every answer once a run, on the behalf
// of the caller who got the answer, and checks where it leads (API-10,
// API-5). Workers take the links from a queue; a link followed queues the
// links of its answer in turn.
type follower struct {
	a *Audit
	n int // the workers that follow links while the run goes on

	mu      sync.Mutex
	cond    *sync.Cond
	jobs    []*job
	seen    map[string]*answered // by world, caller and address
	count   map[*world]int
	skip    int
	closed  bool
	workers sync.WaitGroup
	pending sync.WaitGroup
	clients map[*world]*http.Client
	// waited counts, by scope and exchange, the steps waiting for the
	// links from that exchange: those links are followed first.
	waited map[waitedAt]int
}

// waitedAt is an exchange of a scope whose links a step waits for.
type waitedAt struct {
	scope *Scope
	at    int
}

// job is one link to follow.
type job struct {
	scope *Scope
	w     *world
	from  *observed // the answer that carries the link
	rel   string
	to    *url.URL
	item  map[string]any // the listed resource whose self it is, if it is one
	at    int            // the scope's exchange it comes from
	place Place
	chain []repro.Exchange // the exchanges the audit sent to reach from
	walk  *walk            // the walk it goes on, for next and prev
	// again is the answer of an earlier link to the same address, by the
	// same caller: the link is checked against it, not followed again.
	again *answered
	// followed tells the scope that the link was followed.
	followed func()
	key      string // seenKey
}

// answered is the answer a link led to, once it came.
type answered struct {
	done  chan struct{}
	y     *observed // nil when no answer came, or it was too long to keep
	chain []repro.Exchange
}

// maxKept bounds the body of an answer kept for the links to its address
// that come later; a longer one is not checked again.
const maxKept = 256 << 10

// walk is one walk through a listing by its "next" links.
type walk struct {
	mu    sync.Mutex
	pages map[string]bool
	ended bool // it read maxWalk pages: the rest is not followed
}

func newFollower(a *Audit, workers int) *follower {
	f := &follower{a: a, n: workers, seen: map[string]*answered{}, count: map[*world]int{}, clients: map[*world]*http.Client{}}
	f.cond = sync.NewCond(&f.mu)
	for i := 0; i < workers; i++ {
		f.workers.Add(1)
		go f.work()
	}
	return f
}

// queue queues the links of o, an exchange of s.
func (f *follower) queue(s *Scope, w *world, o *observed, at int, place Place) {
	f.queueFrom(s, w, o, at, place, nil, nil, false)
}

// queueFrom queues the links of o, reached through chain on the walk on;
// with endWalk, but for "next" and "prev".
func (f *follower) queueFrom(s *Scope, w *world, o *observed, at int, place Place, chain []repro.Exchange, on *walk, endWalk bool) {
	links := hal.Links(o.doc)
	for _, rel := range slices.Sorted(maps.Keys(links)) {
		if rel == "create-new-event" {
			continue // an action: followed with POST by the scenarios that write
		}
		href := links[rel]
		if strings.Contains(href, "{") {
			filled, ok := fill(href, o.doc)
			if !ok {
				continue
			}
			href = filled
		}
		u, ok := o.resolve(href)
		if !ok {
			continue
		}
		var wk *walk
		if (rel == "next" || rel == "prev") && endWalk {
			continue
		}
		if rel == "next" || rel == "prev" {
			wk = on
			if wk == nil {
				wk = &walk{pages: map[string]bool{pageID(o): true}}
			}
		}
		f.add(&job{scope: s, w: w, from: o, rel: rel, to: u, at: at, place: place, chain: chain, walk: wk})
	}
	for _, item := range hal.Items(o.doc) {
		if u, ok := o.resolve(hal.Links(item)["self"]); ok {
			f.add(&job{scope: s, w: w, from: o, rel: "self", to: u, item: item, at: at, place: place, chain: chain})
		}
	}
}

// fill fills a template whose only variable is "id" with the id of the
// first resource doc lists, or of doc itself.
func fill(template string, doc map[string]any) (string, bool) {
	vars := templateVar.FindAllStringSubmatch(template, -1)
	if len(vars) != 1 || vars[0][1] != "id" {
		return "", false
	}
	src := doc
	if items := hal.Items(doc); len(items) > 0 {
		src = items[0]
	}
	id, ok := idText(src["id"])
	if !ok {
		return "", false
	}
	return hal.Expand(template, map[string]string{"id": id}), true
}

// add queues j unless its address was followed before by its caller, or
// its world's budget is spent.
// seenKey names what j follows: the address, in its world, by its
// caller: for a valid token, its account, how its scheme is written and
// whether a refresh gave it (every such token acts alike, and a run takes
// many), else the Authorization header itself. The documentation is one
// whatever the server of the run and the token, and what it answers
// depends on the kind of caller only.
func seenKey(j *job) string {
	c := j.from.caller
	if j.rel == "profile" {
		return "profile " + c.class + " " + j.to.Path
	}
	who := j.from.x.Header.Get("Authorization")
	if c.class == callerValid {
		who = fmt.Sprintf("%s %s %s %t", c.class, c.account, c.scheme, c.tok != nil && c.tok.refreshed)
	}
	return j.w.base + " " + who + " " + key(j.to)
}

func (f *follower) add(j *job) {
	k := seenKey(j)
	j.key = k
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	if before, ok := f.seen[k]; ok {
		j.again = before
	} else if f.count[j.w.family()] >= f.a.o.MaxFollows {
		f.skip++
		return
	} else {
		f.seen[k] = &answered{done: make(chan struct{})}
		f.count[j.w.family()]++
	}
	j.followed = j.scope.addPending(j.at)
	f.pending.Add(1)
	f.jobs = append(f.jobs, j)
	f.cond.Signal()
}

// work follows the links of the queue until the follower is closed.
func (f *follower) work() {
	defer f.workers.Done()
	for {
		f.mu.Lock()
		for len(f.jobs) == 0 && !f.closed {
			f.cond.Wait()
		}
		if len(f.jobs) == 0 {
			f.mu.Unlock()
			return
		}
		j := f.next()
		f.mu.Unlock()
		f.do(j)
		j.followed()
		f.pending.Done()
	}
}

// next takes the next job off the queue, f.mu held: the first whose
// exchange a step waits for, or else the first. A link to an address
// another link of the queue leads to first waits for that one's answer
// (job.again): that one is taken in its place, so that no worker waits
// for a link no worker follows.
func (f *follower) next() *job {
	i := 0
	if len(f.waited) > 0 {
		for k, j := range f.jobs {
			if f.waited[waitedAt{j.scope, j.at}] > 0 {
				i = k
				break
			}
		}
		if j := f.jobs[i]; j.again != nil {
			for k, first := range f.jobs[:i] {
				if first.again == nil && first.key == j.key {
					i = k
					break
				}
			}
		}
	}
	j := f.jobs[i]
	f.jobs = slices.Delete(f.jobs, i, i+1)
	return j
}

// hurry has the links from the at-th exchange of s followed first, until
// the function it returns is called.
func (f *follower) hurry(s *Scope, at int) func() {
	k := waitedAt{s, at}
	f.mu.Lock()
	if f.waited == nil {
		f.waited = map[waitedAt]int{}
	}
	f.waited[k]++
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		if f.waited[k]--; f.waited[k] == 0 {
			delete(f.waited, k)
		}
		f.mu.Unlock()
	}
}

// close waits for the queue to empty, then stops the workers.
func (f *follower) close() {
	// The run has ended but for the links still queued: twice the
	// workers follow them, the target answering nothing else.
	for range f.n {
		f.workers.Add(1)
		go f.work()
	}
	f.pending.Wait()
	f.mu.Lock()
	f.closed = true
	f.cond.Broadcast()
	f.mu.Unlock()
	f.workers.Wait()
	// The connections the workers left open would hold up a server that
	// shuts down gracefully after the run.
	f.mu.Lock()
	clients := f.clients
	f.clients = map[*world]*http.Client{}
	f.mu.Unlock()
	for _, c := range clients {
		c.CloseIdleConnections()
	}
}

func (f *follower) skipped() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.skip
}

// client is the client that follows the links of w: credentials to w's
// origin only.
func (f *follower) client(w *world) *http.Client {
	w = w.family()
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.clients[w]
	if !ok {
		c = guardedClient(f.a, w)
		f.clients[w] = c
	}
	return c
}

// release closes the idle connections of w's client, and forgets it.
func (f *follower) release(w *world) {
	w = w.family()
	f.mu.Lock()
	c, ok := f.clients[w]
	delete(f.clients, w)
	f.mu.Unlock()
	if ok {
		c.CloseIdleConnections()
	}
}

// do follows one link and checks where it leads, or checks it against
// the answer an earlier link to the same address got.
func (f *follower) do(j *job) {
	if j.again != nil {
		<-j.again.done
		if y := j.again.y; y != nil {
			if rf := j.w.leads(j, y); rf != nil {
				f.report(j, y, slices.Clone(j.again.chain), []*Finding{rf}, "API-10")
			} else {
				f.report(j, y, nil, nil, "API-10")
			}
		}
		return
	}
	f.mu.Lock()
	res := f.seen[seenKey(j)]
	f.mu.Unlock()
	defer close(res.done)
	req, err := http.NewRequestWithContext(origin.Via(context.Background(), "the \""+j.rel+"\" link the audit follows"), http.MethodGet, j.to.String(), nil)
	if err != nil {
		return
	}
	req.Header.Set("Accept", "application/hal+json, application/json;q=0.9, */*;q=0.1")
	if auth := j.from.x.Header.Get("Authorization"); auth != "" {
		req.Header.Set("Authorization", auth)
	}
	start := f.a.o.Now()
	resp, err := f.client(j.w).Do(req)
	if err != nil {
		return // no answer: the runners tell a target that stopped answering
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return // cut, or broken off: not a finding of the audit's
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return // the target protects itself, or a gateway answers for it: the runners tell which
	}
	// Its transcript is written, masked, only for a finding (report):
	// masking every answer the audit follows cost a third of a run.
	x := Exchange{Exchange: repro.Exchange{Method: req.Method, URL: req.URL.String(), Header: req.Header.Clone(),
		Status: resp.StatusCode, RespHeader: resp.Header.Clone(), RespBody: shortened(resp.Header, body)}, Start: start, End: f.a.o.Now()}
	y := newObserved(j.w, x)
	if y.url == nil {
		return
	}
	j.scope.mu.Lock()
	y.contract = j.scope.contract
	j.scope.mu.Unlock()
	f.a.noteOffers(y)
	chain := append(append([]repro.Exchange(nil), j.chain...), x.Exchange)
	found := j.w.check(y)
	if rf := j.w.leads(j, y); rf != nil {
		found = append(found, rf)
	}
	f.report(j, y, chain, found, append(y.checks, "API-10")...)
	if len(body) <= maxKept {
		res.y, res.chain = y, chain
	}
	if y.followable() {
		// A walk that broke API-5, or read as many pages as it may, goes
		// no further; the page's other links are followed.
		// A walk goes forward only: a page reached through "prev" starts
		// walks of its own.
		on := j.walk
		if j.rel != "next" {
			on = nil
		}
		stop := on != nil && (len(found) > 0 || on.over())
		f.queueFrom(j.scope, j.w, y, j.at, j.place, chain, on, stop)
	}
}

// report records the findings about y, reached by j through chain, and
// the checks made.
func (f *follower) report(j *job, y *observed, chain []repro.Exchange, found []*Finding, checks ...string) {
	if len(found) > 0 {
		chain = f.transcribed(chain)
	}
	for _, fd := range found {
		fd.Place, fd.at, fd.scope, fd.Followed = j.place, j.at, j.scope, chain
		fd.stands = both(fd.stands, func() bool { return j.w.holds(y.caller, y.x.End) })
		fd.Message = f.a.o.Redactor.String(fd.Message)
		fd.Cause = f.a.o.Redactor.String(fd.Cause)
		fd.Transcript = f.transcript(y.x.Exchange)
	}
	f.a.record(j.scope, j.at, false, checks, found)
}

// transcript is x's transcript, masked, written when x has none.
func (f *follower) transcript(x repro.Exchange) string {
	if x.Transcript != "" {
		return f.a.o.Redactor.String(x.Transcript)
	}
	return repro.Transcribe(f.a.o.Redactor, x)
}

// transcribed is a copy of chain with every transcript written.
func (f *follower) transcribed(chain []repro.Exchange) []repro.Exchange {
	out := slices.Clone(chain)
	for i := range out {
		out[i].Transcript = f.transcript(out[i])
	}
	return out
}

// pageID names a page within its walk: its number, when it says it, else
// its address.
func pageID(o *observed) string {
	if p, ok := o.doc["page"].(map[string]any); ok {
		if n, ok := idText(p["number"]); ok {
			return "#" + n
		}
	}
	return key(o.url)
}

// over reports whether the walk read as many pages as it may.
func (wk *walk) over() bool {
	wk.mu.Lock()
	defer wk.mu.Unlock()
	return wk.ended
}

// maxPage is the most of an answer that is not JSON (a page of
// documentation) the audit keeps: it judges only that it is not empty,
// and masks and shows what it keeps.
const maxPage = 2 << 10

// shortened is body, or its start when it is longer than maxPage and not
// JSON, with a note of its size.
func shortened(h http.Header, body []byte) []byte {
	if len(body) <= maxPage || strings.Contains(strings.ToLower(h.Get("Content-Type")), "json") {
		return body
	}
	out := append([]byte(nil), body[:maxPage]...)
	return append(out, fmt.Sprintf("\n[… the first %d bytes of %d: the audit keeps no more of an answer that is not JSON]", maxPage, len(body))...)
}
