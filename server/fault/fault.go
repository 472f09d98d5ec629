// Package fault injects faults into the reference server's answers, for
// client developers who need to see how their client copes with a slow
// service, an error status or a dropped connection: rules that match a
// method and a path pattern, and delay the answer, replace it with a
// status, or close the connection without one, for every matching request or
// a fraction of them.
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
	"time"
)

// MaxLatency is the longest delay a rule may add.
const MaxLatency = 10 * time.Minute

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
	if !strings.HasPrefix(r.Path, "/") {
		errs = append(errs, fmt.Sprintf("path %q must start with \"/\"", r.Path))
	} else if _, err := path.Match(strings.ReplaceAll(r.Path, "/", ""), ""); err != nil {
		errs = append(errs, fmt.Sprintf("path %q is not a valid pattern", r.Path))
	}
	for _, c := range r.Method {
		if c < 'A' || c > 'Z' {
			errs = append(errs, fmt.Sprintf("method %q must be an HTTP method such as GET, or empty for every method", r.Method))
			break
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
	if r.Method != "" && r.Method != method {
		return false
	}
	pattern, segs := strings.Split(r.Path, "/"), strings.Split(p, "/")
	if pattern[len(pattern)-1] == "**" {
		pattern = pattern[:len(pattern)-1]
		if len(segs) < len(pattern) {
			return false
		}
		segs = segs[:len(pattern)]
	} else if len(segs) != len(pattern) {
		return false
	}
	for i := range pattern {
		if ok, _ := path.Match(pattern[i], segs[i]); !ok {
			return false
		}
	}
	return true
}

// Set holds the rules in force. It is safe for concurrent use.
type Set struct {
	draw func() float64 // in [0, 1)

	mu     sync.Mutex
	rules  []Rule
	nextID int
}

// NewSet returns an empty Set that draws fractions from draw, a source of
// numbers in [0, 1) such as math/rand/v2's Float64.
func NewSet(draw func() float64) *Set { return &Set{draw: draw} }

// Add puts a valid rule in force and returns it with its ID.
func (s *Set) Add(r Rule) (Rule, error) {
	if err := r.Validate(); err != nil {
		return Rule{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	r.ID, r.Hits = s.nextID, 0
	s.rules = append(s.rules, r)
	return r, nil
}

// List returns the rules in force, in the order they were added.
func (s *Set) List() []Rule {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Rule{}, s.rules...)
}

// Remove takes the rule with the ID out of force, and reports whether
// there was one.
func (s *Set) Remove(id int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range s.rules {
		if r.ID == id {
			s.rules = append(s.rules[:i], s.rules[i+1:]...)
			return true
		}
	}
	return false
}

// Clear takes every rule out of force, and returns how many there were.
func (s *Set) Clear() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.rules)
	s.rules = nil
	return n
}

// Pick returns the first rule, in the order they were added, that matches
// the request and whose fraction is drawn, counting the hit; false when
// none applies.
func (s *Set) Pick(method, p string) (Rule, bool) {
	if s == nil {
		return Rule{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.rules {
		r := &s.rules[i]
		if !r.Matches(method, p) {
			continue
		}
		if r.Fraction < 1 && s.draw() >= r.Fraction {
			continue
		}
		r.Hits++
		return *r, true
	}
	return Rule{}, false
}

// String writes d as Go writes durations.
func (d Duration) String() string { return time.Duration(d).String() }
