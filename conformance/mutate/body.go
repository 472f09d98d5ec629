package mutate

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The body: fields the service owns written by the caller, numbers at and
// beyond the bounds of 32- and 64-bit integers and of doubles, markup,
// long and non-BMP text. What the service owns (an event's id, its
// manager, its links) is never taken from a caller's body, and every value
// a write accepted reads back equal, or the write is refused (spec API-6,
// API-9).

// ownedFields are fields of an event the service owns, with values a
// caller might write to them: an id far from any the run made, another
// account as the manager, links to elsewhere.
func ownedFields(env Env) map[string]any {
	owned := map[string]any{
		"id":        2147000123,
		"manager":   env.OtherUsername,
		"managerId": 1,
		"owner":     env.OtherUsername,
		"_links":    map[string]any{"self": map[string]any{"href": "/api/events/1"}, "update-event": map[string]any{"href": "/api/events/1"}},
	}
	if env.OtherID != nil {
		owned["id"] = env.OtherID
	}
	if env.OtherManager != nil {
		owned["manager"], owned["owner"] = env.OtherManager, env.OtherManager
		if m, ok := env.OtherManager.(map[string]any); ok && m["id"] != nil {
			owned["managerId"] = m["id"]
		}
	}
	return owned
}

// boundNumbers are the numbers at and beyond the bounds of integers of
// 32 and 64 bits, signed and not, and of the integers a double holds
// exactly, with fractions and a large exponent.
var boundNumbers = []json.Number{
	"2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295", "4294967296",
	"9007199254740991", "9007199254740993", "9223372036854775807", "9223372036854775808", "18446744073709551616",
	"0.5", "-1.5", "1e300", "-0",
}

// oddTexts are texts a store, a serializer or a template may change:
// markup, quotes, characters outside the Basic Multilingual Plane, a
// NUL-free control character, and a long text.
var oddTexts = []string{
	`<script>alert(1)</script>`,
	`"><img src=x onerror=alert(1)>`,
	`'; DROP TABLE events; --`,
	"\U0001D11E \U0001F600 \U00020B9F",
	"a\u0007b",
	strings.Repeat("long text ", 1000) + "end",
}

// columnLengths are the lengths of text a store commonly bounds a column
// at, and one past each.
var columnLengths = []int{255, 256, 1000, 1001, 4096, 4097, 65535, 65536}

// textOf is a text of n characters that keeps the run's mark where s,
// the text it replaces, had it: the run finds its events, and cleans
// them up, by it.
func textOf(n int, s, mark string) string {
	if mark == "" || !strings.Contains(s, mark) || len(mark) >= n {
		return strings.Repeat("x", n)
	}
	return strings.Repeat("x", n-len(mark)) + mark
}

