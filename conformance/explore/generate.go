package explore

import (
	"math/rand/v2"
	"strings"
)

// The generator draws the next action of a sequence from what the
// sequence holds: its events, its accounts' tokens, the run's budgets.
// It reads nothing but the sequence's model and its random source, so
// that a seed gives the same sequence against the same target.

// weightedCaller is a caller and how often it is drawn.
type weightedCaller struct {
	who    string
	weight int
}

// callers are the callers of reads and writes, with their weights.
var callers = []weightedCaller{
	{AsUser, 35}, {AsOther, 25}, {AsAnonymous, 15}, {AsInvalid, 10}, {AsRefresh, 8}, {AsBasic, 7},
}

// maxSequenceEvents is how many events one sequence creates at most, so
// that the run's budget of events serves many sequences.
const maxSequenceEvents = 3

// pageSizes are the page sizes walks and reads of the list ask for, when
// the target has a parameter for it.
var pageSizes = []int{1, 2, 3, 5, 7, 10, 25}

// rels are the relations a follow prefers, from the root, the list and an
// event.
var rels = map[string][]string{
	"root":  {"events", "profile", "self"},
	"list":  {"self", "profile", "next", "get-an-event", "create-new-event"},
	"event": {"self", "profile", "update-event", "get-an-event"},
}

// next draws the sequence's next action.
func (s *sequence) next() Action {
	r := s.r
	type choice struct {
		weight int
		make   func() Action
	}
	has := len(s.m.events) > 0
	choices := []choice{
		{3, func() Action { return Action{Kind: KindRoot, As: s.caller()} }},
		{8, func() Action { return s.withScheme(Action{Kind: KindList, As: s.caller(), Size: s.pageSize()}) }},
		{4, func() Action { return Action{Kind: KindWalk, As: s.caller(), Size: s.pageSize()} }},
		{6, func() Action { return s.followFrom() }},
		{6, func() Action { return Action{Kind: KindRefresh, As: s.account()} }},
		{1, func() Action { return Action{Kind: KindGrant, As: s.account()} }},
		{2, func() Action { return Action{Kind: KindAccessAsRefr, As: s.account()} }},
		{1, func() Action { return Action{Kind: KindDocs} }},
	}
	if !r.readOnly && r.eventsLeft() && len(s.m.events) < maxSequenceEvents {
		w := 5
		if !has {
			w = 30
		}
		choices = append(choices, choice{w, func() Action {
			a := Action{Kind: KindCreate, As: s.writer(), Changes: genChanges(s.rng, r.body, r.mark)}
			return s.withScheme(a)
		}})
	}
	if has {
		choices = append(choices,
			choice{14, func() Action {
				return s.withScheme(Action{Kind: KindRead, As: s.caller(), Event: s.rng.IntN(len(s.m.events))})
			}},
		)
		if !r.readOnly {
			choices = append(choices, choice{14, func() Action {
				a := Action{Kind: KindUpdate, As: s.writer(), Event: s.rng.IntN(len(s.m.events)), Changes: genChanges(s.rng, r.body, r.mark)}
				return s.withScheme(a)
			}})
		}
	}
	choices = append(choices, choice{4, s.drawTogether})
	if ops := s.variantOps(); len(ops) > 0 {
		choices = append(choices, choice{16, func() Action { return s.drawVariant(ops) }})
	}
	// The run's failed logins are kept for the head of the near-misses
	// of the credentials, the likeliest to find a fault, until a
	// sequence tried them (nearMissHeadLeft).
	if r.failedLoginsLeftBeside(r.nearMissHeadLeft()) {
		choices = append(choices, choice{1, func() Action {
			return Action{Kind: KindWrongLogin, Wrong: wrongLogins[s.rng.IntN(len(wrongLogins))]}
		}})
	}
	return drawWeighted(s.rng, choices, func(c choice) int { return c.weight }).make()
}

// maxTogetherEvents is how many events a sequence holds at most after
// creations sent at once: two more than its creations one by one.
const maxTogetherEvents = maxSequenceEvents + 2

