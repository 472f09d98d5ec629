package eventsvctest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"eventsvc/server/fault"
)

// Fault is a fault rule of the public API (docs/control-api.md): which
// requests it matches, which of them it applies to, and what it does to
// them. Path is required; a rule needs a latency, a status or a drop, in
// its Answer or in each step of its Sequence.
type Fault struct {
	// ID names the rule in force; the control API gives it, and AddFault
	// ignores it.
	ID int
	// Method matches the request method; empty matches every method.
	Method string
	// Path is a pattern of request paths: "*" stands for one segment
	// ("/api/events/*"), a final "/**" for whatever follows ("/api/**").
	Path string
	// Query are query parameters the request must carry, each with this
	// value, or with any value for "*".
	Query map[string]string
	// Token matches requests by whether they carry a bearer token.
	Token TokenMatch
	// GrantType matches token requests (POST /oauth/token) of this grant
	// type, such as "refresh_token".
	GrantType string
	// After lets the first After matching requests through untouched.
	After int
	// Times is how many requests the rule applies to before it removes
	// itself; 0 is no limit.
	Times int
	// Fraction is the share of matching requests the rule applies to, in
	// (0, 1]; zero is 1, all of them.
	Fraction float64
	// Answer is what the rule does, when it has no Sequence.
	Answer
	// Sequence, when set, is what the rule does to the requests it
	// applies to, one answer each, in order; after the last it removes
	// itself. A step without a latency, status or drop lets its request
	// through.
	Sequence []Answer
	// Hits counts the requests the rule was applied to; Faults tells it,
	// and AddFault ignores it.
	Hits int
}

// Answer is what a fault rule does to a request it applies to.
type Answer struct {
	// Latency delays the answer (at most two minutes); alone, it delays
	// the real answer.
	Latency time.Duration
	// Status, when set, is answered in place of the real answer, with
	// {"error": "injected_fault", …} unless Body says otherwise.
	Status int
	// Body is the answer's body: a value encoding/json writes as an
	// object or an array is sent as JSON, a string as its text. Faults
	// gives it back as a json.RawMessage.
	Body any
	// Headers are set on the answer, such as Retry-After.
	Headers map[string]string
	// Drop closes the connection without an answer.
	Drop bool
}

// TokenMatch says which requests a Fault matches by the bearer token they
// carry.
type TokenMatch int

// Values of TokenMatch.
const (
	// AnyToken matches requests with or without a token.
	AnyToken TokenMatch = iota
	// WithToken matches requests that carry a bearer token.
	WithToken
	// WithoutToken matches requests that carry none.
	WithoutToken
)

// faultJSON is a Fault as the body that adds it: the control API's
// fault.Rule without what the control API assigns, its ID and Hits, and
// without a zero Fraction, which the control API takes as 1.
type faultJSON struct {
	fault.Rule
	ID       int     `json:"id,omitempty"`
	Hits     int     `json:"hits,omitempty"`
	Fraction float64 `json:"fraction,omitempty"`
}

// wire is a as the control API reads it, its Body encoded as JSON.
func (a Answer) wire() (fault.Answer, error) {
	w := fault.Answer{Latency: fault.Duration(a.Latency), Status: a.Status, Headers: a.Headers, Drop: a.Drop}
	if a.Body != nil {
		b, err := json.Marshal(a.Body)
		if err != nil {
			return w, fmt.Errorf("body: %w", err)
		}
		w.Body = b
	}
	return w, nil
}

// answerOf is the Answer of a, one the control API lists: its Body the
// json.RawMessage it holds, nil without one.
func answerOf(a fault.Answer) Answer {
	out := Answer{Latency: time.Duration(a.Latency), Status: a.Status, Headers: a.Headers, Drop: a.Drop}
	if a.Body != nil {
		out.Body = a.Body
	}
	return out
}

// wire is f as the body that adds it: without its ID and Hits.
func (f Fault) wire() (faultJSON, error) {
	w := faultJSON{Rule: fault.Rule{Method: f.Method, Path: f.Path, Query: f.Query, GrantType: f.GrantType,
		After: f.After, Times: f.Times}, Fraction: f.Fraction}
	switch f.Token {
	case WithToken, WithoutToken:
		has := f.Token == WithToken
		w.Token = &has
	}
	var err error
	if w.Answer, err = f.Answer.wire(); err != nil {
		return w, err
	}
	for i, a := range f.Sequence {
		step, err := a.wire()
		if err != nil {
			return w, fmt.Errorf("answer %d of the sequence: %w", i+1, err)
		}
		w.Sequence = append(w.Sequence, step)
	}
	return w, nil
}

// faultOf is the Fault of r, a rule the control API lists.
func faultOf(r fault.Rule) Fault {
	f := Fault{ID: r.ID, Method: r.Method, Path: r.Path, Query: r.Query, GrantType: r.GrantType,
		After: r.After, Times: r.Times, Fraction: r.Fraction, Answer: answerOf(r.Answer), Hits: r.Hits}
	switch {
	case r.Token == nil:
	case *r.Token:
		f.Token = WithToken
	default:
		f.Token = WithoutToken
	}
	for _, step := range r.Sequence {
		f.Sequence = append(f.Sequence, answerOf(step))
	}
	return f
}

// AddFault puts the rule f in force (POST /faults) and returns its id, for
// RemoveFault and JournalFilter.Fault. A rule the control API refuses
// fails tb with what is wrong with it.
func (s *Server) AddFault(tb testing.TB, f Fault) int {
	tb.Helper()
	w, err := f.wire()
	if err != nil {
		tb.Fatalf("eventsvctest: AddFault: %v", err)
		return 0
	}
	return answer[fault.Rule](tb, s, http.MethodPost, "/faults", w).ID
}

// Faults returns the rules in force (GET /faults), in the order they were
// added, with their hits. A rule that is spent (Times, Sequence) is gone.
func (s *Server) Faults(tb testing.TB) []Fault {
	tb.Helper()
	var faults []Fault
	for _, r := range member[[]fault.Rule](tb, s, http.MethodGet, "/faults", nil, "faults") {
		faults = append(faults, faultOf(r))
	}
	return faults
}

// RemoveFault takes the rule with this id out of force (DELETE
// /faults/{id}); a request its latency holds gets its real answer at
// once. It fails tb when no rule in force has the id.
func (s *Server) RemoveFault(tb testing.TB, id int) {
	tb.Helper()
	s.call(tb, http.MethodDelete, "/faults/"+strconv.Itoa(id), nil, nil)
}

// ClearFaults takes every rule out of force (DELETE /faults) and returns
// how many there were.
func (s *Server) ClearFaults(tb testing.TB) int {
	tb.Helper()
	return member[int](tb, s, http.MethodDelete, "/faults", nil, "cleared")
}
