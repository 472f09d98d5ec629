package mutate

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// Combined is variants of one request merged into one: each sets other
// fields of its JSON body, so that one invariant (what was written reads
// back as written) judges them all in one answer. Members are their
// places among the variants merged.
type Combined struct {
	Variant
	Members []int
}

// Combine merges the variants of r that change nothing but fields of
// its JSON body, first fit and in order, each into the first combination
// whose fields it does not touch: every odd value of a body at once, in
// as few requests as a field has values. A combination a target refuses
// as a whole, or whose answer breaks an invariant, is split into its
// members (the explorer sends them alone, and its shrinking leaves out
// those that do not fail).
func Combine(r Request, vs []Variant) []Combined {
	base, ok := exactBody(r)
	if !ok {
		return nil
	}
	var out []Combined
	var taken []map[string]bool
	for i, v := range vs {
		changed, ok := changedFields(r, base, v)
		if !ok {
			continue
		}
		g := slices.IndexFunc(taken, func(t map[string]bool) bool {
			return !slices.ContainsFunc(slices.Collect(maps.Keys(changed)), func(k string) bool { return t[k] })
		})
		if g < 0 {
			c := Combined{Variant: Variant{Request: r.clone()}}
			c.Body, _ = json.Marshal(base)
			out, taken = append(out, c), append(taken, map[string]bool{})
			g = len(out) - 1
		}
		fields, _ := exactBody(out[g].Request)
		for k, val := range changed {
			fields[k] = val
			taken[g][k] = true
		}
		out[g].Body, _ = json.Marshal(fields)
		out[g].Members = append(out[g].Members, i)
		out[g].What = strings.TrimPrefix(out[g].What+"; "+v.What, "; ")
	}
	return out
}

// changedFields are the fields v sets otherwise than r's body does;
// false when v changes anything else (its method, address, headers, or
// a field it leaves out).
func changedFields(r Request, base map[string]any, v Variant) (map[string]any, bool) {
	if v.Method != r.Method || v.URL.String() != r.URL.String() || !reflect.DeepEqual(v.Header, r.Header) || len(v.Vars) > 0 || len(v.Derived) > 0 {
		return nil, false
	}
	fields, ok := exactBody(v.Request)
	if !ok {
		return nil, false
	}
	changed := map[string]any{}
	for k := range base {
		if _, kept := fields[k]; !kept {
			return nil, false
		}
	}
	for k, val := range fields {
		if !reflect.DeepEqual(val, base[k]) {
			changed[k] = val
		}
	}
	return changed, len(changed) > 0
}

// exactBody is r's JSON body, its numbers as they are written: a number
// at a bound read into a float64 would be written back otherwise.
func exactBody(r Request) (map[string]any, bool) {
	d := json.NewDecoder(bytes.NewReader(r.Body))
	d.UseNumber()
	var m map[string]any
	if d.Decode(&m) != nil || m == nil {
		return nil, false
	}
	return m, true
}
