package suite

import (
	"io"
	"slices"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cucumber/godog"

	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
)

// TestPhasesKeepTheListWalksApartFromEveryCreation: against a deployment,
// a scenario that walks the whole event list runs first, and neither
// scenarios that are @writes nor those whose steps create what they need
// (the user manages an event, the list fills its last page) start before
// it has ended, since a
// creation during the walk shifts its pages; the scenarios that only
// read run beside it; and a scenario that moves the target's clock runs
// alone: a @clock one, and a @slow one, which against a deployment with
// a control API moves its clock too (without one it is watched apart,
// Run).
func TestPhasesKeepTheListWalksApartFromEveryCreation(t *testing.T) {
	plan := []*selection.Planned{
		planned("listing.feature", 30, []string{"@spec"}, "the event list has more than one page", "a caller walks through the event list by following its \"next\" links", "no event is listed on two pages"),
		planned("reading.feature", 12, []string{"@spec"}, "the user manages an event", "a caller reads the event"),
		planned("writing.feature", 5, []string{"@spec", "@writes"}, "the user creates an event through the \"create-new-event\" link"),
		planned("api_root.feature", 5, []string{"@spec"}, "a caller reads the API root"),
		planned("listing.feature", 80, []string{"@spec"}, "the event list fills its last page exactly", "the last page has no \"next\" link"),
		planned("token_validity.feature", 11, []string{"@spec", "@local", "@clock"}, "the user has a token", "599 seconds pass"),
		planned("token_validity.feature", 66, []string{"@spec", "@slow"}, "the user has a token", "the lifetime announced with the access token has passed"),
	}
	all := phases(plan, 8, true)
	if len(all) != 2 {
		t.Fatalf("phases = %+v, want two: the run at once, then the scenarios alone", all)
	}
	together := all[0]
	if !slices.Equal(together.first, []string{"listing.feature:30"}) || !slices.Equal(together.paths, []string{"api_root.feature:5"}) ||
		!slices.Equal(together.writers, []string{"reading.feature:12", "listing.feature:80", "writing.feature:5"}) || together.concurrency != 8 {
		t.Errorf("first %v, beside it %v, after it %v (concurrency %d): want the walk first, the read of the API root beside it, the scenarios that create events after it",
			together.first, together.paths, together.writers, together.concurrency)
	}
	if last := all[1]; last.concurrency != 1 || !slices.Equal(last.paths, []string{"token_validity.feature:11", "token_validity.feature:66"}) {
		t.Errorf("a scenario that moves the target's clock should run alone, after the others: %+v", last)
	}
}

// TestTheLongestScenarioStartsFirst: within a phase, the outline whose
// longest example takes longest starts first, however many examples
// another has (they run at once): a scenario that walks the event list
// three times before an outline of six short examples.
func TestTheLongestScenarioStartsFirst(t *testing.T) {
	var plan []*selection.Planned
	for i := range 6 {
		p := &selection.Planned{File: "spellings.feature", Line: 30 + i, ScenarioLine: 20, Tags: []string{"@spec", "@writes"}, Run: true}
		for range 12 {
			p.Steps = append(p.Steps, selection.PlannedStep{Text: "a caller sends DELETE to the event's address written with a trailing slash"})
		}
		plan = append(plan, p)
	}
	walks := &selection.Planned{File: "listing.feature", Line: 40, ScenarioLine: 40, Tags: []string{"@spec"}, Run: true}
	for _, text := range []string{"the event list has more than one page",
		"a caller walks through the event list by following its \"next\" links", "every page offers the caller exactly what they may do",
		"the user walks through the event list by following its \"next\" links", "every page offers the caller exactly what they may do"} {
		walks.Steps = append(walks.Steps, selection.PlannedStep{Text: text})
	}
	plan = append(plan, walks)
	all := phases(plan, 8, false)
	if len(all) != 1 || len(all[0].paths) != 2 || all[0].paths[0] != "listing.feature:40" {
		t.Errorf("phases = %+v, want the walks through the list first", all)
	}
}

