package fault

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// compiled is a rule in force: its pattern split once, its counts kept
// without a lock, and gone closed when it is taken out of force.
type compiled struct {
	rule Rule
	// segs are the pattern's segments; rest is true when a final "**"
	// was cut from them.
	segs []string
	rest bool
	// seen counts the matching requests; hits those it applied to.
	seen atomic.Int64
	hits atomic.Int64
	gone chan struct{}
}

func compile(r Rule) *compiled {
	c := &compiled{rule: r, segs: strings.Split(r.Path, "/"), gone: make(chan struct{})}
	if c.segs[len(c.segs)-1] == "**" {
		c.segs, c.rest = c.segs[:len(c.segs)-1], true
	}
	return c
}

// matches is Rule.Matches for a path split into its segments.
func (c *compiled) matches(req Request, segs []string) bool {
	r := &c.rule
	if r.Method != "" && r.Method != req.Method {
		return false
	}
	if c.rest {
		if len(segs) < len(c.segs) {
			return false
		}
		segs = segs[:len(c.segs)]
	} else if len(segs) != len(c.segs) {
		return false
	}
	for i, pattern := range c.segs {
		if pattern == segs[i] {
			continue
		}
		if ok, _ := path.Match(pattern, segs[i]); !ok {
			return false
		}
	}
	if r.Token != nil && *r.Token != req.Token {
		return false
	}
	if r.GrantType != "" && r.GrantType != req.GrantType {
		return false
	}
	for k, want := range r.Query {
		got, ok := req.Query[k]
		if !ok || want != "*" && !slices.Contains(got, want) {
			return false
		}
	}
	return true
}

// Set holds the rules in force. It is safe for concurrent use: Pick reads
// the rules without a lock, and the writers (Add, Remove, Clear, and Pick
// when a rule is spent) replace them whole.
type Set struct {
	draw func() float64 // in [0, 1), safe for concurrent use

	rules atomic.Pointer[[]*compiled]

	mu     sync.Mutex // serializes the writers
	nextID int
}

// ErrFull refuses a rule past MaxRules.
var ErrFull = fmt.Errorf("%w: %d rules are in force, the most there may be: remove some first (DELETE /faults)", ErrInvalid, MaxRules)

// NewSet returns an empty Set that draws fractions from draw, a source of
// numbers in [0, 1) safe for concurrent use, such as math/rand/v2's
// Float64.
func NewSet(draw func() float64) *Set { return &Set{draw: draw} }

func (s *Set) load() []*compiled {
	if p := s.rules.Load(); p != nil {
		return *p
	}
	return nil
}

// Add puts a valid rule in force and returns it with its ID; past MaxRules
// it returns ErrFull.
func (s *Set) Add(r Rule) (Rule, error) {
	if err := r.Validate(); err != nil {
		return Rule{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.load()
	if len(old) >= MaxRules {
		return Rule{}, ErrFull
	}
	s.nextID++
	r.ID, r.Hits = s.nextID, 0
	rules := append(append(make([]*compiled, 0, len(old)+1), old...), compile(r))
	s.rules.Store(&rules)
	return r, nil
}

// List returns the rules in force, in the order they were added, with
// their hits.
func (s *Set) List() []Rule {
	rules := s.load()
	out := make([]Rule, len(rules))
	for i, c := range rules {
		out[i] = c.rule
		out[i].Hits = int(c.hits.Load())
	}
	return out
}

// Remove takes the rule with the ID out of force, ending the waits of its
// latency, and reports whether there was one.
func (s *Set) Remove(id int) bool {
	return s.takeOut(id, true)
}

// takeOut takes the rule with the ID out of force; with end, it also ends
// the waits of its latency.
func (s *Set) takeOut(id int, end bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.load()
	for i, c := range old {
		if c.rule.ID == id {
			rules := append(append(make([]*compiled, 0, len(old)-1), old[:i]...), old[i+1:]...)
			s.rules.Store(&rules)
			if end {
				close(c.gone)
			}
			return true
		}
	}
	return false
}

// Clear takes every rule out of force, ending the waits of their
// latencies, and returns how many there were.
func (s *Set) Clear() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.load()
	s.rules.Store(nil)
	for _, c := range old {
		close(c.gone)
	}
	return len(old)
}

// Active reports whether any rule is in force: a request that meets none
// need not be read for one.
func (s *Set) Active() bool { return s != nil && len(s.load()) > 0 }

// Picked is a rule applied to a request: the rule, with its hits so far;
// the answer it gives this request; and a channel closed when the rule is
// taken out of force (Remove, Clear), which ends the wait of its latency.
type Picked struct {
	Rule   Rule
	Answer Answer
	Gone   <-chan struct{}
}

// Pick returns the first rule, in the order they were added, that matches
// req and applies to it: past its After, within its Times or its
// Sequence, and drawn by its Fraction. It counts the hit; a rule that has
// given its last answer is taken out of force (its own waits go on). False
// when none applies.
func (s *Set) Pick(req Request) (Picked, bool) {
	if s == nil {
		return Picked{}, false
	}
	rules := s.load()
	if len(rules) == 0 {
		return Picked{}, false
	}
	segs := strings.Split(req.Path, "/")
	for _, c := range rules {
		if !c.matches(req, segs) {
			continue
		}
		r := &c.rule
		if r.After > 0 && c.seen.Add(1) <= int64(r.After) {
			continue
		}
		if r.Fraction < 1 && s.draw() >= r.Fraction {
			continue
		}
		n := c.hits.Add(1)
		limit := int64(r.Times)
		if r.Sequence != nil {
			limit = int64(len(r.Sequence))
		}
		if limit > 0 && n > limit {
			continue // spent by a request just before this one
		}
		if limit > 0 && n == limit {
			s.takeOut(r.ID, false)
		}
		p := Picked{Rule: *r, Answer: r.Answer, Gone: c.gone}
		p.Rule.Hits = int(n)
		if r.Sequence != nil {
			p.Answer = r.Sequence[n-1]
		}
		return p, true
	}
	return Picked{}, false
}

// String writes d as Go writes durations.
func (d Duration) String() string { return time.Duration(d).String() }
