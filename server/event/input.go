package event

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// ObjectName names the validated object in field errors, as the original
// implementation did.
const ObjectName = "eventDto"

// Validation codes of FieldError.
const (
	CodeNotEmpty     = "NotEmpty"        // a required text is missing or empty
	CodeNotNull      = "NotNull"         // a required date-time is missing
	CodeMin          = "Min"             // a number is negative
	CodeTypeMismatch = "typeMismatch"    // a value of the wrong type or format
	CodeNotAllowed   = "notAllowed"      // a property the client may not set, or none the event has
	CodeWrongValue   = "wrongValue"      // the end comes before another date-time
	CodeWrongPrices  = "wrongPrices"     // the base price is above a non-zero maximum price (global)
	CodeNotAnObject  = "notAnObject"     // the body is not a JSON object (global)
	CodeNotUTF8      = "invalidEncoding" // the body is not UTF-8 (global)
	CodeSize         = "Size"            // a text is longer than its limit
	// CodeInvalidCharacter: a text holds U+0000, which PostgreSQL's text
	// cannot store: refused on every store, so that replicas agree.
	CodeInvalidCharacter = "invalidCharacter"
)

// Longest texts, in characters (Unicode code points): the widths of the
// original service's columns (docs/reference-choices.md).
const (
	MaxNameLen        = 255
	MaxLocationLen    = 255
	MaxDescriptionLen = 4000
)

// FieldError is one reason a body was refused. Field is empty for a global
// error, which concerns the object as a whole.
type FieldError struct {
	Field          string `json:"field,omitempty"`
	ObjectName     string `json:"objectName"`
	Code           string `json:"code"`
	DefaultMessage string `json:"defaultMessage"`
	RejectedValue  any    `json:"rejectedValue"`
}

// ValidationError is a refused body: field errors first, then global ones.
type ValidationError struct {
	Errors []FieldError
}

// Error lists the codes.
func (v *ValidationError) Error() string {
	msg := "invalid event:"
	for _, e := range v.Errors {
		if e.Field != "" {
			msg += fmt.Sprintf(" %s %s;", e.Field, e.Code)
		} else {
			msg += fmt.Sprintf(" %s;", e.Code)
		}
	}
	return msg
}

// Input is what a client may set on an event, validated.
type Input struct {
	Name, Description       string
	BeginEnrollmentDateTime time.Time
	CloseEnrollmentDateTime time.Time
	BeginEventDateTime      time.Time
	EndEventDateTime        time.Time
	Location                string
	BasePrice, MaxPrice     int
	LimitOfEnrollment       int
}

// Apply copies the input onto e and recomputes e's computed fields.
func (in Input) Apply(e *Event) {
	e.Name, e.Description = in.Name, in.Description
	e.BeginEnrollmentDateTime = in.BeginEnrollmentDateTime
	e.CloseEnrollmentDateTime = in.CloseEnrollmentDateTime
	e.BeginEventDateTime = in.BeginEventDateTime
	e.EndEventDateTime = in.EndEventDateTime
	e.Location = in.Location
	e.BasePrice, e.MaxPrice, e.LimitOfEnrollment = in.BasePrice, in.MaxPrice, in.LimitOfEnrollment
	e.compute()
}

// dateLayouts are the accepted forms of a local date-time.
var dateLayouts = []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04"}

// Decode validates a create or update body (docs/reference-choices.md). It
// returns the input, or a *ValidationError that lists every problem found.
func Decode(body []byte) (Input, error) {
	var in Input
	if !utf8.Valid(body) {
		return in, &ValidationError{Errors: []FieldError{{
			ObjectName: ObjectName, Code: CodeNotUTF8,
			DefaultMessage: "the body must be UTF-8 encoded JSON",
		}}}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
		return in, &ValidationError{Errors: []FieldError{{
			ObjectName: ObjectName, Code: CodeNotAnObject,
			DefaultMessage: "the body must be one JSON object with the event's fields",
		}}}
	}
	v := validator{fields: fields}
	in.Name = v.text("name", MaxNameLen)
	in.Description = v.text("description", MaxDescriptionLen)
	in.BeginEnrollmentDateTime = v.date("beginEnrollmentDateTime")
	in.CloseEnrollmentDateTime = v.date("closeEnrollmentDateTime")
	in.BeginEventDateTime = v.date("beginEventDateTime")
	in.EndEventDateTime = v.date("endEventDateTime")
	in.Location = v.optionalText("location", MaxLocationLen)
	in.BasePrice = v.count("basePrice")
	in.MaxPrice = v.count("maxPrice")
	in.LimitOfEnrollment = v.count("limitOfEnrollment")
	for name, raw := range fields {
		if !v.known[name] {
			field := name
			if field == "" {
				field = `""` // an empty name, shown as such: a field error needs a field
			}
			v.fail(field, CodeNotAllowed, raw, "property %q cannot be set by a client", name)
		}
	}
	v.sortFieldErrors()

	dates := []string{"beginEnrollmentDateTime", "closeEnrollmentDateTime", "beginEventDateTime"}
	if v.ok("endEventDateTime") && v.ok(dates...) {
		end := in.EndEventDateTime
		if end.Before(in.BeginEnrollmentDateTime) || end.Before(in.CloseEnrollmentDateTime) || end.Before(in.BeginEventDateTime) {
			v.fail("endEventDateTime", CodeWrongValue, fields["endEventDateTime"], "endEventDateTime must not be before the other date-times")
		}
	}
	if v.ok("basePrice", "maxPrice") && in.MaxPrice > 0 && in.BasePrice > in.MaxPrice {
		v.errs = append(v.errs, FieldError{
			ObjectName: ObjectName, Code: CodeWrongPrices,
			DefaultMessage: "basePrice must not be above maxPrice when maxPrice is set",
		})
	}
	if len(v.errs) > 0 {
		return Input{}, &ValidationError{Errors: v.errs}
	}
	return in, nil
}