// drawTogether draws, one time in four, both users' password grants, to
// be sent at once; otherwise 2 to maxParts creations, updates and
// refreshes of both users, to be sent at once; a second update is of the event of the
// first one time in two, so that updates of one event meet. An account
// that refreshes does nothing else among them, so that what its other
// actions get does not depend on which the target takes first (a refresh
// may revoke the access token they are sent with): the same seed then
// explores the same sequences. The updates of one event are by one caller,
// its manager's all taken or another user's all refused, so that an event
// that reads back as none of them blames one rule (API-9 or AUTH-6).
// Replays may mix them; the model takes that too.
func (s *sequence) drawTogether() Action {
	r := s.r
	if s.rng.IntN(4) == 0 {
		// Both users log in at the same moment: each token must act for
		// the account whose email and password asked for it.
		return Action{Kind: KindTogether, Parts: []Action{{Kind: KindGrant, As: AsUser}, {Kind: KindGrant, As: AsOther}}}
	}
	n := 2 + s.rng.IntN(maxParts-1)
	var parts []Action
	refreshing, writing := map[string]bool{}, map[string]bool{}
	updater := map[int]string{} // who updates each event: one caller
	creations, firstUpdate := 0, -1
	for len(parts) < n {
		who := s.account()
		create := !r.readOnly && r.eventsLeft() && len(s.m.events)+creations < maxTogetherEvents
		update := !r.readOnly && len(s.m.events) > 0
		kind := []string{KindRefresh, KindCreate, KindCreate, KindUpdate, KindUpdate}[s.rng.IntN(5)]
		switch {
		case refreshing[who] || !create && !update:
			kind = KindRefresh
		case kind == KindRefresh && !writing[who]:
		case kind == KindUpdate && update, !create:
			kind = KindUpdate
		default:
			kind = KindCreate
		}
		a := Action{Kind: kind, As: who}
		switch kind {
		case KindRefresh:
			refreshing[who] = true
		case KindCreate:
			writing[who] = true
			creations++
			a.Changes = genChanges(s.rng, r.body, r.mark)
		case KindUpdate:
			a.Event = s.rng.IntN(len(s.m.events))
			if firstUpdate >= 0 && s.rng.IntN(2) == 0 {
				a.Event = firstUpdate
			}
			if firstUpdate < 0 {
				firstUpdate = a.Event
			}
			if by, ok := updater[a.Event]; ok {
				a.As = by
			}
			updater[a.Event], writing[a.As] = a.As, true
			a.Changes = genChanges(s.rng, r.body, r.mark)
		}
		parts = append(parts, a)
	}
	return Action{Kind: KindTogether, Parts: parts}
}

// caller draws who reads.
func (s *sequence) caller() string {
	return drawWeighted(s.rng, callers, func(c weightedCaller) int { return c.weight }).who
}

// drawWeighted draws one of xs, each as likely as its weight.
func drawWeighted[T any](rng *rand.Rand, xs []T, weight func(T) int) T {
	total := 0
	for _, x := range xs {
		total += weight(x)
	}
	n := rng.IntN(total)
	for _, x := range xs {
		if n < weight(x) {
			return x
		}
		n -= weight(x)
	}
	return xs[0]
}

// writer draws who writes: mostly the accounts, whose writes are taken or
// refused for permission, sometimes a caller without a valid token.
func (s *sequence) writer() string {
	if s.rng.IntN(5) == 0 {
		return []string{AsAnonymous, AsInvalid, AsRefresh, AsBasic}[s.rng.IntN(4)]
	}
	return s.account()
}

// account draws an account.
func (s *sequence) account() string {
	if s.rng.IntN(3) == 0 {
		return AsOther
	}
	return AsUser
}

// withScheme spells the bearer scheme of an account's request otherwise
// one time in five (spec SVC-7: scheme names are case-insensitive).
func (s *sequence) withScheme(a Action) Action {
	if !holdsToken(a.As) || s.rng.IntN(5) != 0 {
		return a
	}
	var b strings.Builder
	for _, c := range "bearer" {
		if s.rng.IntN(2) == 0 {
			c -= 'a' - 'A'
		}
		b.WriteRune(c)
	}
	if b.String() != "Bearer" {
		a.Scheme = b.String()
	}
	return a
}

// pageSize draws a page size, one time in two when the target has a
// parameter for it.
func (s *sequence) pageSize() int {
	if s.r.sizeParam == "" || s.rng.IntN(2) == 0 {
		return 0
	}
	return pageSizes[s.rng.IntN(len(pageSizes))]
}

// followFrom draws a link to follow.
func (s *sequence) followFrom() Action {
	from := []string{"root", "list", "event"}[s.rng.IntN(3)]
	a := Action{Kind: KindFollow, As: s.caller(), From: from}
	if from == "event" {
		if len(s.m.events) == 0 {
			a.From = "list"
		} else {
			a.Event = s.rng.IntN(len(s.m.events))
		}
	}
	choices := rels[a.From]
	a.Rel = choices[s.rng.IntN(len(choices))]
	return a
}
