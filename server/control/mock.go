package control

import (
	"math/rand/v2"
	"slices"
	"time"

	"eventsvc/server"
	"eventsvc/server/account"
	"eventsvc/server/clientcheck"
	"eventsvc/server/clock"
	"eventsvc/server/event"
	"eventsvc/server/fault"
	"eventsvc/server/journal"
)

// JournalSize is how many requests the journal of a Mock keeps.
const JournalSize = 500

// Mock is what makes a reference server a mock its control API steers: a
// clock that can be moved forward, the request journal and the fault
// rules. `eventsvc serve -control` and package eventsvctest wire it the
// same way: Steer puts it in the public server's options, Control makes
// the control API on it.
type Mock struct {
	Clock   *clock.Offset
	Journal *journal.Journal
	Faults  *fault.Set
	// Findings judges the clients of the public server (package
	// clientcheck): GET /findings.
	Findings *clientcheck.Checker
}

// NewMock returns a Mock whose clock reads base (clock.System{} for a
// server a person runs), not yet moved; whose journal keeps the last
// JournalSize requests, stamped by that clock; and whose fault rules draw
// their fractions from math/rand/v2. It has no rule.
func NewMock(base clock.Clock) Mock {
	clk := clock.NewOffset(base)
	return Mock{Clock: clk, Journal: journal.New(JournalSize, clk), Faults: fault.NewSet(rand.Float64), Findings: clientcheck.New(clk)}
}

// Steer sets the clock, journal, faults and client checks of o, the
// options of the public server, to m's.
func (m Mock) Steer(o *server.Options) {
	o.Clock, o.Journal, o.Faults, o.ClientChecks = m.Clock, m.Journal, m.Faults, m.Findings
}

// Control returns the control API of o, with m's clock, faults, journal
// and client checks in place of o's.
func (m Mock) Control(o Options) *Control {
	o.Clock, o.Faults, o.Journal, o.Findings = m.Clock, m.Faults, m.Journal, m.Findings
	return New(o)
}

// DemoStart returns the Start of n demo events (event.Demo), dated from at
// onwards and managed in turn by each of accounts, made afresh at each
// call.
func DemoStart(n int, accounts *account.Registry, at time.Time) func() []event.Event {
	var ids []int64
	for id := int64(1); id <= int64(accounts.Len()); id++ {
		if _, ok := accounts.ByID(id); ok {
			ids = append(ids, id)
		}
	}
	return func() []event.Event { return event.Demo(n, ids, at) }
}

// SeedStart reads a seed (event.ParseSeed, its managers found among
// accounts) once, and returns the Start that hands out a copy of its
// events at each call. It returns ParseSeed's error as it is: for a seed
// with an invalid event, a *event.SeedError that lists the problems.
func SeedStart(seed []byte, accounts *account.Registry) (func() []event.Event, error) {
	events, err := event.ParseSeed(seed, ManagerOf(accounts))
	if err != nil {
		return nil, err
	}
	return func() []event.Event { return slices.Clone(events) }, nil
}
