package explore

import (
	"slices"
	"testing"
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
