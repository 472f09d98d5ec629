package hal

import (
	"fmt"
	"math"
)

// StaleWalk is how many pages in a row a walk through a listing by its
// "next" links may read without meeting a resource it had not met on
// them: in a listing in pages, each page lists resources no page before
// it listed (spec API-5), but a resource created while the walk goes on
// may push one listed already onto the next page, and a short run of
// such pages is no fault.
const StaleWalk = 3

// Walk judges how far a walk through a listing by its "next" links may
// go, from what the target has shown: the resources its pages listed,
// and the total the pages state. A listing whose "next" never ends is
// found within StaleWalk pages of passing what it holds, rather than
// after a fixed number of pages. The zero Walk is ready for the first
// page.
type Walk struct {
	seen   map[string]bool
	pages  int
	stale  int // pages in a row that listed nothing new
	size   int // the first page's resources: the page size
	stated int // the largest total of resources a page stated
}

// Page takes the next page of the walk, the keys of the resources it
// lists (their resolved "self" links) and the page itself, and says why
// the walk must stop there: "" while it may go on. moving says that the
// listing may have changed since the page before was read (a creation
// was under way): a page of nothing new then does not count.
func (w *Walk) Page(keys []string, doc map[string]any, moving bool) string {
	if w.seen == nil {
		w.seen = map[string]bool{}
		w.size = len(keys)
	}
	w.pages++
	fresh := false
	for _, k := range keys {
		if !w.seen[k] {
			w.seen[k], fresh = true, true
		}
	}
	if fresh || moving || w.pages == 1 {
		w.stale = 0
	} else {
		w.stale++
	}
	if t := statedTotal(doc); t > w.stated {
		w.stated = t
	}
	switch {
	case w.stale >= StaleWalk:
		return fmt.Sprintf("the last %d pages read through \"next\" listed nothing the walk had not met before (%s on %d pages): a listing in pages lists each resource once, and its \"next\" ends after the last", w.stale, count(len(w.seen), "resource"), w.pages)
	case w.stated > 0 && w.size > 0 && w.pages > int(math.Ceil(float64(w.stated)/float64(w.size)))+StaleWalk:
		return fmt.Sprintf("the walk read %d pages of %d, more than the %d resources the pages state they hold fill, and \"next\" goes on", w.pages, w.size, w.stated)
	}
	return ""
}

// Pages is how many pages the walk read.
func (w *Walk) Pages() int { return w.pages }

// statedTotal is the total of resources a page of a listing states, where
// listings commonly state it (Spring's "page": {"totalElements"}, or a
// top-level "total", "totalCount", "total_count" or "totalElements"): 0
// when it states none. Names the specification leaves open are only read,
// never required.
func statedTotal(doc map[string]any) int {
	candidates := []any{doc["total"], doc["totalCount"], doc["total_count"], doc["totalElements"]}
	if p, ok := doc["page"].(map[string]any); ok {
		candidates = append(candidates, p["totalElements"])
	}
	best := 0
	for _, c := range candidates {
		if n, ok := c.(float64); ok && n > 0 && n < 1e12 && n == math.Trunc(n) && int(n) > best {
			best = int(n)
		}
	}
	return best
}

// count is "1 resource", "2 resources".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
