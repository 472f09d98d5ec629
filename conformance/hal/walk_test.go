package hal

import (
	"fmt"
	"strings"
	"testing"
)

func keys(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("/api/events/%d", i))
	}
	return out
}

func TestAWalkStopsWherePagesListNothingNew(t *testing.T) {
	var w Walk
	for p := range 10 {
		if why := w.Page(keys(2*p, 2*p+2), nil, false); why != "" {
			t.Fatalf("page %d of a listing that goes on: %s", p+1, why)
		}
	}
	// Past the last page, the last page again, and again.
	var why string
	for range StaleWalk {
		why = w.Page(keys(18, 20), nil, false)
	}
	if !strings.Contains(why, "listed nothing the walk had not met") {
		t.Errorf("a walk past the end of the listing goes on: %q", why)
	}
	var empty Walk
	empty.Page(keys(0, 2), nil, false)
	for range StaleWalk {
		why = empty.Page(nil, nil, false)
	}
	if why == "" {
		t.Error("a walk through empty pages goes on")
	}
}

// TestAWalkMayMeetAFewPagesOfResourcesMetBefore: a creation while the
// walk goes on pushes a resource onto the next page; a page or two that
// list nothing new do not stop the walk.
func TestAWalkMayMeetAFewPagesOfResourcesMetBefore(t *testing.T) {
	var w Walk
	w.Page(keys(0, 1), nil, false)
	for range StaleWalk - 1 {
		if why := w.Page(keys(0, 1), nil, false); why != "" {
			t.Fatalf("stopped after fewer than %d stale pages: %s", StaleWalk, why)
		}
	}
	if why := w.Page(keys(1, 2), nil, false); why != "" {
		t.Fatalf("a page with something new: %s", why)
	}
	for range 2 * StaleWalk {
		if why := w.Page(keys(1, 2), nil, true); why != "" {
			t.Fatalf("a page read while the listing moved counts: %s", why)
		}
	}
}

func TestAWalkStopsPastTheTotalThePagesState(t *testing.T) {
	var w Walk
	page := map[string]any{"page": map[string]any{"totalElements": float64(6), "size": float64(2)}}
	var why string
	for p := 0; p < 3+StaleWalk+1 && why == ""; p++ {
		why = w.Page(keys(2*p, 2*p+2), page, false)
	}
	if !strings.Contains(why, "more than the 6 resources the pages state") || w.Pages() != 3+StaleWalk+1 {
		t.Errorf("after %d pages: %q", w.Pages(), why)
	}
	var plain Walk
	for p := range 50 {
		if why := plain.Page(keys(2*p, 2*p+2), map[string]any{"page": map[string]any{"totalElements": "6"}}, false); why != "" {
			t.Fatalf("a total that is not a number is taken: %s", why)
		}
	}
}
