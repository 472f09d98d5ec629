// Package fault injects faults into the reference server's answers, for
// client developers who need to see how their client copes with a slow
// service, an error status or a dropped connection: rules that match a
// method and a path pattern, and delay the answer, replace it with a
// status, or close the connection without one, for every matching request or
// a fraction of them.
//
// Rules are bounded (MaxRules, MaxPatternLen, MaxLatency), their patterns
// split once when they are added, and matched without a lock: a request
// reads the rules in force as they stood when it arrived.
package fault

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Bounds of the rules: how many may be in force, how long a path pattern
// and a method may be, and the longest delay a rule may add.
const (
	MaxRules      = 100
	MaxPatternLen = 256
	MaxMethodLen  = 20
	MaxLatency    = 2 * time.Minute
)

// Rule is one fault: which requests it matches and what it does to them.
type Rule struct {
	// ID names the rule; the Set assigns it.
	ID int `json:"id"`
	// Method matches the request method; empty matches every method.
	Method string `json:"method,omitempty"`
	// Path is a pattern of request paths: "*" matches within one path
	// segment (path.Match), and a final "/**" matches the path before it
	// and everything under it.
	Path string `json:"path"`
	// Latency delays the answer.
	Latency Duration `json:"latency,omitempty"`
	// Status, when set, answers with this status instead of the real
	// answer.
	Status int `json:"status,omitempty"`
	// Drop closes the connection without an answer.
	Drop bool `json:"drop,omitempty"`
	// Fraction is the share of matching requests the rule applies to, in
	// (0, 1]; 1 applies it to all of them.
	Fraction float64 `json:"fraction"`
	// Hits counts the requests the rule was applied to.
	Hits int `json:"hits"`
}

// Duration is a time.Duration written in JSON as Go writes durations:
// "250ms", "2s", "1m30s".
type Duration time.Duration

// MarshalJSON writes d as a string such as "2s".
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a string such as "2s".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf(`latency must be a duration string such as "2s" or "250ms"`)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf(`latency %q is not a duration such as "2s" or "250ms"`, s)
	}
	*d = Duration(v)
	return nil
}

// ruleInput is the body that adds a rule: Rule without what the Set
// assigns, and Fraction optional.
type ruleInput struct {
	Method   string    `json:"method"`
	Path     *string   `json:"path"`
	Latency  *Duration `json:"latency"`
	Status   int       `json:"status"`
	Drop     bool      `json:"drop"`
	Fraction *float64  `json:"fraction"`
}

// ErrInvalid reports a rule that cannot be used; the error says why.
var ErrInvalid = errors.New("invalid fault rule")

// Parse reads one rule from a JSON object such as
//
//	{"method": "GET", "path": "/api/events", "status": 503, "fraction": 0.5}
//
// and checks it. Errors wrap ErrInvalid and say what is wrong.
func Parse(body []byte) (Rule, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var in ruleInput
	if err := dec.Decode(&in); err != nil {
		return Rule{}, fmt.Errorf("%w: %s", ErrInvalid, describeJSONError(err))
	}
	if err := dec.Decode(&struct{}{}); err != io.EOF {
		return Rule{}, fmt.Errorf("%w: the body must hold one JSON object", ErrInvalid)
	}
	if in.Path == nil {
		return Rule{}, fmt.Errorf("%w: path is required, for example \"/api/events\" or \"/api/**\"", ErrInvalid)
	}
	r := Rule{Method: strings.ToUpper(in.Method), Path: *in.Path, Status: in.Status, Drop: in.Drop, Fraction: 1}
	if in.Latency != nil {
		r.Latency = *in.Latency
	}
	if in.Fraction != nil {
		r.Fraction = *in.Fraction
	}
	if err := r.Validate(); err != nil {
		return Rule{}, err
	}
	return r, nil
}

// describeJSONError turns a decoding error into a sentence for the caller.
func describeJSONError(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("the body is not valid JSON (at byte %d): %v", syntax.Offset, syntax)
	case errors.As(err, &typ):
		return fmt.Sprintf("%s must be a JSON %s", typ.Field, jsonKind(typ.Type.Kind().String()))
	case errors.Is(err, io.EOF):
		return "the body is empty; send one JSON object"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the body is not valid JSON: it ends too early"
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	}
	return err.Error()
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "struct", "map":
		return "object"
	case "slice", "array":
		return "array"
	case "ptr":
		return "value"
	}
	return "number"
}

