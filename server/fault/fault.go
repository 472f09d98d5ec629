// Package fault injects faults into the reference server's answers, for
// client developers who need to see how their client copes with a slow
// service, an error status or a dropped connection: rules that match a
// method, a path pattern, query parameters, whether a token is sent and a
// token request's grant type, and delay the answer, replace it with a
// status, a body and headers of their own, or close the connection without
// one, for every matching request, a fraction of them, the next few after
// some, or one answer each from a sequence. A rule that is spent removes
// itself, so that a client's test can count on exactly what it asked for.
//
// Rules are bounded (MaxRules, MaxPatternLen, MaxLatency), their patterns
// split once when they are added, and matched without a lock: a request
// reads the rules in force as they stood when it arrived.
package fault

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"
	"time"

	"eventsvc/server/jsonbody"
)

// Bounds of the rules: how many may be in force, how long a path pattern
// and a method may be, the longest delay a rule may add, and how large
// the answers it gives may be.
const (
	MaxRules      = 100
	MaxPatternLen = 256
	MaxMethodLen  = 20
	MaxLatency    = 2 * time.Minute
	// MaxBody is the largest body an answer may give, as JSON.
	MaxBody = 64 << 10
	// MaxHeaders is how many headers an answer may set.
	MaxHeaders = 20
	// MaxSequence is how many answers a sequence may hold.
	MaxSequence = 100
	// MaxQuery is how many query parameters a rule may match.
	MaxQuery = 20
	// MaxCount bounds after and times.
	MaxCount = 1_000_000
)

// Answer is what a rule does to a request it applies to: delay it, then
// answer a status (with a body and headers of its own, or the service's
// injected_fault error), or close the connection without an answer, or,
// with a latency alone, let the request go on to its real answer.
type Answer struct {
	// Latency delays the answer.
	Latency Duration `json:"latency,omitempty"`
	// Status, when set, answers with this status instead of the real
	// answer.
	Status int `json:"status,omitempty"`
	// Body is the answer's body, a JSON value: an object or an array is
	// sent as JSON (application/json unless Headers say otherwise), a
	// string as its text (text/plain unless Headers say otherwise).
	// Without it, a status answers the injected_fault error.
	Body json.RawMessage `json:"body,omitempty"`
	// Headers are set on the answer, such as Retry-After or
	// WWW-Authenticate.
	Headers map[string]string `json:"headers,omitempty"`
	// Drop closes the connection without an answer.
	Drop bool `json:"drop,omitempty"`
}

// Rule is one fault: which requests it matches, which of them it applies
// to, and what it does to them.
type Rule struct {
	// ID names the rule; the Set assigns it.
	ID int `json:"id"`
	// Method matches the request method; empty matches every method.
	Method string `json:"method,omitempty"`
	// Path is a pattern of request paths: "*" matches within one path
	// segment (path.Match), and a final "/**" matches the path before it
	// and everything under it. It has no query: Query matches that.
	Path string `json:"path"`
	// Query are query parameters the request must carry, each with this
	// value, or with any value for "*".
	Query map[string]string `json:"query,omitempty"`
	// Token, when set, matches requests that carry a bearer token (true)
	// or do not (false).
	Token *bool `json:"token,omitempty"`
	// GrantType matches token requests (POST /oauth/token) of this
	// grant type, such as "refresh_token".
	GrantType string `json:"grantType,omitempty"`
	// After lets the first After matching requests go through untouched.
	After int `json:"after,omitempty"`
	// Times is how many requests the rule applies to before it removes
	// itself; 0 is no limit.
	Times int `json:"times,omitempty"`
	// Fraction is the share of matching requests the rule applies to, in
	// (0, 1]; 1 applies it to all of them.
	Fraction float64 `json:"fraction"`
	// Answer is what it does, when it has no Sequence.
	Answer
	// Sequence, when set, is what it does to the requests it applies to,
	// one answer each, in order; after the last, it removes itself. An
	// answer without status, drop or latency lets its request through.
	Sequence []Answer `json:"sequence,omitempty"`
	// Hits counts the requests the rule was applied to.
	Hits int `json:"hits"`
}

