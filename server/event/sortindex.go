package event

import (
	"slices"
	"sync"
)

// parallelSortMin is the size of index from which sortIndex sorts in
// parallel.
const parallelSortMin = 1 << 14

// sortIndex sorts index by compare, which must be a total order. A large
// index is cut into parts, one per CPU (parts), sorted at once and merged
// pairwise: the first list of a million events sorted by a property, which
// builds its index, takes about half the time on two CPUs.
func sortIndex(index []*Event, compare func(a, b *Event) int, parts int) {
	if parts < 2 || len(index) < parallelSortMin {
		slices.SortFunc(index, compare)
		return
	}
	runs := make([][]*Event, 0, parts)
	for i := range parts {
		runs = append(runs, index[i*len(index)/parts:(i+1)*len(index)/parts])
	}
	var wg sync.WaitGroup
	for _, run := range runs {
		wg.Go(func() { slices.SortFunc(run, compare) })
	}
	wg.Wait()
	// Merge pairs of neighbouring runs from src into dst, round after
	// round, until one run is left.
	src, dst := index, make([]*Event, len(index))
	for len(runs) > 1 {
		var next [][]*Event
		offset := 0
		for i := 0; i < len(runs); i += 2 {
			n := len(runs[i])
			if i+1 < len(runs) {
				n += len(runs[i+1])
			}
			out := dst[offset : offset+n]
			if i+1 < len(runs) {
				a, b := runs[i], runs[i+1]
				wg.Go(func() { merge(out, a, b, compare) })
			} else {
				copy(out, runs[i])
			}
			next = append(next, out)
			offset += n
		}
		wg.Wait()
		runs = next
		src, dst = dst, src
	}
	if &src[0] != &index[0] {
		copy(index, src)
	}
}

// merge writes the sorted runs a and b into out, in order.
func merge(out, a, b []*Event, compare func(a, b *Event) int) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if compare(b[j], a[i]) < 0 {
			out[k] = b[j]
			j++
		} else {
			out[k] = a[i]
			i++
		}
		k++
	}
	k += copy(out[k:], a[i:])
	copy(out[k:], b[j:])
}
