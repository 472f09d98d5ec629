package event

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// SeedError is a refused seed: every problem of every event, by position.
type SeedError struct {
	Problems []SeedProblem
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
	if n := len(e.Problems) - 1; n > 0 {
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
	var items []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&items); err != nil || items == nil || dec.More() {
		return nil, fmt.Errorf("the seed must be one JSON array of events")
	}
	var events []Event
	var problems []SeedProblem
	for i, raw := range items {
		e, errs := seedEvent(raw, managerOf)
		if errs != nil {
			problems = append(problems, SeedProblem{Index: i, Errors: errs})
			continue
		}
		events = append(events, e)
	}
	if problems != nil {
		return nil, &SeedError{Problems: problems}
	}
	return events, nil
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
