package eventsvctest_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"eventsvc/eventsvctest"
)

// TestAFaultRuleIsAddedAsWritten: every field of a Fault reaches the
// control API, which lists the rule as it was given.
func TestAFaultRuleIsAddedAsWritten(t *testing.T) {
	srv := eventsvctest.NewServer(t, eventsvctest.Options{})
	rules := []eventsvctest.Fault{
		{Method: "GET", Path: "/api/events", Query: map[string]string{"page": "*"}, Token: eventsvctest.WithToken,
			After: 2, Times: 3, Fraction: 0.5,
			Answer: eventsvctest.Answer{Latency: 20 * time.Millisecond, Status: 429, Body: map[string]any{"error": "slow_down"}, Headers: map[string]string{"Retry-After": "7"}}},
		{Path: "/oauth/token", GrantType: "refresh_token", Token: eventsvctest.WithoutToken, Answer: eventsvctest.Answer{Status: 400, Body: "plain text"}},
		{Method: "PUT", Path: "/api/events/*", Answer: eventsvctest.Answer{Drop: true}},
		{Path: "/api/**", Sequence: []eventsvctest.Answer{{Status: 503, Headers: map[string]string{"Retry-After": "1"}}, {}, {Latency: time.Second}}},
	}
	for i, r := range rules {
		if id := srv.AddFault(t, r); id != i+1 {
			t.Fatalf("AddFault = %d, want %d", id, i+1)
		}
	}
	listed := srv.Faults(t)
	if len(listed) != len(rules) {
		t.Fatalf("Faults() = %d rules, want %d", len(listed), len(rules))
	}
	for i, got := range listed {
		want := rules[i]
		want.ID = i + 1
		if want.Fraction == 0 {
			want.Fraction = 1
		}
		if b, ok := want.Body.(map[string]any); ok { // as it comes back from JSON
			raw, _ := json.Marshal(b)
			want.Body = json.RawMessage(raw)
		} else if s, ok := want.Body.(string); ok {
			raw, _ := json.Marshal(s)
			want.Body = json.RawMessage(raw)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("rule %d listed as\n%+v\nwant\n%+v", i+1, got, want)
		}
	}
	if n := srv.ClearFaults(t); n != len(rules) {
		t.Fatalf("ClearFaults = %d, want %d", n, len(rules))
	}
	if n := len(srv.Faults(t)); n != 0 {
		t.Fatalf("%d rules after ClearFaults", n)
	}
}

func TestAFaultAppliesAsManyTimesAsItSaysAndCanBeRemoved(t *testing.T) {
	srv := eventsvctest.NewServer(t, eventsvctest.Options{})
	id := srv.AddFault(t, eventsvctest.Fault{Method: "GET", Path: "/api/events", Times: 1,
		Answer: eventsvctest.Answer{Status: 503, Headers: map[string]string{"Retry-After": "1"}}})
	resp, err := http.Get(srv.URL + "/api/events")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("the first GET = %d, Retry-After %q; want 503 and 1", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if status, _ := get(t, srv, "/api/events", ""); status != http.StatusOK {
		t.Fatalf("the second GET = %d, want 200: the rule was spent", status)
	}
	if n := len(srv.Faults(t)); n != 0 {
		t.Fatalf("%d rules left, want the spent rule %d gone", n, id)
	}

	id = srv.AddFault(t, eventsvctest.Fault{Path: "/api", Query: map[string]string{"broken": "yes"}, Answer: eventsvctest.Answer{Drop: true}})
	if _, err := http.Get(srv.URL + "/api?" + url.Values{"broken": {"yes"}}.Encode()); err == nil {
		t.Fatal("a dropped request got an answer")
	}
	if status, _ := get(t, srv, "/api", ""); status != http.StatusOK {
		t.Fatalf("GET /api without the query = %d, want 200", status)
	}
	srv.RemoveFault(t, id)
	if status, _ := get(t, srv, "/api?broken=yes", ""); status != http.StatusOK {
		t.Fatalf("GET /api?broken=yes after RemoveFault = %d, want 200", status)
	}
	if got := failure(t, func(tb testing.TB) { srv.RemoveFault(tb, id) }); !strings.Contains(got, "no fault rule has id") {
		t.Fatalf("removing it again failed with %q", got)
	}
}
