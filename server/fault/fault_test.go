package fault

import (
	"errors"
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
	want := Rule{Method: "GET", Path: "/api/events", Latency: Duration(250 * time.Millisecond), Status: 503, Fraction: 0.5}
	if r != want {
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
		if got := r.Matches(c.reqMethod, c.path); got != c.want {
			t.Errorf("%s %s matches %s %s = %v, want %v", c.method, c.pattern, c.reqMethod, c.path, got, c.want)
		}
	}
}

func TestSetPicksTheFirstMatchingRuleByItsFraction(t *testing.T) {
	draws := []float64{0.7, 0.2}
	s := NewSet(func() float64 { d := draws[0]; draws = draws[1:]; return d })
	half, err := s.Add(Rule{Path: "/api/events", Status: 503, Fraction: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	all, _ := s.Add(Rule{Path: "/api/**", Latency: Duration(time.Millisecond), Fraction: 1})
	if got, _, ok := s.Pick("GET", "/api/events"); !ok || got.ID != all.ID {
		t.Fatalf("draw 0.7 against fraction 0.5: Pick = %+v, %v, want rule %d", got, ok, all.ID)
	}
	if got, _, ok := s.Pick("GET", "/api/events"); !ok || got.ID != half.ID {
		t.Fatalf("draw 0.2 against fraction 0.5: Pick = %+v, %v, want rule %d", got, ok, half.ID)
	}
	if _, _, ok := s.Pick("GET", "/docs/index.html"); ok {
		t.Fatal("a rule applied to a path none matches")
	}
	list := s.List()
	if len(list) != 2 || list[0].Hits != 1 || list[1].Hits != 1 {
		t.Fatalf("List() = %+v, want one hit each", list)
	}
	if _, err := s.Add(Rule{Path: "/api", Status: 503, Fraction: 2}); !errors.Is(err, ErrInvalid) || len(s.List()) != 2 {
		t.Fatalf("Add of an invalid rule: %v, %d rules", err, len(s.List()))
	}
	if !s.Remove(half.ID) || s.Remove(half.ID) || len(s.List()) != 1 {
		t.Fatal("Remove does not take out exactly the rule")
	}
	if n := s.Clear(); n != 1 || len(s.List()) != 0 {
		t.Fatalf("Clear() = %d, %d left", n, len(s.List()))
	}
	if _, _, ok := s.Pick("GET", "/api/events"); ok {
		t.Fatal("a rule applied after Clear")
	}
}

// TestTheGoneChannelClosesWithItsRule: a rule's removal, and Clear, close
// the channel Pick gave for it; the others stay open.
func TestTheGoneChannelClosesWithItsRule(t *testing.T) {
	s := NewSet(func() float64 { return 0 })
	a, _ := s.Add(Rule{Path: "/a", Latency: Duration(time.Minute), Fraction: 1})
	s.Add(Rule{Path: "/b", Latency: Duration(time.Minute), Fraction: 1})
	_, goneA, _ := s.Pick("GET", "/a")
	_, goneB, _ := s.Pick("GET", "/b")
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
		if _, err := s.Add(Rule{Path: "/a/" + strconv.Itoa(i), Status: 500, Fraction: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Add(Rule{Path: "/b", Status: 500, Fraction: 1}); !errors.Is(err, ErrFull) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("rule %d: %v, want ErrFull", MaxRules+1, err)
	}
	s.Clear()
	if _, err := s.Add(Rule{Path: "/b", Status: 500, Fraction: 1}); err != nil {
		t.Fatalf("after Clear: %v", err)
	}
}

// BenchmarkPickFullSet is the cost to a public request of MaxRules rules
// that do not match it, from as many goroutines as the machine has: no
// lock serializes them.
func BenchmarkPickFullSet(b *testing.B) {
	s := NewSet(func() float64 { return 0 })
	for i := range MaxRules {
		s.Add(Rule{Path: "/api/events/" + strconv.Itoa(i) + "/*", Status: 500, Fraction: 1})
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, _, ok := s.Pick("GET", "/api/events/7"); ok {
				b.Fatal("a rule matched")
			}
		}
	})
}
