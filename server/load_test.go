package server

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"eventsvc/server/config"
)

// The size of the load of TestConcurrentLoadLosesNothing: a few hundred
// requests in all, quick under the race detector on two cores.
const (
	loadWorkers      = 8
	loadOpsPerWorker = 45
	// loadBudget bounds the load phase in time: a worker starts no new
	// operation after it (the counts then come out lower, and the log says so).
	loadBudget = 15 * time.Second
	// loadCost is the bcrypt cost of the load test's credentials.
	loadCost = 4
	// loadMaxErrors caps the failures reported one by one.
	loadMaxErrors = 25
)

// TestConcurrentLoadLosesNothing runs a few hundred requests from parallel
// workers against a server on a loopback port: password grants and
// refreshes, creates, updates by the manager and refused ones by others,
// reads of events and of list pages. Afterwards every created event must be
// listed once, and every event must show exactly one body, never a mix:
// its creation body or one of its manager's accepted updates, not one
// superseded by an update answered before the read was sent (no lost or
// stale update), never the body of a refused update. No answer may be a 5xx.
func TestConcurrentLoadLosesNothing(t *testing.T) {
	conf := loadConfig(t)
	st := newLoadState(t, conf, startLoadServer(t, conf))
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d; %d workers, %d operations each; base %s", seed, loadWorkers, loadOpsPerWorker, st.base)
	loadTime := st.load(seed)
	if st.aborted.Load() {
		t.FailNow()
	}
	if st.budget.Load() {
		t.Logf("the load phase reached its time budget of %v: some workers stopped early", loadBudget)
	}
	// Afterwards: walk the whole list, then read every event alone.
	listed := st.walkList()
	st.compareListed(listed)
	st.readEach(listed)
	stale := st.checkOrder()
	st.checkRefused()
	st.summarize(loadTime, stale)
}

// newLoadState is the state of a load against the server at base, whose
// configuration is conf; its context ends with the test.
func newLoadState(t *testing.T, conf *config.Config, base string) *loadState {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st := &loadState{
		t: t, base: base, client: loadClient(t, loadWorkers), ctx: ctx, cancel: cancel,
		statuses: map[string]map[int]int{},
		intents:  map[int]loadIntent{},
		records:  map[int64]*loadRecord{},
		byUser:   make([][]int64, len(loadUsers)),
	}
	for _, u := range loadUsers {
		a, ok := conf.Accounts.ByEmail(u.email)
		if !ok {
			t.Fatalf("no account %s", u.email)
		}
		st.managerIDs = append(st.managerIDs, a.ID)
	}
	return st
}

// load runs the workers, each drawing its operations from seed, until
// they are done or the budget is spent, and returns how long it took.
func (st *loadState) load(seed uint64) time.Duration {
	start := time.Now()
	deadline := start.Add(loadBudget)
	var wg sync.WaitGroup
	for n := range loadWorkers {
		w := &loadWorker{st: st, n: n, user: n % len(loadUsers), rng: rand.New(rand.NewPCG(seed, uint64(n)))}
		wg.Go(func() { w.run(deadline) })
	}
	wg.Wait()
	return time.Since(start)
}

// walkList walks the whole list page by page, checking each page's
// count, links and events, and returns the events listed; the walk must
// be in id order.
func (st *loadState) walkList() map[int64]loadView {
	t := st.t
	listed := map[int64]loadView{}
	var order []int64
	const pageSize = 7
	for page := 0; ; page++ {
		path := fmt.Sprintf("/api/events?page=%d&size=%d", page, pageSize)
		r, ok := st.do(context.Background(), loadOpFinalList, "GET", path, "", "", nil, false)
		if !ok {
			t.FailNow()
		}
		if !st.expect(loadOpFinalList, "GET", path, r, http.StatusOK) {
			t.FailNow()
		}
		var p loadPage
		if err := json.Unmarshal(r.body, &p); err != nil {
			t.Fatalf("GET %s: %v: %s", path, err, loadSnippet(r.body))
		}
		if p.Page.TotalElements != len(st.records) {
			st.errorf("GET %s: totalElements %d, want %d (the 201s)", path, p.Page.TotalElements, len(st.records))
		}
		for _, v := range p.Embedded.EventList {
			if _, dup := listed[v.ID]; dup {
				st.errorf("the list shows event %d twice (again on page %d)", v.ID, page)
			}
			listed[v.ID] = v
			order = append(order, v.ID)
			st.checkRead(v, "final "+path, r)
		}
		_, next := p.Links["next"]
		if next != (page+1 < p.Page.TotalPages) {
			st.errorf("GET %s: next link = %v with %d pages", path, next, p.Page.TotalPages)
		}
		if !next || page > len(st.records)/pageSize+1 {
			break
		}
	}
	if !slices.IsSorted(order) {
		st.errorf("the list walk is not in id order: %v", order)
	}
	return listed
}

