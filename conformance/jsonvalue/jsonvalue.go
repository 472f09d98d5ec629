// Package jsonvalue compares and describes the JSON values of the API's
// answers as a reader of JSON takes them: what was written reads back as
// the same text, the same number, the same instant.
package jsonvalue

import (
	"encoding/json"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Same reports whether got, read back, is sent as a reader of JSON takes
// it: the same text; an empty text as null; the same instant for
// date-times written with or without an offset; the same number, or its
// decimal text.
func Same(sent, got any) bool {
	sent, ok := plain(sent)
	if !ok {
		return false
	}
	switch v := sent.(type) {
	case string:
		g, ok := got.(string)
		switch {
		case v == "" && got == nil:
			return true
		case !ok:
			return sameScalar(v, got)
		case v == g:
			return true
		}
		a, aok := ParseTime(v)
		b, bok := ParseTime(g)
		return aok && bok && a.Equal(b)
	case float64:
		switch g := got.(type) {
		case float64:
			return v == g
		case string:
			return sameScalar(g, v)
		}
		return false
	case bool:
		return got == v || got == strconv.FormatBool(v)
	}
	a, _ := json.Marshal(sent)
	b, _ := json.Marshal(got)
	return string(a) == string(b)
}

// plain is v with a json.Number as the float64 a reader of JSON takes it
// for; false for a number it cannot read.
func plain(v any) (any, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return v, true
	}
	f, err := n.Float64()
	return f, err == nil
}

// sameScalar reports whether text is v written as text: a number in
// JSON's syntax for numbers ("12.5", "12.50", "1e+21") of exactly v's
// value, or a boolean's.
func sameScalar(text string, v any) bool {
	switch v := v.(type) {
	case float64:
		return jsonNumber.MatchString(text) && exactly(text, v)
	case bool:
		return text == strconv.FormatBool(v)
	}
	return false
}

// jsonNumber is JSON's syntax for a number (RFC 8259 §6), and
// numberText what a binder reads as one: a sign and leading zeros too.
var (
	jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
	numberText = regexp.MustCompile(`^[+-]?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
)

// exactly reports whether the decimal text is exactly v: no digit of it
// lost to a double.
func exactly(text string, v float64) bool {
	a, ok1 := new(big.Rat).SetString(strings.TrimPrefix(text, "+"))
	b, ok2 := new(big.Rat).SetString(strconv.FormatFloat(v, 'g', -1, 64))
	return ok1 && ok2 && a.Cmp(b) == 0
}

// Stored reports whether got is what a JSON binder makes of sent by
// default, as Jackson does: the same value (Same), a fraction as a whole
// number next to it (DeserializationFeature.ACCEPT_FLOAT_AS_INT, on by
// default, cuts it), 1 and 0 as true and false, null as the default of a
// field's type (0, false, the empty text). A service that stores such a value for what it was sent
// says so in the answer to the write (the specification leaves the
// fields' types open), and a read after it shows what it stored.
func Stored(sent, got any) bool {
	if Same(sent, got) {
		return true
	}
	sent, ok := plain(sent)
	if !ok {
		return false
	}
	switch v := sent.(type) {
	case nil:
		return got == "" || got == 0.0 || got == false
	case string:
		g, ok := got.(float64) // a number's text with a sign or leading zeros
		return ok && numberText.MatchString(v) && exactly(v, g)
	case float64:
		if b, ok := got.(bool); ok {
			return v == 1 && b || v == 0 && !b // an int read as a boolean
		}
		g, ok := got.(float64)
		return ok && v != math.Trunc(v) && g == math.Trunc(g) && math.Abs(v-g) < 1
	}
	return false
}

// timeLayouts are the ways a date-time may be written (RFC 3339, ISO 8601
// local).
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"}

// ParseTime reads a date-time; one without an offset is taken as UTC, so
// that "2026-11-25T10:00:00" and "2026-11-25T10:00:00Z" are the same.
func ParseTime(s string) (time.Time, bool) {
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// Describe is a JSON value as a message tells it, with its type: the
// string "600", the number 600, true, null, an object, an array.
func Describe(v any) string {
	b, _ := json.Marshal(v)
	switch v.(type) {
	case string:
		return "the string " + string(b)
	case float64, json.Number:
		return "the number " + string(b)
	case map[string]any:
		return "the object " + string(b)
	case []any:
		return "the array " + string(b)
	}
	return string(b)
}

// SameWords reports whether a and b hold the same set of space-separated
// words, in any order (RFC 6749 §3.3: a scope).
func SameWords(a, b string) bool {
	set := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(s) {
			m[w] = true
		}
		return m
	}
	sa, sb := set(a), set(b)
	if len(sa) != len(sb) {
		return false
	}
	for w := range sa {
		if !sb[w] {
			return false
		}
	}
	return true
}

// SameWritten reports whether got reads back what was sent: Same, but for
// a date-time written with a fraction of a second, which may read back to
// the second, cut or rounded (the specification sets no precision).
func SameWritten(sent, got any) bool {
	if Same(sent, got) {
		return true
	}
	s, ok1 := sent.(string)
	g, ok2 := got.(string)
	if !ok1 || !ok2 || !strings.Contains(s, ".") {
		return false
	}
	a, aok := ParseTime(s)
	b, bok := ParseTime(g)
	d := a.Sub(b)
	return aok && bok && d < time.Second && d > -time.Second
}
