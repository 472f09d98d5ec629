package suite

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"eventsvc/conformance/selection"
)

// exclusive is the text of a step that looks at the event list as a
// whole (its size, which events are on which page, its order): a scenario
// with one must not run while other scenarios create events on the same
// target. A walk that checks each page on its own (its links) need not.
var exclusive = regexp.MustCompile(`(?i)listed on two pages|every event created for it is listed|leads back to the page before it|holds some number of events|as many events as before|the page (holds|reports)|listed in the order`)

// createsWhatItNeeds matches the steps that create events when the run may
// write, though their scenarios are not @writes (read-only, they use what
// the target holds): against a deployment they count as writing. The
// list that fills its last page exactly creates the events it lacks.
var createsWhatItNeeds = regexp.MustCompile(`(?i)^the user manages an event$|has more than one page|fills its last page`)

// walksTheList is the text of a step that reads every page of the event
// list, or waits for the audit to follow every link of every page.
var walksTheList = regexp.MustCompile(`(?i)walks? through the event list|every page|more than one page|every event (it lists|created)`)

// asksForToken is the text of a step that asks the token endpoint for a
// token, or has a caller that needs one: "the client asks for the user's
// token", "the user has a token", "the user sends a request that needs a
// token".
var asksForToken = regexp.MustCompile(`(?i)asks for|has a token|has refreshed|needs a token`)

// stepCost is how long a step takes, roughly, in reads: 1; 3 for a step
// that walks the event list (walksTheList) or asks for a token
// (asksForToken: to answer, the target hashes a password and a client
// secret, which takes it longer than a read, the more so while other
// scenarios ask too); 5 for one that asks for a refresh, a password grant
// first.
func stepCost(text string) int {
	switch {
	case walksTheList.MatchString(text):
		return 3
	case asksForToken.MatchString(text) && strings.Contains(strings.ToLower(text), "refresh"):
		return 5
	case asksForToken.MatchString(text):
		return 3
	}
	return 1
}

// phase is what a concurrent run runs at once, in one godog run or,
// against a deployment, in three that share its slots (runPhase): first,
// the scenario that looks at the event list as a whole, started before
// the others; paths, beside it; and writers, the scenarios that create
// or change events, each started once every scenario of first has ended.
// Without writers, first leads paths; without first, paths holds the
// writers too.
type phase struct {
	first, paths, writers []string
	concurrency           int
}

