package fault

import (
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseReadsARule(t *testing.T) {
	r, err := Parse([]byte(`{"method": "get", "path": "/api/events", "latency": "250ms", "status": 503, "fraction": 0.5}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Rule{Method: "GET", Path: "/api/events", Answer: Answer{Latency: Duration(250 * time.Millisecond), Status: 503}, Fraction: 0.5}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("Parse = %+v, want %+v", r, want)
	}
	r, err = Parse([]byte(`{"path": "/oauth/token", "drop": true}`))
	if err != nil || r.Fraction != 1 || !r.Drop {
		t.Fatalf("a rule without fraction: %+v, %v (want fraction 1)", r, err)
	}
}

func TestParseRefusesBadRulesSayingWhy(t *testing.T) {
	for body, want := range map[string]string{
		``:                                   "empty",
		`{"path": "/api"`:                    "not valid JSON",
		`[]`:                                 "object",
		`{"path": "/api", "status": 503} {}`: "one JSON object",
		`{"path": "/api", "status": 503, "colour": "red"}`: `unknown field "colour"`,
		`{"status": 503}`:                                                              "path is required",
		`{"path": "api", "status": 503}`:                                               `must start with "/"`,
		`{"path": "/api/[", "status": 503}`:                                            "not a valid pattern",
		`{"path": "/api", "latency": "-1s"}`:                                           "must not be negative",
		`{"path": "/api", "latency": 5}`:                                               "duration string",
		`{"path": "/api", "latency": "soon"}`:                                          "not a duration",
		`{"path": "/api", "latency": "3m"}`:                                            "at most 2m",
		`{"path": "/` + strings.Repeat("a", MaxPatternLen) + `", "status": 503}`:       "at most 256",
		`{"path": "/api", "method": "` + strings.Repeat("A", 21) + `", "status": 503}`: "at most 20",
		`{"path": "/api", "status": 503, "fraction": 1.5}`:                             "at most 1",
		`{"path": "/api", "status": 503, "fraction": 0}`:                               "above 0",
		`{"path": "/api", "status": 503, "fraction": "x"}`:                             "fraction must be a JSON number",
		`{"path": "/api", "status": 99}`:                                               "from 200 to 599",
		`{"path": "/api", "status": 503, "drop": true}`:                                "not both",
		`{"path": "/api"}`:                                                             "does nothing",
		`{"path": "/api", "method": "GE T", "status": 503}`:                            "HTTP method",
	} {
		_, err := Parse([]byte(body))
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want an ErrInvalid saying %q", body, err, want)
		}
	}
}

func TestRulesMatchMethodAndPathPattern(t *testing.T) {
	for _, c := range []struct {
		method, pattern, reqMethod, path string
		want                             bool
	}{
		{"GET", "/api/events", "GET", "/api/events", true},
		{"GET", "/api/events", "POST", "/api/events", false},
		{"", "/api/events", "POST", "/api/events", true},
		{"", "/api/events", "GET", "/api/events/1", false},
		{"", "/api/events/*", "GET", "/api/events/1", true},
		{"", "/api/events/*", "GET", "/api/events", false},
		{"", "/api/**", "GET", "/api", true},
		{"", "/api/**", "GET", "/api/events/1", true},
		{"", "/api/**", "GET", "/apix", false},
		{"", "/**", "GET", "/oauth/token", true},
		{"", "/*/events/**", "GET", "/api/events/7", true},
	} {
		r := Rule{Method: c.method, Path: c.pattern}
		if got := r.Matches(Request{Method: c.reqMethod, Path: c.path}); got != c.want {
			t.Errorf("%s %s matches %s %s = %v, want %v", c.method, c.pattern, c.reqMethod, c.path, got, c.want)
		}
	}
}

func TestSetPicksTheFirstMatchingRuleByItsFraction(t *testing.T) {
	draws := []float64{0.7, 0.2}
	s := NewSet(func() float64 { d := draws[0]; draws = draws[1:]; return d })
	half, err := s.Add(Rule{Path: "/api/events", Answer: Answer{Status: 503}, Fraction: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	all, _ := s.Add(Rule{Path: "/api/**", Answer: Answer{Latency: Duration(time.Millisecond)}, Fraction: 1})
	if got, _, ok := pick(s, "GET", "/api/events"); !ok || got.ID != all.ID {
		t.Fatalf("draw 0.7 against fraction 0.5: Pick = %+v, %v, want rule %d", got, ok, all.ID)
	}
	if got, _, ok := pick(s, "GET", "/api/events"); !ok || got.ID != half.ID {
		t.Fatalf("draw 0.2 against fraction 0.5: Pick = %+v, %v, want rule %d", got, ok, half.ID)
	}
	if _, _, ok := pick(s, "GET", "/docs/index.html"); ok {
		t.Fatal("a rule applied to a path none matches")
	}
	list := s.List()
	if len(list) != 2 || list[0].Hits != 1 || list[1].Hits != 1 {
		t.Fatalf("List() = %+v, want one hit each", list)
	}
	if _, err := s.Add(Rule{Path: "/api", Answer: Answer{Status: 503}, Fraction: 2}); !errors.Is(err, ErrInvalid) || len(s.List()) != 2 {
		t.Fatalf("Add of an invalid rule: %v, %d rules", err, len(s.List()))
	}
	if !s.Remove(half.ID) || s.Remove(half.ID) || len(s.List()) != 1 {
		t.Fatal("Remove does not take out exactly the rule")
	}
	if n := s.Clear(); n != 1 || len(s.List()) != 0 {
		t.Fatalf("Clear() = %d, %d left", n, len(s.List()))
	}
	if _, _, ok := pick(s, "GET", "/api/events"); ok {
		t.Fatal("a rule applied after Clear")
	}
}

// TestTheGoneChannelClosesWithItsRule: a rule's removal, and Clear, close
// the channel Pick gave for it; the others stay open.
func TestTheGoneChannelClosesWithItsRule(t *testing.T) {
	s := NewSet(func() float64 { return 0 })
	a, _ := s.Add(Rule{Path: "/a", Answer: Answer{Latency: Duration(time.Minute)}, Fraction: 1})
	s.Add(Rule{Path: "/b", Answer: Answer{Latency: Duration(time.Minute)}, Fraction: 1})
	_, goneA, _ := pick(s, "GET", "/a")
	_, goneB, _ := pick(s, "GET", "/b")
	s.Remove(a.ID)
	select {
	case <-goneA:
	default:
		t.Fatal("removing rule a did not close its channel")
	}
	select {
	case <-goneB:
		t.Fatal("removing rule a closed rule b's channel")
	default:
	}
	s.Clear()
	select {
	case <-goneB:
	default:
		t.Fatal("Clear did not close rule b's channel")
	}
}

// TestAFullSetRefusesARule: MaxRules rules, and the next is ErrFull.
func TestAFullSetRefusesARule(t *testing.T) {
	s := NewSet(func() float64 { return 0 })
	for i := range MaxRules {
		if _, err := s.Add(Rule{Path: "/a/" + strconv.Itoa(i), Answer: Answer{Status: 500}, Fraction: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Add(Rule{Path: "/b", Answer: Answer{Status: 500}, Fraction: 1}); !errors.Is(err, ErrFull) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("rule %d: %v, want ErrFull", MaxRules+1, err)
	}
	s.Clear()
	if _, err := s.Add(Rule{Path: "/b", Answer: Answer{Status: 500}, Fraction: 1}); err != nil {
		t.Fatalf("after Clear: %v", err)
	}
}

// BenchmarkPickFullSet is the cost to a public request of MaxRules rules
// that do not match it, from as many goroutines as the machine has: no
// lock serializes them.
func BenchmarkPickFullSet(b *testing.B) {
	s := NewSet(func() float64 { return 0 })
	for i := range MaxRules {
		s.Add(Rule{Path: "/api/events/" + strconv.Itoa(i) + "/*", Answer: Answer{Status: 500}, Fraction: 1})
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, _, ok := pick(s, "GET", "/api/events/7"); ok {
				b.Fatal("a rule matched")
			}
		}
	})
}

// pick is Pick for a request of method and path alone: the rule, the
// channel of its removal, and whether one applied.
func pick(s *Set, method, path string) (Rule, <-chan struct{}, bool) {
	p, ok := s.Pick(Request{Method: method, Path: path})
	return p.Rule, p.Gone, ok
}

func TestParseRefusesWhatATestCouldNotCountOn(t *testing.T) {
	for body, want := range map[string]string{
		`{"path": "/api/events?page=1", "status": 503}`:                                `match parameters with "query"`,
		`{"path": "/api", "status": 503, "sequence": [{"status": 500}]}`:               "not both",
		`{"path": "/api", "times": 2, "sequence": [{"status": 500}]}`:                  "leave out times",
		`{"path": "/api", "sequence": []}`:                                             "sequence is empty",
		`{"path": "/api", "sequence": [{"status": 700}]}`:                              "answer 1 of the sequence: status 700",
		`{"path": "/api", "body": {"a": 1}}`:                                           "need a status",
		`{"path": "/api", "status": 429, "headers": {"Retry After": "1"}}`:             "HTTP token",
		`{"path": "/api", "status": 429, "headers": {"Retry-After": "1\r\nX: y"}}`:     "control characters",
		`{"path": "/api", "status": 200, "headers": {"Content-Length": "0"}}`:          "server's to set",
		`{"path": "/api", "status": 503, "times": -1}`:                                 "times -1",
		`{"path": "/api", "status": 503, "after": 2000000}`:                            "after 2000000",
		`{"path": "/api", "status": 503, "query": {"": "1"}}`:                          "a name must be given",
		`{"path": "/api", "status": 503, "token": "yes"}`:                              "token must be a JSON boolean",
		`{"path": "/api", "sequence": [` + strings.Repeat(`{},`, MaxSequence) + `{}]}`: "at most 100",
	} {
		_, err := Parse([]byte(body))
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%.80s) = %v, want an ErrInvalid saying %q", body, err, want)
		}
	}
}

func TestRulesMatchQueryTokenAndGrantType(t *testing.T) {
	yes, no := true, false
	page1 := url.Values{"page": {"1"}, "size": {"20"}}
	for _, c := range []struct {
		rule Rule
		req  Request
		want bool
	}{
		{Rule{Path: "/api/events", Query: map[string]string{"page": "1"}}, Request{Method: "GET", Path: "/api/events", Query: page1}, true},
		{Rule{Path: "/api/events", Query: map[string]string{"page": "2"}}, Request{Method: "GET", Path: "/api/events", Query: page1}, false},
		{Rule{Path: "/api/events", Query: map[string]string{"size": "*"}}, Request{Method: "GET", Path: "/api/events", Query: page1}, true},
		{Rule{Path: "/api/events", Query: map[string]string{"sort": "*"}}, Request{Method: "GET", Path: "/api/events", Query: page1}, false},
		{Rule{Path: "/api/**", Token: &yes}, Request{Method: "GET", Path: "/api/events", Token: true}, true},
		{Rule{Path: "/api/**", Token: &yes}, Request{Method: "GET", Path: "/api/events"}, false},
		{Rule{Path: "/api/**", Token: &no}, Request{Method: "GET", Path: "/api/events"}, true},
		{Rule{Path: "/oauth/token", GrantType: "refresh_token"}, Request{Method: "POST", Path: "/oauth/token", GrantType: "refresh_token"}, true},
		{Rule{Path: "/oauth/token", GrantType: "refresh_token"}, Request{Method: "POST", Path: "/oauth/token", GrantType: "password"}, false},
	} {
		if got := c.rule.Matches(c.req); got != c.want {
			t.Errorf("%+v matches %+v = %v, want %v", c.rule, c.req, got, c.want)
		}
	}
}

// TestARuleAppliesAfterKForNTimesAndRemovesItself: after, times and a
// sequence count the matching requests exactly, and a spent rule leaves
// the set without ending its own waits.
func TestARuleAppliesAfterKForNTimesAndRemovesItself(t *testing.T) {
	s := NewSet(func() float64 { return 0 })
	r, err := s.Add(Rule{Path: "/api/events", After: 2, Times: 2, Fraction: 1, Answer: Answer{Status: 503}})
	if err != nil {
		t.Fatal(err)
	}
	var got []bool
	for range 6 {
		_, _, ok := pick(s, "GET", "/api/events")
		got = append(got, ok)
	}
	if want := []bool{false, false, true, true, false, false}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after 2, times 2: applied %v, want %v", got, want)
	}
	if len(s.List()) != 0 || s.Remove(r.ID) {
		t.Fatalf("a spent rule is still in force: %+v", s.List())
	}

	seq, _ := s.Add(Rule{Path: "/oauth/token", Fraction: 1, Sequence: []Answer{
		{Status: 503, Headers: map[string]string{"Retry-After": "1"}},
		{},
		{Status: 400, Body: json.RawMessage(`{"error": "invalid_grant"}`), Latency: Duration(time.Minute)},
	}})
	var statuses []int
	var last Picked
	for range 4 {
		p, ok := s.Pick(Request{Method: "POST", Path: "/oauth/token"})
		if !ok {
			statuses = append(statuses, -1)
			continue
		}
		statuses = append(statuses, p.Answer.Status)
		last = p
	}
	if want := []int{503, 0, 400, -1}; !reflect.DeepEqual(statuses, want) {
		t.Fatalf("a sequence answered %v, want %v", statuses, want)
	}
	if last.Rule.ID != seq.ID || last.Rule.Hits != 3 {
		t.Fatalf("the last answer: %+v", last.Rule)
	}
	select {
	case <-last.Gone:
		t.Fatal("the rule that gave its last answer ended that answer's latency")
	default:
	}
}