var bodyOps = alsoOnUpdates([]Operator{
	{
		Name: "a field the service owns", Family: FamilyBody, Parts: []string{PartBodyField}, Way: ByMultiplicity, On: OnWrite, As: WithToken,
		Source: "OWASP API Security Top 10 2023, API3 (broken object property level authorization: mass assignment); OWASP WSTG-BUSL-09",
		Vary: func(r Request, env Env) []Variant {
			fields, ok := jsonBody(r)
			if !ok {
				return nil
			}
			owned := ownedFields(env)
			var out []Variant
			for _, k := range []string{"id", "manager", "owner", "managerId", "_links"} {
				if _, has := fields[k]; has || owned[k] == "" {
					continue
				}
				out = append(out, withField(r, fields, k, owned[k], fmt.Sprintf("the body with %q, which the service owns, set to %s", k, shortJSON(owned[k]))))
			}
			return out
		},
	},
	{
		Name: "a number at a bound", Family: FamilyBody, Parts: []string{PartBodyField}, Way: ByValue, On: OnWrite, As: WithToken,
		Source: "the bounds of 32- and 64-bit integers; RFC 8259 §6 (numbers beyond the exact integers of IEEE 754 doubles); boundary-value analysis",
		Vary: func(r Request, _ Env) []Variant {
			return perField(r, func(v any) []any {
				if _, isNumber := v.(float64); !isNumber {
					return nil
				}
				return each(boundNumbers, func(n json.Number) any { return n })
			})
		},
	},
	{
		Name: "a text at a common column length", Family: FamilyBody, Parts: []string{PartBodyField}, Way: ByLength, On: OnWrite, As: WithToken,
		Source: "the lengths stores commonly bound a text at: VARCHAR(255), 1000, 4096, MySQL's TEXT (65,535 bytes), each and one past it; boundary-value analysis",
		Vary: func(r Request, env Env) []Variant {
			return perTextField(r, func(s string) []any {
				return each(columnLengths, func(n int) any { return textOf(n, s, env.Mark) })
			})
		},
	},
	{
		Name: "a value of another type", Family: FamilyBody, Parts: []string{PartBodyField}, Way: ByType, On: OnWrite, As: WithToken,
		Source: "RFC 8259 §3 (a value is an object, an array, a number, a string, true, false or null); Jackson's default coercions (a text of digits read as a number, a fraction as an integer, a scalar as a text, null as a field's default); OWASP WSTG-INPV (type confusion)",
		Vary: func(r Request, env Env) []Variant {
			return perField(r, func(v any) []any {
				if s, isText := v.(string); isText && (looksLikeTime(s) || env.Mark != "" && strings.Contains(s, env.Mark)) {
					return nil // the run finds its events by the mark; the explorer's times stay valid
				}
				return otherTypes(v)
			})
		},
	},
	{
		Name: "an odd text", Family: FamilyBody, Parts: []string{PartBodyField}, Way: ByValue, On: OnWrite, As: WithToken,
		Source: "OWASP WSTG-INPV-01 and -05 (markup, injection); RFC 8259 §7 and §8.2 (characters outside the BMP as surrogate pairs)",
		Vary: func(r Request, env Env) []Variant {
			return perTextField(r, func(s string) []any {
				return each(oddTexts, func(t string) any {
					if env.Mark != "" && strings.Contains(s, env.Mark) {
						t += env.Mark // the run finds its events by their mark
					}
					return t
				})
			})
		},
	},
})

// otherTypes are values of the other JSON types than v's: null first,
// then the scalars a binder may read as v's type (a number's text, a
// fraction next to it, a text's number), then v in an array and in an
// object.
func otherTypes(v any) []any {
	var scalars []any
	switch v := v.(type) {
	case float64:
		scalars = []any{strconv.FormatFloat(v, 'f', -1, 64), v + 0.5, true}
	case string:
		scalars = []any{42, true}
	case bool:
		scalars = []any{strconv.FormatBool(v), 1}
	case nil:
		return []any{"null", 0, false}
	default:
		return []any{nil}
	}
	return slices.Concat([]any{nil}, scalars, []any{[]any{v}, map[string]any{"value": v}})
}

// jsonBody reads r's body as a JSON object.
func jsonBody(r Request) (map[string]any, bool) {
	var m map[string]any
	if json.Unmarshal(r.Body, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// perField is the variants of r's JSON body with each of its fields, in
// the order of their names, set to each value values gives for the
// field's value (none leaves the field alone).
func perField(r Request, values func(v any) []any) []Variant {
	fields, ok := jsonBody(r)
	if !ok {
		return nil
	}
	var out []Variant
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		for _, v := range values(fields[k]) {
			out = append(out, withField(r, fields, k, v, fmt.Sprintf("%q set to %s", k, shortJSON(v))))
		}
	}
	return out
}

// perTextField is perField for the fields whose value is a text that
// is not a date or a time: values gives the values for such a text.
func perTextField(r Request, values func(s string) []any) []Variant {
	return perField(r, func(v any) []any {
		s, isText := v.(string)
		if !isText || looksLikeTime(s) {
			return nil
		}
		return values(s)
	})
}

// withField is a variant of r whose JSON body is fields with k set to v.
func withField(r Request, fields map[string]any, k string, v any, what string) Variant {
	out := make(map[string]any, len(fields)+1)
	for key, val := range fields {
		out[key] = val
	}
	out[k] = v
	req := r.clone()
	req.Body, _ = json.Marshal(out)
	return Variant{Request: req, What: what}
}

// shortJSON is v as JSON, cut to 40 characters.
func shortJSON(v any) string {
	b, _ := json.Marshal(v)
	if r := []rune(string(b)); len(r) > 40 {
		return string(r[:32]) + fmt.Sprintf("…(%d characters)", len(r))
	}
	return string(b)
}

// looksLikeTime reports whether s reads as a date or a time, which the
// text operators leave to the explorer's own date-times.
func looksLikeTime(s string) bool {
	return len(s) >= 10 && s[4] == '-' && s[7] == '-'
}
