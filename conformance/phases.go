package conformance

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"eventsvc/conformance/selection"
)

// exclusive is the text of a step that looks at the event list as a
// whole (its size, which events are on which page, its order): a scenario
// with one must not run while other scenarios create events on the same
// target. A walk that checks each page on its own (its links) need not.
var exclusive = regexp.MustCompile(`(?i)listed on two pages|every event created for it is listed|leads back to the page before it|holds some number of events|as many events as before|the page (holds|reports)|listed in the order`)

// createsWhatItNeeds matches the steps that create events when the run may
// write, though their scenarios are not @writes (read-only, they use what
// the target holds): against a deployment they count as writing.
var createsWhatItNeeds = regexp.MustCompile(`(?i)^the user manages an event$|has more than one page`)

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

// phase is one godog run of a concurrent run.
type phase struct {
	paths       []string
	concurrency int
}

// phases splits a concurrent run into godog runs. In-process, where every
// scenario has its own server, it is one run of everything. Against a
// deployment, scenarios that look at the event list as a whole (exclusive,
// or tagged @serial) must not overlap with scenarios that create events,
// nor with each other: first the scenarios that do not write run together
// with the first such scenario, then those that write, then the other
// exclusive ones and those that move the target's clock (@clock, through
// its control API) one at a time. Within a run the longest scenarios start
// first, so that none starts last and holds up the end: the outline whose
// longest example has the most steps, a step that walks the event list,
// looks at every page of it or asks for a token counting as several
// (stepCost). A serial run
// is one run of everything, in order.
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
	}
	slices.SortStableFunc(groups, func(a, b *group) int { return cmp.Or(b.cost-a.cost, b.scenarios-a.scenarios) })
	readers, writers, alone := phase{concurrency: concurrency}, phase{concurrency: concurrency}, phase{concurrency: 1}
	for _, g := range groups {
		switch {
		case !remote:
			readers.paths = append(readers.paths, g.place)
		case g.clock: // every token of the target ages with it
			alone.paths = append(alone.paths, g.place)
		case g.exclusive && !slices.ContainsFunc(groups, func(o *group) bool { return o.exclusive && slices.Contains(readers.paths, o.place) }):
			readers.paths = append(readers.paths, g.place)
		case g.exclusive:
			alone.paths = append(alone.paths, g.place)
		case g.writes:
			writers.paths = append(writers.paths, g.place)
		default:
			readers.paths = append(readers.paths, g.place)
		}
	}
	var out []phase
	for _, ph := range []phase{readers, writers, alone} {
		if len(ph.paths) > 0 {
			out = append(out, ph)
		}
	}
	return out
}