// phases splits a concurrent run into phases. In-process, where every
// scenario has its own server, it is one run of everything. Against a
// deployment, scenarios that look at the event list as a whole
// (exclusive, or tagged @serial) must not overlap with scenarios that
// create events, nor with each other: the first such scenario runs first,
// beside the scenarios that do not write; those that write start once it
// has ended, beside the readers still running; then the other exclusive
// ones and those that move the target's clock (@clock, through its
// control API) run one at a time. Within a run the longest scenarios
// start first, so that none starts last and holds up the end: the outline
// whose longest example has the most steps, a step that walks the event
// list, looks at every page of it or asks for a token counting as several
// (stepCost); but beside the walk, the readers that ask for tokens start
// after the other readers. A serial run is one run of everything, in
// order.
func phases(plan []*selection.Planned, concurrency int, remote bool) []phase {
	if concurrency <= 1 {
		return []phase{{paths: []string{"."}, concurrency: 1}}
	}
	type group struct {
		place     string
		cost      int // the cost of its longest scenario (stepCost)
		scenarios int
		writes    bool
		exclusive bool
		clock     bool // moves the clock of the whole target
		tokens    bool // asks for tokens (asksForToken)
	}
	var groups []*group
	byPlace := map[string]*group{}
	for _, p := range plan {
		if !p.Run {
			continue
		}
		place := fmt.Sprintf("%s:%d", p.File, p.ScenarioLine)
		g, ok := byPlace[place]
		if !ok {
			g = &group{place: place}
			byPlace[place] = g
			groups = append(groups, g)
		}
		cost := 0
		for _, st := range p.Steps {
			cost += stepCost(st.Text)
		}
		g.cost, g.scenarios = max(g.cost, cost), g.scenarios+1
		g.writes = g.writes || slices.Contains(p.Tags, "@writes") ||
			slices.ContainsFunc(p.Steps, func(s selection.PlannedStep) bool { return createsWhatItNeeds.MatchString(s.Text) })
		// A @slow scenario that runs here moves the clock too: against a
		// deployment without a control API it is watched apart.
		g.clock = g.clock || slices.Contains(p.Tags, "@clock") || slices.Contains(p.Tags, "@slow")
		g.exclusive = g.exclusive || slices.Contains(p.Tags, "@serial") ||
			slices.ContainsFunc(p.Steps, func(s selection.PlannedStep) bool { return exclusive.MatchString(s.Text) })
		g.tokens = g.tokens || slices.ContainsFunc(p.Steps, func(s selection.PlannedStep) bool { return asksForToken.MatchString(s.Text) })
	}
	longestFirst := func(a, b *group) int { return cmp.Or(b.cost-a.cost, b.scenarios-a.scenarios) }
	slices.SortStableFunc(groups, longestFirst)
	together, alone := phase{concurrency: concurrency}, phase{concurrency: 1}
	for _, g := range groups {
		switch {
		case !remote:
			together.paths = append(together.paths, g.place)
		case g.clock: // every token of the target ages with it
			alone.paths = append(alone.paths, g.place)
		case g.exclusive && len(together.first) == 0:
			together.first = []string{g.place}
		case g.exclusive:
			alone.paths = append(alone.paths, g.place)
		case g.writes:
			together.writers = append(together.writers, g.place)
		default:
			together.paths = append(together.paths, g.place)
		}
	}
	if len(together.first) > 0 && len(together.writers) > 0 {
		// Beside the walk, the readers that ask for tokens start after
		// the others: the run's token requests, for each of which the
		// target hashes a password, then spread over the time the
		// writers run too, instead of all coming at its start.
		slices.SortStableFunc(together.paths, func(a, b string) int {
			return cmp.Compare(b2i(byPlace[a].tokens), b2i(byPlace[b].tokens))
		})
	}
	switch {
	case len(together.writers) == 0:
		together.first, together.paths = nil, append(together.first, together.paths...)
	case len(together.first) == 0:
		// Nothing to wait for: the writers run with the readers, the
		// longest first.
		together.paths = append(together.paths, together.writers...)
		together.writers = nil
		slices.SortStableFunc(together.paths, func(a, b string) int { return longestFirst(byPlace[a], byPlace[b]) })
	}
	var out []phase
	for _, ph := range []phase{together, alone} {
		if len(ph.first)+len(ph.paths)+len(ph.writers) > 0 {
			out = append(out, ph)
		}
	}
	return out
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// runPhase runs ph and returns godog's status. Its first, its paths and
// its writers are three godog runs at once that share ph.concurrency
// slots (slots): a scenario takes one before it starts and gives it back
// once it has ended. The readers of paths take theirs once first has its
// own, so that it starts first; the writers once every scenario of first
// has ended.
func runPhase(o Options, col *collector, tags string, ph phase) int {
	o.Concurrency = ph.concurrency
	ctx := context.Background()
	if len(ph.first) == 0 {
		return runGodog(ctx, o, col, tags, ph.paths)
	}
	pool := newSlots(ph.concurrency)
	firstStarted, firstEnded := make(chan struct{}), make(chan struct{})
	var once sync.Once
	started := func() { once.Do(func() { close(firstStarted) }) }
	var status [3]int
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(firstEnded)
		defer started() // however first ended
		status[0] = runGodogIn(ctx, o, col, tags, ph.first, &slot{pool: pool, run: 0, took: started})
	})
	for i, run := range []struct {
		paths []string
		after <-chan struct{}
	}{{ph.paths, firstStarted}, {ph.writers, firstEnded}} {
		if len(run.paths) == 0 {
			continue // godog would run every feature
		}
		wg.Go(func() {
			status[i+1] = runGodogIn(ctx, o, col, tags, run.paths, &slot{pool: pool, run: i + 1, after: run.after})
		})
	}
	wg.Wait()
	return status[0] | status[1] | status[2]
}

// slots are the slots of a phase, shared by its godog runs. A slot that
// comes free goes to the run, among those waiting, that holds the fewest:
// once the writers may start, the readers and the writers share the
// phase evenly, and the readers' token requests, for each of which the
// target hashes a password, go beside the writers' requests instead of
// waiting until the writers have taken every slot.
type slots struct {
	mu      sync.Mutex
	cond    *sync.Cond
	free    int
	held    map[int]int // by run
	waiting map[int]int // by run
}

func newSlots(n int) *slots {
	s := &slots{free: n, held: map[int]int{}, waiting: map[int]int{}}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// take waits until a slot is free and no other run that waits holds
// fewer than run, and takes it for run.
func (s *slots) take(run int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waiting[run]++
	for !s.yours(run) {
		s.cond.Wait()
	}
	s.waiting[run]--
	s.free--
	s.held[run]++
	if s.free > 0 {
		s.cond.Broadcast() // a waiter this one kept back may take the next
	}
}

// yours reports whether a slot is free for run; s.mu is held.
func (s *slots) yours(run int) bool {
	if s.free == 0 {
		return false
	}
	for other, n := range s.waiting {
		if other != run && n > 0 && s.held[other] < s.held[run] {
			return false
		}
	}
	return true
}

// give gives back a slot of run.
func (s *slots) give(run int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.free++
	s.held[run]--
	s.cond.Broadcast()
}

// slot is a phase's slots as the scenarios of one of its godog runs take
// them (runGodogIn).
type slot struct {
	pool  *slots
	run   int
	after <-chan struct{} // closed once the scenario may start; nil: at once
	took  func()          // called once the slot is taken; nil: nothing
}

// take waits until the scenario may start and a slot is its run's, and
// takes it.
func (s *slot) take() {
	if s.after != nil {
		<-s.after
	}
	s.pool.take(s.run)
	if s.took != nil {
		s.took()
	}
}

// give gives the slot back.
func (s *slot) give() { s.pool.give(s.run) }
