package event

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Bounds of a seed: the events it may hold, and the events with problems
// a refusal lists (the others are counted in SeedError.More), so that a
// refusal is never much larger than the seed.
const (
	MaxSeedEvents   = 10_000
	MaxSeedProblems = 100
)

// SeedError is a refused seed: the problems of its first MaxSeedProblems
// events that have any, by position, and how many more events have
// problems.
type SeedError struct {
	Problems []SeedProblem
	// More counts the events with problems past those listed.
	More int
}

// SeedProblem is what is wrong with one event of a seed: Index counts from
// 0; Errors are the field errors of a create body, and those of the seed's
// own properties (manager, eventStatus).
type SeedProblem struct {
	Index  int          `json:"index"`
	Errors []FieldError `json:"content"`
}

// Error tells the first problem and how many there are.
func (e *SeedError) Error() string {
	if len(e.Problems) == 0 {
		return "invalid seed"
	}
	p := e.Problems[0]
	var parts []string
	for _, fe := range p.Errors {
		parts = append(parts, fe.DefaultMessage)
	}
	msg := fmt.Sprintf("event %d of the seed: %s", p.Index, strings.Join(parts, "; "))
	if n := len(e.Problems) - 1 + e.More; n > 0 {
		msg += fmt.Sprintf(" (and %d more events with problems)", n)
	}
	return msg
}

// SeedObjectName names a seed event in its field errors.
const SeedObjectName = "seed"

// ParseSeed reads a seed: a JSON array of events, each the body a client
// would POST (validated by Decode, the same rules), with two more optional
// properties a client may not set:
//
//   - "manager": the email of the account that manages it (default: the
//     account managerOf knows as "", the first one);
//   - "eventStatus": DRAFT (the default), PUBLISHED or BEGAN_ENROLLMENT.
//
// managerOf finds an account's id by email. It returns the events, without
// IDs, or a *SeedError listing every problem, or an error for a body that
// is not a JSON array.
func ParseSeed(body []byte, managerOf func(email string) (int64, bool)) ([]Event, error) {
	items, err := seedItems(body)
	if err != nil {
		return nil, err
	}
	var events []Event
	var serr SeedError
	for i, raw := range items {
		e, errs := seedEvent(raw, managerOf)
		switch {
		case errs == nil:
			events = append(events, e)
		case len(serr.Problems) < MaxSeedProblems:
			serr.Problems = append(serr.Problems, SeedProblem{Index: i, Errors: errs})
		default:
			serr.More++
		}
	}
	if serr.Problems != nil {
		return nil, &serr
	}
	return events, nil
}

// errNotASeed refuses a body that is not one JSON array.
var errNotASeed = errors.New("the seed must be one JSON array of events")

// seedItems splits a seed into its items, refusing it whole past
// MaxSeedEvents before reading the rest.
func seedItems(body []byte) ([]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, errNotASeed
	}
	items := []json.RawMessage{}
	for dec.More() {
		if len(items) == MaxSeedEvents {
			return nil, fmt.Errorf("a seed holds at most %d events; for more, start the server with -demo-events", MaxSeedEvents)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, errNotASeed
		}
		items = append(items, raw)
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim(']') {
		return nil, errNotASeed
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errNotASeed
	}
	return items, nil
}

// seedEvent reads one event of a seed.
func seedEvent(raw json.RawMessage, managerOf func(string) (int64, bool)) (Event, []FieldError) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return Event{}, []FieldError{{ObjectName: SeedObjectName, Code: CodeNotAnObject, DefaultMessage: "each event of the seed must be a JSON object"}}
	}
	var errs []FieldError
	manager := ""
	if v, ok := fields["manager"]; ok {
		delete(fields, "manager")
		if err := json.Unmarshal(v, &manager); err != nil {
			errs = append(errs, FieldError{Field: "manager", ObjectName: SeedObjectName, Code: CodeTypeMismatch, DefaultMessage: "manager must be the email of an account", RejectedValue: v})
		}
	}
	managerID, ok := managerOf(manager)
	if !ok && errs == nil {
		errs = append(errs, FieldError{Field: "manager", ObjectName: SeedObjectName, Code: CodeWrongValue, DefaultMessage: fmt.Sprintf("no account has the email %q", manager), RejectedValue: manager})
	}
	status := Draft
	if v, ok := fields["eventStatus"]; ok {
		delete(fields, "eventStatus")
		var s string
		_ = json.Unmarshal(v, &s)
		switch Status(s) {
		case Draft, Published, BeganEnrollment:
			status = Status(s)
		default:
			errs = append(errs, FieldError{Field: "eventStatus", ObjectName: SeedObjectName, Code: CodeWrongValue, DefaultMessage: "eventStatus must be DRAFT, PUBLISHED or BEGAN_ENROLLMENT", RejectedValue: v})
		}
	}
	rest, err := json.Marshal(fields)
	if err != nil {
		return Event{}, append(errs, FieldError{ObjectName: SeedObjectName, Code: CodeNotAnObject, DefaultMessage: "the event cannot be read"})
	}
	in, err := Decode(rest)
	if verr, ok := err.(*ValidationError); ok {
		errs = append(errs, verr.Errors...)
	} else if err != nil {
		errs = append(errs, FieldError{ObjectName: SeedObjectName, Code: CodeNotAnObject, DefaultMessage: err.Error()})
	}
	if errs != nil {
		return Event{}, errs
	}
	e := Event{Status: status, ManagerID: managerID}
	in.Apply(&e)
	return e, nil
}
