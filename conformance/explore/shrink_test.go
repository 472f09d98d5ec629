package explore

import (
	"context"
	"slices"
	"testing"

	"eventsvc/conformance/explore/flawed"
	"eventsvc/conformance/target"
)

func TestWithoutRenumbersTheEventsAfterALeftOutCreation(t *testing.T) {
	actions := []Action{
		{Kind: KindCreate, As: AsUser},
		{Kind: KindRead, As: AsUser, Event: 0},
		{Kind: KindCreate, As: AsUser},
		{Kind: KindUpdate, As: AsOther, Event: 1},
		{Kind: KindRead, As: AsOther, Event: 0},
	}
	got := without(actions, 0, 2)
	want := []Action{{Kind: KindCreate, As: AsUser}, {Kind: KindUpdate, As: AsOther, Event: 0}, {Kind: KindRead, As: AsOther, Event: 0}}
	if !slices.EqualFunc(got, want, func(a, b Action) bool { return a.String() == b.String() }) {
		t.Fatalf("without = %v, want %v", got, want)
	}
	if got := without(actions, 1, 1); len(got) != 4 || got[2].Event != 1 {
		t.Fatalf("leaving out a read renumbers: %v", got)
	}
}

func TestDependenciesKeepCreationsTokensAndTheEventsOwn(t *testing.T) {
	actions := []Action{
		{Kind: KindCreate, As: AsUser},
		{Kind: KindWalk, As: AsAnonymous},
		{Kind: KindRefresh, As: AsOther},
		{Kind: KindRead, As: AsUser, Event: 1},
		{Kind: KindUpdate, As: AsUser, Event: 0},
		{Kind: KindRead, As: AsOther, Event: 0},
	}
	got := dependencies(actions)
	want := []int{0, 2, 4, 5}
	if len(got) != len(want) {
		t.Fatalf("dependencies = %v", got)
	}
	for i, w := range want {
		if got[i].String() != actions[w].String() {
			t.Errorf("dependencies[%d] = %v, want %v", i, got[i], actions[w])
		}
	}
}

func TestWithoutPartRenumbersAndLeavesOnePartAlone(t *testing.T) {
	actions := []Action{
		{Kind: KindCreate, As: AsUser},
		together(createAs(AsUser), updateAs(AsOther, 0, nil), createAs(AsOther)),
		{Kind: KindRead, As: AsUser, Event: 2},
	}
	got := withoutPart(actions, 1, 0)
	want := []Action{actions[0], together(updateAs(AsOther, 0, nil), createAs(AsOther)), {Kind: KindRead, As: AsUser, Event: 1}}
	if !sameActions(got, want) {
		t.Fatalf("withoutPart(1, 0) = %v, want %v", got, want)
	}
	got = withoutPart(got, 1, 0)
	want = []Action{actions[0], createAs(AsOther), {Kind: KindRead, As: AsOther, Event: 1}, {Kind: KindRead, As: AsUser, Event: 1}}
	if !sameActions(got, want) {
		t.Fatalf("withoutPart of a pair = %v, want %v", got, want)
	}
	if got := without(actions, 0, 1); got[0].Parts[1].Event != 0 || got[1].Event != 1 {
		t.Fatalf("leaving out a creation renumbers the parts and what follows: %v", got)
	}
}

func TestSeriallyReadsWhatTheActionsSentTogetherWrote(t *testing.T) {
	actions := []Action{createAs(AsOther), together(createAs(AsUser), updateAs(AsOther, 0, nil), updateAs(AsUser, 0, nil), refreshOf(AsUser))}
	got := serially(actions, 1, actions[1].Parts)
	want := slices.Concat(actions[1].Parts, []Action{{Kind: KindList, As: AsUser}, {Kind: KindRead, As: AsUser, Event: 1}, {Kind: KindRead, As: AsAnonymous, Event: 0}})
	if !sameActions(got, want) {
		t.Fatalf("serially = %v, want %v", got, want)
	}
}

func sameActions(a, b []Action) bool {
	return slices.EqualFunc(a, b, func(a, b Action) bool { return a.String() == b.String() })
}

// shrunk plays actions against the target at base, which must find a
// fault, and returns the actions they shrink to.
func shrunk(t *testing.T, base string, actions ...Action) []Action {
	t.Helper()
	ctx := context.Background()
	tgt, err := target.Open(remote(base), target.Sharing{Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Audit.Close()
	o := Options{Target: tgt, ShrinkTrials: DefaultShrinkTrials, MaxEvents: DefaultMaxEvents, FailedLogins: DefaultFailedLogins}
	r, stop, err := start(ctx, o, true)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	s := r.newSequence(ctx, 1, nil)
	s.scope = r.sequenceScope(1, false)
	for _, a := range actions {
		if !s.play(a) {
			break
		}
	}
	if s.found == nil {
		t.Fatalf("%v found nothing", actions)
	}
	var out []Action
	for _, d := range r.shrink(ctx, s).done {
		out = append(out, d.action)
	}
	return out
}

func TestARaceShrinksToFewerActionsSentTogether(t *testing.T) {
	base := flawed.Start(t, flawed.Flaw{Name: "one event for two creations", Request: flawed.OneEventForTwo})
	got := shrunk(t, base, Action{Kind: KindRoot, As: AsUser}, createAs(AsUser), together(createAs(AsUser), refreshOf(AsOther), createAs(AsOther)))
	if want := []Action{together(createAs(AsUser), createAs(AsOther))}; !sameActions(got, want) {
		t.Fatalf("shrunk to %v, want %v", got, want)
	}
}

func TestWhatFailsOneAfterAnotherShrinksToThat(t *testing.T) {
	base := flawed.Start(t, flawed.Flaw{Name: "the same body, the same event", Request: flawed.SameBodySameEvent})
	got := shrunk(t, base, together(createAs(AsUser), refreshOf(AsOther), createAs(AsUser)))
	if want := []Action{createAs(AsUser), createAs(AsUser)}; !sameActions(got, want) {
		t.Fatalf("shrunk to %v, want %v", got, want)
	}
	leap := map[string]any{"beginEnrollmentDateTime": "2028-02-29T10:00:00", "closeEnrollmentDateTime": "2028-03-01T10:00:00",
		"beginEventDateTime": "2028-03-02T10:00:00", "endEventDateTime": "2028-03-02T18:00:00"}
	got = shrunk(t, flawed.Start(t, flawed.Named(t, "a leap day reads back as the first of March")),
		together(createAs(AsOther), Action{Kind: KindCreate, As: AsUser, Changes: leap}))
	// The answer to the creation shows the leap day as it reads back:
	// the registry's read-back check needs no read of it.
	if want := []Action{{Kind: KindCreate, As: AsUser, Changes: leap}}; !sameActions(got, want) {
		t.Fatalf("shrunk to %v, want %v", got, want)
	}
}