type validator struct {
	fields map[string]json.RawMessage
	known  map[string]bool
	bad    map[string]bool
	errs   []FieldError
}

func (v *validator) raw(name string) (json.RawMessage, bool) {
	if v.known == nil {
		v.known = map[string]bool{}
	}
	v.known[name] = true
	raw, ok := v.fields[name]
	if ok && string(raw) == "null" {
		return nil, false
	}
	return raw, ok
}

func (v *validator) fail(field, code string, raw json.RawMessage, format string, args ...any) {
	if v.bad == nil {
		v.bad = map[string]bool{}
	}
	v.bad[field] = true
	var rejected any
	if raw != nil {
		_ = json.Unmarshal(raw, &rejected)
	}
	v.errs = append(v.errs, FieldError{
		Field: field, ObjectName: ObjectName, Code: code,
		DefaultMessage: fmt.Sprintf(format, args...), RejectedValue: rejected,
	})
}

// ok reports whether none of the fields has an error.
func (v *validator) ok(fields ...string) bool {
	for _, f := range fields {
		if v.bad[f] {
			return false
		}
	}
	return true
}

func (v *validator) text(name string, maxLen int) string {
	raw, ok := v.raw(name)
	var s string
	switch {
	case !ok:
		v.fail(name, CodeNotEmpty, nil, "%s is required", name)
	case json.Unmarshal(raw, &s) != nil:
		v.fail(name, CodeTypeMismatch, raw, "%s must be a string", name)
	case s == "":
		v.fail(name, CodeNotEmpty, raw, "%s must not be empty", name)
	default:
		v.length(name, s, maxLen)
	}
	return s
}

func (v *validator) optionalText(name string, maxLen int) string {
	raw, ok := v.raw(name)
	var s string
	if ok && json.Unmarshal(raw, &s) != nil {
		v.fail(name, CodeTypeMismatch, raw, "%s must be a string", name)
	} else {
		v.length(name, s, maxLen)
	}
	return s
}

// length refuses a text of more than maxLen characters, and one that holds
// U+0000. The value is not repeated in the error: it may be as large as
// the body.
func (v *validator) length(name, s string, maxLen int) {
	if strings.IndexByte(s, 0) >= 0 {
		v.fail(name, CodeInvalidCharacter, nil, "%s must not hold the character U+0000", name)
		return
	}
	if n := utf8.RuneCountInString(s); n > maxLen {
		v.fail(name, CodeSize, nil, "%s must be at most %d characters long, not %d", name, maxLen, n)
	}
}

func (v *validator) date(name string) time.Time {
	raw, ok := v.raw(name)
	if !ok {
		v.fail(name, CodeNotNull, nil, "%s is required", name)
		return time.Time{}
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		for _, layout := range dateLayouts {
			if t, err := time.Parse(layout, s); err == nil {
				return t
			}
		}
	}
	v.fail(name, CodeTypeMismatch, raw, "%s must be a local date-time such as 2026-11-25T14:21:00", name)
	return time.Time{}
}

// count reads a non-negative integer of Java's int range; absent means 0.
func (v *validator) count(name string) int {
	raw, ok := v.raw(name)
	if !ok {
		return 0
	}
	var n json.Number
	// json.Number also takes a string holding a number ("3"): a number
	// must be written as one.
	if c := raw[0]; (c != '-' && (c < '0' || c > '9')) || json.Unmarshal(raw, &n) != nil {
		v.fail(name, CodeTypeMismatch, raw, "%s must be a whole number", name)
		return 0
	}
	i, err := n.Int64()
	if err != nil || i > math.MaxInt32 || i < math.MinInt32 {
		v.fail(name, CodeTypeMismatch, raw, "%s must be a whole number from 0 to %d", name, math.MaxInt32)
		return 0
	}
	if i < 0 {
		v.fail(name, CodeMin, raw, "%s must not be negative", name)
		return 0
	}
	return int(i)
}

// sortFieldErrors puts field errors in a stable order: the order fields
// were checked, then unknown properties by name.
func (v *validator) sortFieldErrors() {
	known, unknown := v.errs[:0:0], []FieldError{}
	for _, e := range v.errs {
		if e.Code == CodeNotAllowed {
			unknown = append(unknown, e)
		} else {
			known = append(known, e)
		}
	}
	sort.Slice(unknown, func(i, j int) bool { return unknown[i].Field < unknown[j].Field })
	v.errs = append(known, unknown...)
}