// compareListed checks that the events listed are those answered 201.
func (st *loadState) compareListed(listed map[int64]loadView) {
	var missing, extra []int64
	for id := range st.records {
		if _, ok := listed[id]; !ok {
			missing = append(missing, id)
		}
	}
	for id := range listed {
		if _, ok := st.records[id]; !ok {
			extra = append(extra, id)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	if len(missing) > 0 {
		st.errorf("events answered 201 but missing from the list: %v", missing)
	}
	if len(extra) > 0 {
		st.errorf("events in the list that no 201 announced: %v", extra)
	}
}

// readEach reads every event created alone, in id order, and checks that
// it shows what the list showed of it.
func (st *loadState) readEach(listed map[int64]loadView) {
	ids := slices.Sorted(maps.Keys(st.records))
	for _, id := range ids {
		path := "/api/events/" + strconv.FormatInt(id, 10)
		r, ok := st.do(context.Background(), loadOpFinalGet, "GET", path, "", "", nil, false)
		if !ok {
			st.t.FailNow()
		}
		if !st.expect(loadOpFinalGet, "GET", path, r, http.StatusOK) {
			continue
		}
		var v loadView
		if err := json.Unmarshal(r.body, &v); err != nil || v.ID != id {
			st.errorf("GET %s: bad body (%v): %s", path, err, loadSnippet(r.body))
			continue
		}
		st.checkRead(v, "final GET "+path, r)
		if l, ok := listed[id]; ok && l.loadBody.Name != v.Name {
			st.errorf("event %d: the list shows %q, GET shows %q", id, l.Name, v.Name)
		}
	}
}

// checkOrder checks the order of every read, and returns how many were
// stale. A read must not show a write superseded by another accepted
// write of the same event that was sent after the first one's answer and
// answered before the read was sent. For the final reads, this says: the
// creation body only when no update was accepted, and otherwise one of
// the accepted updates not superseded so.
func (st *loadState) checkOrder() (stale int) {
	for _, rd := range st.reads {
		rec := st.records[rd.id]
		if rec == nil {
			continue // read of an event whose 201 was lost: reported above
		}
		w, found := rec.create, rec.create.k == rd.k
		for _, a := range rec.accepted {
			if a.k == rd.k {
				w, found = a, true
			}
		}
		if !found {
			in := st.intents[rd.k]
			st.errorf("%s: event %d shows k=%d (%s), never accepted for it", rd.where, rd.id, rd.k, loadIntentNames[in.kind])
			continue
		}
		for _, x := range rec.accepted {
			if x.sent > w.recv && x.recv < rd.sent {
				stale++
				st.errorf("%s: event %d shows k=%d, but the update k=%d, sent after k=%d was answered, had been answered 200 before this read was sent: a lost or stale update",
					rd.where, rd.id, rd.k, x.k, rd.k)
				break
			}
		}
	}
	return stale
}

// checkRefused checks that no read showed the body of a refused update.
func (st *loadState) checkRefused() {
	for _, rec := range st.records {
		for _, k := range rec.refused {
			for _, rd := range st.reads {
				if rd.k == k {
					st.errorf("event %d: the refused update k=%d shows in %s", rec.id, k, rd.where)
				}
			}
		}
	}
}

// summarize logs what the load did: its rate, the operations of each
// kind, the reads checked and the stale ones, and the statuses of each
// kind of request.
func (st *loadState) summarize(loadTime time.Duration, stale int) {
	updates, refused, hot := 0, 0, 0
	for _, rec := range st.records {
		updates += len(rec.accepted)
		refused += len(rec.refused)
		if len(rec.accepted) > 1 {
			hot++
		}
	}
	var lines []string
	total := 0
	for _, kind := range slices.Sorted(maps.Keys(st.statuses)) {
		var parts []string
		for _, code := range slices.Sorted(maps.Keys(st.statuses[kind])) {
			n := st.statuses[kind][code]
			total += n
			parts = append(parts, fmt.Sprintf("%d×%d", code, n))
		}
		lines = append(lines, fmt.Sprintf("  %-22s %s", kind, strings.Join(parts, " ")))
	}
	st.t.Logf("load phase %v, %d requests in all (%.0f/s during the load); %d password grants, %d refreshes, %d events created, %d updates accepted (%d events updated more than once), %d refused with 403, %d reads checked, %d stale\nstatuses:\n%s",
		loadTime.Round(time.Millisecond), total, float64(total-st.statuses[loadOpFinalList][200]-st.statuses[loadOpFinalGet][200])/loadTime.Seconds(),
		st.grants, st.refreshs, len(st.records), updates, hot, refused, len(st.reads), stale, strings.Join(lines, "\n"))
}