// TestAScenarioThatAsksForTokensStartsBeforeOneOfAsManyReads: a step
// that asks for a token weighs three reads (the target hashes a password
// and a client secret to answer it), and one that asks for a refresh
// five (a password grant first), so that the outline of refused token
// requests, two steps an example, does not start last and hold up the
// end of its phase behind scenarios of four reads.
func TestAScenarioThatAsksForTokensStartsBeforeOneOfAsManyReads(t *testing.T) {
	reads := planned("reading.feature", 7, []string{"@spec"}, "the user reads the API root", "the user reads the event list", "the user reads the first event", "the answer is a HAL resource")
	refusal := planned("token_refusals.feature", 10, []string{"@spec"}, "the client asks for a refresh of the refresh token with a wrong client secret", "no token is issued")
	grant := planned("tokens.feature", 13, []string{"@spec"}, "the client asks for the user's token", "a token is issued")
	got := phases([]*selection.Planned{reads, grant, refusal}, 8, false)[0].paths
	want := []string{"token_refusals.feature:10", "reading.feature:7", "tokens.feature:13"}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

// scheduleFeature has a scenario that looks at the event list as a whole
// (the page holds), six that only read and four that write, each step
// of known length (scheduleSteps).
const scheduleFeature = `Feature: Scheduling
  @spec @API-5
  Scenario: The walk
    Given it takes 200 ms to walk
    Then the page holds every event

  @spec @API-1
  Scenario Outline: A read <n>
    Given it takes 300 ms to read

    Examples:
      | n |
      | 1 |
      | 2 |
      | 3 |
      | 4 |
      | 5 |
      | 6 |

  @spec @writes @API-6
  Scenario Outline: A write <n>
    Given it takes 100 ms to write

    Examples:
      | n |
      | 1 |
      | 2 |
      | 3 |
      | 4 |
`

// ran is when one scenario of scheduleFeature ran.
type ran struct {
	kind       string // walk, read or write
	start, end time.Time
}

// scheduleSteps are the steps of scheduleFeature; each records when it ran.
func scheduleSteps(mu *sync.Mutex, runs *[]ran) func(target.Target) func(*godog.ScenarioContext) {
	return func(target.Target) func(*godog.ScenarioContext) {
		return func(sc *godog.ScenarioContext) {
			sc.Step(`^it takes (\d+) ms to (\w+)$`, func(ms int, kind string) error {
				r := ran{kind: kind, start: time.Now()}
				time.Sleep(time.Duration(ms) * time.Millisecond)
				r.end = time.Now()
				mu.Lock()
				*runs = append(*runs, r)
				mu.Unlock()
				return nil
			})
			sc.Step(`^the page holds every event$`, func() error { return nil })
		}
	}
}

// TestWritersRunBesideReadersOnceTheWalkHasEnded: against a deployment,
// the scenario that looks at the list as a whole starts first, and the
// scenarios that write start as soon as it has ended, beside the
// scenarios that only read, not after all of them; none overlaps the
// walk, and no more scenarios run at once than -concurrency.
func TestWritersRunBesideReadersOnceTheWalkHasEnded(t *testing.T) {
	var mu sync.Mutex
	var runs []ran
	o := Options{
		Target:      remote(startReference(t, target.ServerConfig{}, nil)),
		Features:    fstest.MapFS{"schedule.feature": {Data: []byte(scheduleFeature)}},
		Steps:       scheduleSteps(&mu, &runs),
		Concurrency: 3,
		Output:      io.Discard,
	}
	if _, err := Run(o); err != nil {
		t.Fatalf("Run = %v", err)
	}
	if len(runs) != 11 {
		t.Fatalf("%d scenarios ran, want 11", len(runs))
	}
	var walk ran
	firstRead, lastRead, firstWrite := time.Time{}, time.Time{}, time.Time{}
	for _, r := range runs {
		switch r.kind {
		case "walk":
			walk = r
		case "read":
			if r.end.After(lastRead) {
				lastRead = r.end
			}
			if firstRead.IsZero() || r.start.Before(firstRead) {
				firstRead = r.start
			}
		case "write":
			if firstWrite.IsZero() || r.start.Before(firstWrite) {
				firstWrite = r.start
			}
		}
	}
	for _, r := range runs {
		if r.kind == "write" && r.start.Before(walk.end) && walk.start.Before(r.end) {
			t.Errorf("a write ran %v-%v, during the walk %v-%v", r.start, r.end, walk.start, walk.end)
		}
		at := 0
		for _, x := range runs {
			if !x.start.After(r.start) && x.end.After(r.start) {
				at++
			}
		}
		if at > o.Concurrency {
			t.Errorf("%d scenarios ran at once, at %v; -concurrency %d", at, r.start, o.Concurrency)
		}
	}
	if walk.start.After(firstRead.Add(100 * time.Millisecond)) {
		t.Errorf("the walk started %v after the first read: it should take its slot first", walk.start.Sub(firstRead))
	}
	if !firstWrite.Before(lastRead) {
		t.Errorf("the first write started %v after the last read ended: the writes waited for every read", firstWrite.Sub(lastRead))
	}
}

// TestReadersThatAskForTokensStartAfterTheOtherReaders: beside the walk,
// the readers that ask for tokens start after those that do not, however
// long, so that a run's token requests spread over the time the writers
// run too instead of all coming at its start, where the target hashes a
// password for each (and may count them against a budget per address).
func TestReadersThatAskForTokensStartAfterTheOtherReaders(t *testing.T) {
	plan := []*selection.Planned{
		planned("listing.feature", 80, []string{"@spec"}, "the event list has more than one page", "the page holds some number of events"),
		planned("tokens.feature", 13, []string{"@spec"}, "the client asks for the user's token", "a token is issued", "the client asks for a refresh of the refresh token", "a token is issued"),
		planned("api_root.feature", 7, []string{"@spec"}, "a caller reads the API root", "the answer is a HAL resource"),
		planned("writing.feature", 7, []string{"@spec", "@writes"}, "the user creates an event through the \"create-new-event\" link"),
	}
	together := phases(plan, 8, true)[0]
	if want := []string{"api_root.feature:7", "tokens.feature:13"}; !slices.Equal(together.paths, want) {
		t.Errorf("readers beside the walk in the order %v, want %v", together.paths, want)
	}
	if inProcess := phases(plan, 8, false)[0].paths; inProcess[0] != "tokens.feature:13" {
		t.Errorf("in-process, where every scenario has a server of its own, the longest should start first: %v", inProcess)
	}
}

// TestASlotThatComesFreeGoesToTheRunThatHoldsFewest: of two runs that
// wait, the one that holds no slot gets the slot the other gives back,
// though the other began to wait first.
func TestASlotThatComesFreeGoesToTheRunThatHoldsFewest(t *testing.T) {
	pool := newSlots(2)
	pool.take(1)
	pool.take(1) // the readers hold both
	waits := func(run int) {
		for waiting := 0; waiting == 0; {
			time.Sleep(time.Millisecond)
			pool.mu.Lock()
			waiting = pool.waiting[run]
			pool.mu.Unlock()
		}
	}
	writer, reader := make(chan struct{}), make(chan struct{})
	go func() { pool.take(1); close(reader) }()
	waits(1) // a reader waits first
	go func() { pool.take(2); close(writer) }()
	waits(2)
	pool.give(1)
	select {
	case <-writer:
	case <-reader:
		t.Fatal("the readers, who held both slots, took the one that came free before the writers, who held none")
	case <-time.After(5 * time.Second):
		t.Fatal("nobody took the slot that came free")
	}
	select {
	case <-reader:
		t.Fatal("a reader took a slot though none was free")
	case <-time.After(20 * time.Millisecond):
	}
	pool.give(2)
	<-reader
}

// TestAWaiterKeptBackTakesASlotLeftFree: two slots come free at once
// while a run that holds none and a run that holds many wait; once the
// first has taken one, the second takes the other at once, not when the
// next slot comes free.
func TestAWaiterKeptBackTakesASlotLeftFree(t *testing.T) {
	pool := newSlots(3)
	pool.take(1)
	pool.take(1)
	pool.take(1)
	waits := func(run, n int) {
		for {
			pool.mu.Lock()
			w := pool.waiting[run]
			pool.mu.Unlock()
			if w == n {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
	reader, writer := make(chan struct{}), make(chan struct{})
	go func() { pool.take(1); close(reader) }()
	waits(1, 1)
	go func() { pool.take(2); close(writer) }()
	waits(2, 1)
	pool.mu.Lock() // two slots come free at once
	pool.free += 2
	pool.held[1] -= 2
	pool.cond.Broadcast()
	pool.mu.Unlock()
	for _, c := range []chan struct{}{writer, reader} {
		select {
		case <-c:
		case <-time.After(5 * time.Second):
			t.Fatal("a waiter did not take a slot left free")
		}
	}
}

// planned is a scenario of the plan at file:line, run, with tags and
// steps.
func planned(file string, line int, tags []string, steps ...string) *selection.Planned {
	p := &selection.Planned{File: file, Line: line, ScenarioLine: line, Tags: tags, Run: true}
	for _, s := range steps {
		p.Steps = append(p.Steps, selection.PlannedStep{Text: s})
	}
	return p
}
