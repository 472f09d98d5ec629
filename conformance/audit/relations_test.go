package audit

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"eventsvc/conformance/repro"
)

// pageRead is an answer to GET base/api/events listing the events of ids, read
// from start to end.
func pageRead(t *testing.T, w *world, start, end time.Time, ids ...string) *observed {
	t.Helper()
	var items []any
	for _, id := range ids {
		items = append(items, map[string]any{"_links": map[string]any{"self": map[string]any{"href": w.base + "/api/events/" + id}}})
	}
	address := w.base + "/api/events?page=0&size=20"
	u, err := url.Parse(address)
	if err != nil {
		t.Fatal(err)
	}
	return &observed{
		w: w, url: u, path: "/api/events", isJSON: true, kind: kindPage,
		x: Exchange{Exchange: repro.Exchange{Method: http.MethodGet, URL: address, Status: http.StatusOK}, Start: start, End: end},
		doc: map[string]any{
			"_embedded": map[string]any{"eventList": items},
			"_links":    map[string]any{"self": map[string]any{"href": address}},
			"page":      map[string]any{"number": 0, "size": 20},
		},
	}
}

// TestAPageReadWhileACreationWasUnderWayIsNotJudgedByItsSelfLink: a page
// whose "self" link led to a page listing other events is not blamed
// when a creation was under way while either of the two was read, the
// page the link led to answered before the page that carries it: a
// creation between the end of the one and the end of the other changes
// what they list. Without a creation, it is.
func TestAPageReadWhileACreationWasUnderWayIsNotJudgedByItsSelfLink(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	for _, tt := range []struct {
		name     string
		creation []span
		blamed   bool
	}{
		{"no creation", nil, true},
		{"a creation after the followed page was answered, before the page that carries the link was", []span{{at(30), at(35)}}, false},
		{"a creation while both were read", []span{{at(5), at(12)}}, false},
		{"a creation before both", []span{{at(-20), at(-10)}}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(&Audit{}, "http://target.example")
			w.writes = tt.creation
			from := pageRead(t, w, at(0), at(40), "1", "2") // answered last, after the creation
			y := pageRead(t, w, at(10), at(20), "1")        // the "self" link, read meanwhile
			f := w.leads(&job{w: w, from: from, rel: "self", to: y.url}, y)
			if blamed := f != nil && f.standing(); blamed != tt.blamed {
				t.Errorf("blamed %v, want %v (finding %+v)", blamed, tt.blamed, f)
			}
		})
	}
}
