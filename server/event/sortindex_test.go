package event

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// sortIndex orders an index as slices.SortFunc does, whatever the number
// of parts and however the parts fall.
func TestSortIndexOrdersAsASortInOnePart(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	byPrice := func(a, b *Event) int {
		if c := cmp.Compare(a.BasePrice, b.BasePrice); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	}
	for _, n := range []int{0, 1, parallelSortMin - 1, parallelSortMin, parallelSortMin + 7, 3*parallelSortMin + 1} {
		events := make([]*Event, n)
		for i := range events {
			// Few prices, so that many events tie on the property.
			events[i] = &Event{ID: int64(i + 1), BasePrice: r.IntN(50)}
		}
		r.Shuffle(n, func(i, j int) { events[i], events[j] = events[j], events[i] })
		want := slices.Clone(events)
		slices.SortFunc(want, byPrice)
		for _, parts := range []int{1, 2, 3, 4, 7} {
			got := slices.Clone(events)
			sortIndex(got, byPrice, parts)
			if !slices.Equal(got, want) {
				t.Fatalf("%d events in %d parts: not in order", n, parts)
			}
		}
	}
}