// Validate checks a rule: a path pattern that starts with "/" and
// compiles, a method that is an HTTP token, a latency from 0 to
// MaxLatency, a status from 200 to 599, not both a status and a drop, at
// least one effect, and a fraction in (0, 1].
func (r Rule) Validate() error {
	var errs []string
	switch {
	case len(r.Path) > MaxPatternLen:
		errs = append(errs, fmt.Sprintf("path is %d bytes long; a pattern is at most %d", len(r.Path), MaxPatternLen))
	case !strings.HasPrefix(r.Path, "/"):
		errs = append(errs, fmt.Sprintf("path %q must start with \"/\"", r.Path))
	default:
		if _, err := path.Match(strings.ReplaceAll(r.Path, "/", ""), ""); err != nil {
			errs = append(errs, fmt.Sprintf("path %q is not a valid pattern", r.Path))
		}
	}
	if len(r.Method) > MaxMethodLen {
		errs = append(errs, fmt.Sprintf("method is %d bytes long; an HTTP method is at most %d", len(r.Method), MaxMethodLen))
	} else {
		for _, c := range r.Method {
			if c < 'A' || c > 'Z' {
				errs = append(errs, fmt.Sprintf("method %q must be an HTTP method such as GET, or empty for every method", r.Method))
				break
			}
		}
	}
	if r.Latency < 0 {
		errs = append(errs, fmt.Sprintf("latency %v must not be negative", time.Duration(r.Latency)))
	} else if time.Duration(r.Latency) > MaxLatency {
		errs = append(errs, fmt.Sprintf("latency %v must be at most %v", time.Duration(r.Latency), MaxLatency))
	}
	if r.Status != 0 && (r.Status < 200 || r.Status > 599) {
		errs = append(errs, fmt.Sprintf("status %d must be from 200 to 599", r.Status))
	}
	if r.Status != 0 && r.Drop {
		errs = append(errs, "a rule either answers a status or drops the connection, not both")
	}
	if r.Latency == 0 && r.Status == 0 && !r.Drop {
		errs = append(errs, "the rule does nothing: give a latency, a status or drop")
	}
	if !(r.Fraction > 0 && r.Fraction <= 1) {
		errs = append(errs, fmt.Sprintf("fraction %v must be above 0 and at most 1", r.Fraction))
	}
	if errs != nil {
		return fmt.Errorf("%w: %s", ErrInvalid, strings.Join(errs, "; "))
	}
	return nil
}

// Matches reports whether the rule applies to a request's method and path
// (before the fraction is drawn). The pattern is matched segment by
// segment; a final "**" segment matches whatever follows, or nothing.
func (r Rule) Matches(method, p string) bool {
	return compile(r).matches(method, strings.Split(p, "/"))
}

// compiled is a rule in force: its pattern split once, its hits counted
// without a lock, and gone closed when it is taken out of force.
type compiled struct {
	rule Rule
	// segs are the pattern's segments; rest is true when a final "**"
	// was cut from them.
	segs []string
	rest bool
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
func (c *compiled) matches(method string, segs []string) bool {
	if c.rule.Method != "" && c.rule.Method != method {
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
	return true
}

// Set holds the rules in force. It is safe for concurrent use: Pick reads
// the rules without a lock, and the writers (Add, Remove, Clear) replace
// them whole.
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
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.load()
	for i, c := range old {
		if c.rule.ID == id {
			rules := append(append(make([]*compiled, 0, len(old)-1), old[:i]...), old[i+1:]...)
			s.rules.Store(&rules)
			close(c.gone)
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

// Pick returns the first rule, in the order they were added, that matches
// the request and whose fraction is drawn, counting the hit, and a channel
// closed when that rule is taken out of force; false when none applies.
func (s *Set) Pick(method, p string) (Rule, <-chan struct{}, bool) {
	if s == nil {
		return Rule{}, nil, false
	}
	rules := s.load()
	if len(rules) == 0 {
		return Rule{}, nil, false
	}
	segs := strings.Split(p, "/")
	for _, c := range rules {
		if !c.matches(method, segs) {
			continue
		}
		if c.rule.Fraction < 1 && s.draw() >= c.rule.Fraction {
			continue
		}
		r := c.rule
		r.Hits = int(c.hits.Add(1))
		return r, c.gone, true
	}
	return Rule{}, nil, false
}

// String writes d as Go writes durations.
func (d Duration) String() string { return time.Duration(d).String() }
