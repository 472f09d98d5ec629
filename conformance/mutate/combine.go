package mutate

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
)

// Combined is variants of one request merged into one: each sets other
// parts of it (fields of its JSON body, query parameters, headers,
// cookies), so that one invariant judges them all in one answer: what
// was written reads back as written; a token anywhere but
// "Authorization: Bearer" authenticates nothing (SVC-4). Members are
// their places among the variants merged.
type Combined struct {
	Variant
	Members []int
}

// Combine merges the variants of r that change only fields of its JSON
// body, query parameters, headers or cookies, or take its Authorization
// header away, first fit and in order, each into the first combination
// whose parts it does not touch: every odd value of a body at once, in
// as few requests as a field has values; the token in every cookie at
// once. A combination a target refuses as a whole, or whose answer
// breaks an invariant, is split into its members (the explorer sends
// them alone, and its shrinking leaves out those that do not fail).
func Combine(r Request, vs []Variant) []Combined {
	base, ok := exactBody(r)
	if !ok && len(r.Body) > 0 {
		return nil
	}
	var out []Combined
	var taken []map[string]bool
	for i, v := range vs {
		d, ok := deltaOf(r, base, v)
		if !ok {
			continue
		}
		g := slices.IndexFunc(taken, func(t map[string]bool) bool {
			return !slices.ContainsFunc(slices.Collect(maps.Keys(d.keys)), func(k string) bool { return t[k] })
		})
		if g < 0 {
			out, taken = append(out, Combined{Variant: Variant{Request: r.clone()}}), append(taken, map[string]bool{})
			g = len(out) - 1
		}
		d.apply(&out[g].Request)
		maps.Copy(taken[g], d.keys)
		out[g].Members = append(out[g].Members, i)
		out[g].What = strings.TrimPrefix(out[g].What+"; "+v.What, "; ")
	}
	return out
}

// delta is what a variant changes of the request it varies.
type delta struct {
	keys    map[string]bool // the parts it sets: "field:name", "query:name", "header:Name", "cookie:name"
	fields  map[string]any
	query   map[string][]string
	headers http.Header
	cookies []*http.Cookie
	removed []string // headers it takes away
}

// deltaOf is what v changes of r, whose JSON body is base; false when it
// changes anything else (its method, its path, its body's media type, a
// field or a header it leaves out but Authorization, a credential).
func deltaOf(r Request, base map[string]any, v Variant) (delta, bool) {
	d := delta{keys: map[string]bool{}, fields: map[string]any{}, query: map[string][]string{}, headers: http.Header{}}
	if v.Method != r.Method || v.URL.Path != r.URL.Path || len(v.Vars) > 0 || len(v.Derived) > 0 {
		return d, false
	}
	if !bytes.Equal(v.Body, r.Body) {
		fields, ok := exactBody(v.Request)
		if !ok || base == nil || !changedKeys(d.keys, "field:", d.fields, base, fields, reflect.DeepEqual) {
			return d, false
		}
	}
	if !changedKeys(d.keys, "query:", d.query, r.URL.Query(), v.URL.Query(), slices.Equal[[]string]) {
		return d, false
	}
	return d, d.headersOf(r, v)
}

// changedKeys puts into changed what now sets otherwise than was (same
// tells), and into keys its keys after prefix; false, and nothing put,
// when now leaves out a key of was.
func changedKeys[V any](keys map[string]bool, prefix string, changed, was, now map[string]V, same func(a, b V) bool) bool {
	for k := range was {
		if _, kept := now[k]; !kept {
			return false
		}
	}
	for k, val := range now {
		if !same(val, was[k]) {
			changed[k], keys[prefix+k] = val, true
		}
	}
	return true
}

// headersOf adds to d the headers and cookies v sets otherwise than r,
// and the Authorization header it takes away; false when it takes away
// another.
func (d *delta) headersOf(r Request, v Variant) bool {
	for k := range r.Header {
		if _, kept := v.Header[k]; !kept {
			if k != "Authorization" {
				return false
			}
			d.removed = append(d.removed, k)
		}
	}
	had := map[string]bool{}
	for _, c := range (&http.Request{Header: r.Header}).Cookies() {
		had[c.Name+"="+c.Value] = true
	}
	for k, vals := range v.Header {
		switch {
		case k == "Cookie":
			for _, c := range (&http.Request{Header: v.Header}).Cookies() {
				if !had[c.Name+"="+c.Value] {
					d.cookies, d.keys["cookie:"+c.Name] = append(d.cookies, c), true
				}
			}
		case !slices.Equal(vals, r.Header[k]):
			d.headers[k], d.keys["header:"+k] = vals, true
		}
	}
	return len(d.keys) > 0 || len(d.removed) > 0
}

// apply makes c, a combination, change what d changes.
func (d delta) apply(c *Request) {
	for _, k := range d.removed {
		c.Header.Del(k)
	}
	for k, vals := range d.headers {
		c.Header[k] = vals
	}
	for _, ck := range d.cookies {
		c.Header.Add("Cookie", ck.Name+"="+ck.Value)
	}
	if len(d.query) > 0 {
		q := c.URL.Query()
		for k, vals := range d.query {
			q[k] = vals
		}
		c.URL.RawQuery = q.Encode()
	}
	if len(d.fields) > 0 {
		fields, _ := exactBody(*c)
		maps.Copy(fields, d.fields)
		c.Body, _ = json.Marshal(fields)
	}
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