// Request is what a rule matches a request by.
type Request struct {
	Method, Path string
	// Query are the request's query parameters.
	Query url.Values
	// Token is whether it carries a bearer token.
	Token bool
	// GrantType is the grant_type of a form-encoded POST, if it has one.
	GrantType string
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

// answerInput is an answer as a body gives it.
type answerInput struct {
	Latency *Duration         `json:"latency"`
	Status  int               `json:"status"`
	Body    json.RawMessage   `json:"body"`
	Headers map[string]string `json:"headers"`
	Drop    bool              `json:"drop"`
}

func (in answerInput) answer() Answer {
	a := Answer{Status: in.Status, Body: in.Body, Headers: in.Headers, Drop: in.Drop}
	if in.Latency != nil {
		a.Latency = *in.Latency
	}
	return a
}

// ruleInput is the body that adds a rule: Rule without what the Set
// assigns, and Fraction optional.
type ruleInput struct {
	Method    string            `json:"method"`
	Path      *string           `json:"path"`
	Query     map[string]string `json:"query"`
	Token     *bool             `json:"token"`
	GrantType string            `json:"grantType"`
	After     int               `json:"after"`
	Times     int               `json:"times"`
	Fraction  *float64          `json:"fraction"`
	answerInput
	Sequence []answerInput `json:"sequence"`
}

// ErrInvalid reports a rule that cannot be used; the error says why.
var ErrInvalid = errors.New("invalid fault rule")

// Parse reads one rule from a JSON object such as
//
//	{"method": "GET", "path": "/api/events", "status": 503, "fraction": 0.5}
//	{"path": "/oauth/token", "grantType": "refresh_token", "times": 1,
//	 "status": 400, "body": {"error": "invalid_grant"}}
//	{"path": "/api/events", "sequence": [{"status": 503, "headers": {"Retry-After": "1"}}, {}]}
//
// and checks it. Errors wrap ErrInvalid and say what is wrong.
func Parse(body []byte) (Rule, error) {
	var in ruleInput
	if err := jsonbody.Decode(body, &in); err != nil {
		return Rule{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if in.Path == nil {
		return Rule{}, fmt.Errorf("%w: path is required, for example \"/api/events\" or \"/api/**\"", ErrInvalid)
	}
	r := Rule{Method: strings.ToUpper(in.Method), Path: *in.Path, Query: in.Query, Token: in.Token, GrantType: in.GrantType,
		After: in.After, Times: in.Times, Fraction: 1, Answer: in.answer()}
	if in.Sequence != nil {
		r.Sequence = make([]Answer, 0, len(in.Sequence))
	}
	for _, a := range in.Sequence {
		r.Sequence = append(r.Sequence, a.answer())
	}
	if in.Fraction != nil {
		r.Fraction = *in.Fraction
	}
	if err := r.Validate(); err != nil {
		return Rule{}, err
	}
	return r, nil
}

// Validate checks a rule: a path pattern that starts with "/", has no
// query and compiles; a method that is an HTTP token; query parameters,
// after and times within bounds; a fraction in (0, 1]; and its answer, or
// each answer of its sequence, valid. A rule with a sequence has no answer
// of its own and no times: the sequence's length is its times.
func (r Rule) Validate() error {
	var errs []string
	switch {
	case len(r.Path) > MaxPatternLen:
		errs = append(errs, fmt.Sprintf("path is %d bytes long; a pattern is at most %d", len(r.Path), MaxPatternLen))
	case !strings.HasPrefix(r.Path, "/"):
		errs = append(errs, fmt.Sprintf("path %q must start with \"/\"", r.Path))
	case strings.ContainsAny(r.Path, "?#"):
		errs = append(errs, fmt.Sprintf("path %q has a query: a path never does; match parameters with \"query\", such as {\"path\": \"/api/events\", \"query\": {\"page\": \"1\"}}", r.Path))
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
	if len(r.Query) > MaxQuery {
		errs = append(errs, fmt.Sprintf("query names %d parameters; a rule matches at most %d", len(r.Query), MaxQuery))
	}
	for k, v := range r.Query {
		if k == "" || len(k) > MaxPatternLen || len(v) > MaxPatternLen {
			errs = append(errs, fmt.Sprintf("query parameter %q: a name must be given, and names and values are at most %d bytes", k, MaxPatternLen))
			break
		}
	}
	if len(r.GrantType) > MaxPatternLen {
		errs = append(errs, fmt.Sprintf("grantType is %d bytes long; at most %d", len(r.GrantType), MaxPatternLen))
	}
	if r.After < 0 || r.After > MaxCount {
		errs = append(errs, fmt.Sprintf("after %d must be from 0 to %d", r.After, MaxCount))
	}
	if r.Times < 0 || r.Times > MaxCount {
		errs = append(errs, fmt.Sprintf("times %d must be from 0 (no limit) to %d", r.Times, MaxCount))
	}
	switch {
	case r.Sequence != nil && !r.Answer.empty():
		errs = append(errs, "a rule gives either one answer (latency, status, body, headers, drop) or a sequence of them, not both")
	case r.Sequence != nil && r.Times != 0:
		errs = append(errs, "a rule with a sequence applies as many times as the sequence has answers: leave out times")
	case r.Sequence != nil && len(r.Sequence) == 0:
		errs = append(errs, "the sequence is empty: give at least one answer")
	case len(r.Sequence) > MaxSequence:
		errs = append(errs, fmt.Sprintf("the sequence has %d answers; at most %d", len(r.Sequence), MaxSequence))
	case r.Sequence != nil:
		for i, a := range r.Sequence {
			if msgs := a.problems(true); msgs != nil {
				errs = append(errs, fmt.Sprintf("answer %d of the sequence: %s", i+1, strings.Join(msgs, "; ")))
			}
		}
	default:
		errs = append(errs, r.Answer.problems(false)...)
	}
	if !(r.Fraction > 0 && r.Fraction <= 1) {
		errs = append(errs, fmt.Sprintf("fraction %v must be above 0 and at most 1", r.Fraction))
	}
	if errs != nil {
		return fmt.Errorf("%w: %s", ErrInvalid, strings.Join(errs, "; "))
	}
	return nil
}

// empty reports whether a gives nothing.
func (a Answer) empty() bool {
	return a.Latency == 0 && a.Status == 0 && a.Body == nil && a.Headers == nil && !a.Drop
}

// problems says what is wrong with a: a latency from 0 to MaxLatency, a
// status from 200 to 599, not both a status and a drop, a body and
// headers only with a status, headers that HTTP can carry, and, unless
// it is a step of a sequence (which may let its request through), at
// least one effect.
func (a Answer) problems(step bool) []string {
	var errs []string
	if a.Latency < 0 {
		errs = append(errs, fmt.Sprintf("latency %v must not be negative", time.Duration(a.Latency)))
	} else if time.Duration(a.Latency) > MaxLatency {
		errs = append(errs, fmt.Sprintf("latency %v must be at most %v", time.Duration(a.Latency), MaxLatency))
	}
	if a.Status != 0 && (a.Status < 200 || a.Status > 599) {
		errs = append(errs, fmt.Sprintf("status %d must be from 200 to 599", a.Status))
	}
	if a.Status != 0 && a.Drop {
		errs = append(errs, "a rule either answers a status or drops the connection, not both")
	}
	if (a.Body != nil || a.Headers != nil) && a.Status == 0 {
		errs = append(errs, "a body or headers need a status to answer with")
	}
	if len(a.Body) > MaxBody {
		errs = append(errs, fmt.Sprintf("the body is %d bytes; at most %d", len(a.Body), MaxBody))
	}
	if a.Body != nil && !json.Valid(a.Body) {
		errs = append(errs, "the body must be a JSON value")
	}
	if len(a.Headers) > MaxHeaders {
		errs = append(errs, fmt.Sprintf("%d headers; at most %d", len(a.Headers), MaxHeaders))
	}
	for _, name := range sortedKeys(a.Headers) {
		if msg := headerProblem(name, a.Headers[name]); msg != "" {
			errs = append(errs, msg)
		}
	}
	if !step && a.Latency == 0 && a.Status == 0 && !a.Drop {
		errs = append(errs, "the rule does nothing: give a latency, a status or drop")
	}
	return errs
}

// headerProblem says what is wrong with a header an answer sets: a name
// that is not an HTTP token, a value with a control character, one the
// server must set itself.
func headerProblem(name, value string) string {
	if name == "" || len(name) > 64 {
		return fmt.Sprintf("header name %q must be 1 to 64 characters", name)
	}
	for _, c := range name {
		if !(c == '-' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || strings.ContainsRune("!#$%&'*+.^_`|~", c)) {
			return fmt.Sprintf("header name %q must be an HTTP token (letters, digits, -)", name)
		}
	}
	switch strings.ToLower(name) {
	case "content-length", "transfer-encoding", "connection", "date", "server":
		return fmt.Sprintf("header %q is the server's to set", name)
	}
	if len(value) > 4096 {
		return fmt.Sprintf("header %q: a value is at most 4096 bytes", name)
	}
	for _, c := range value {
		if c < 0x20 && c != '\t' || c == 0x7f {
			return fmt.Sprintf("header %q: a value must not hold control characters", name)
		}
	}
	return ""
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Matches reports whether the rule applies to a request (before after,
// times and the fraction count). The path pattern is matched segment by
// segment; a final "**" segment matches whatever follows, or nothing.
func (r Rule) Matches(req Request) bool {
	return compile(r).matches(req, strings.Split(req.Path, "/"))
}

// MatchPath reports whether p matches pattern, as a rule's Path does: "*"
// within one segment, a final "/**" the path before it and everything
// under it.
func MatchPath(pattern, p string) bool {
	return compile(Rule{Path: pattern}).matches(Request{Path: p}, strings.Split(p, "/"))
}

// CheckPattern says what is wrong with a path pattern, as Validate does
// for a rule's; nil for a good one.
func CheckPattern(pattern string) error {
	r := Rule{Path: pattern, Fraction: 1, Answer: Answer{Status: 500}}
	if err := r.Validate(); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": "))
	}
	return nil
}
