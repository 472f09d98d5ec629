package clientcheck

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"eventsvc/server/clock"
)

// get is an anonymous GET of path.
func get(path string) Exchange {
	u, _ := url.Parse(path)
	return Exchange{Method: "GET", Path: u.Path, Query: u.Query(), Status: 200}
}

// TestFindingsGatherByRuleCallerAndShape: exchanges of one rule, caller
// and shape add to one finding, which shows the first MaxExchanges of
// them; another shape is another finding.
func TestFindingsGatherByRuleCallerAndShape(t *testing.T) {
	ch := New(clock.NewManual(time.Unix(0, 0)))
	for id := range 8 {
		started := ch.Check(get(fmt.Sprintf("/api/events/%d", id)))
		if (id == 0) != (len(started) == 1) {
			t.Fatalf("exchange %d started %v", id, started)
		}
	}
	ch.Check(get("/api/events?size=3"))
	f := ch.Findings(Filter{})
	if len(f) != 2 || f[0].Count != 8 || len(f[0].Exchanges) != MaxExchanges || f[1].Count != 1 {
		t.Fatalf("findings %v", f)
	}
	if got := ch.Findings(Filter{SinceID: f[0].ID}); len(got) != 1 || got[0].ID != f[1].ID {
		t.Errorf("since %d picks %v", f[0].ID, got)
	}
	if got := ch.Findings(Filter{Rule: "TOK-1"}); len(got) != 0 {
		t.Errorf("rule TOK-1 picks %v", got)
	}
	if got := ch.Findings(Filter{Since: time.Unix(1, 0)}); len(got) != 0 {
		t.Errorf("a later time picks %v", got)
	}
}

// TestFindingsAreBoundedAndClearedButOffersAreKept: past MaxFindings the
// oldest goes; Clear forgets the findings, not what was offered, and the
// ids go on.
func TestFindingsAreBoundedAndClearedButOffersAreKept(t *testing.T) {
	ch := New(clock.NewManual(time.Unix(0, 0)))
	for size := range MaxFindings + 10 {
		ch.Check(get(fmt.Sprintf("/api/events?size=%d", size)))
	}
	if f := ch.Findings(Filter{}); len(f) != MaxFindings || f[0].ID != 11 {
		t.Fatalf("%d findings, the first %d", len(f), f[0].ID)
	}
	ch.Check(Exchange{Method: "GET", Path: "/api", Status: 200, Body: []byte(`{"_links":{"events":{"href":"http://x/api/events"}}}`)})
	if n := ch.Clear(); n != MaxFindings || ch.Len() != 0 {
		t.Fatalf("cleared %d, %d left", n, ch.Len())
	}
	ch.Check(get("/api/events"))
	ch.Check(get("/api/nothing"))
	if f := ch.Findings(Filter{}); len(f) != 1 || f[0].ID != MaxFindings+11 || f[0].Exchanges[0].Path != "/api/nothing" {
		t.Errorf("after Clear: %v", f)
	}
}

// TestPastMaxOffersNothingMayBeDroppedIsJudged: once the offers are
// full, an address the checker may have dropped is no finding.
func TestPastMaxOffersNothingMayBeDroppedIsJudged(t *testing.T) {
	ch := New(clock.NewManual(time.Unix(0, 0)))
	ch.offers.size = MaxOffers
	ch.Check(Exchange{Method: "GET", Path: "/api/events/1", Status: 200, Body: []byte(`{"_links":{"self":{"href":"/api/events/2"}}}`)})
	ch.Check(get("/api/events/2"))
	if f := ch.Findings(Filter{}); len(f) != 1 || f[0].Exchanges[0].Path != "/api/events/1" {
		t.Errorf("findings %v: want the first alone, before the offers were full", f)
	}
}
