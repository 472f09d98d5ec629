package journal

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"eventsvc/server/fault"
)

// Filter picks entries of the journal; its zero value picks them all.
type Filter struct {
	// Method, when set, is the request method.
	Method string
	// Path, when set, is a path pattern, as a fault rule's: "*" within a
	// segment, a final "/**" everything under the path.
	Path string
	// Status, when set, is the answer's status (404), or its class as
	// its first digit (4 for 4xx).
	Status int
	// StatusClass is true when Status is a class.
	StatusClass bool
	// Fault, when set, is a fault rule's id; AnyFault picks every entry a
	// fault was applied to, NoFault those none was.
	Fault int
	// GrantType, when set, picks token requests (POST /oauth/token) of
	// this grant type, such as "refresh_token".
	GrantType string
	// SinceID picks the entries after this id; Since those recorded at
	// this time or later.
	SinceID int64
	Since   time.Time
}

// Fault values of a Filter besides a rule's id.
const (
	AnyFault = -1
	NoFault  = -2
)

// FilterParams are the query parameters ParseFilter reads.
var FilterParams = []string{"method", "path", "status", "fault", "grantType", "since"}

// ParseFilter reads a Filter from query parameters: method, path (a
// pattern), status (404 or 4xx), fault (a rule's id, "any" or "none"),
// grantType (a token request's grant_type) and since (an entry's id, or an RFC 3339 time). Any other parameter but
// those of allowed is refused, as is a value it cannot read; the error
// says which and why.
func ParseFilter(q url.Values, allowed ...string) (Filter, error) {
	var f Filter
	known := append(append([]string{}, FilterParams...), allowed...)
	var unknown []string
	for name := range q {
		if !slices.Contains(known, name) {
			unknown = append(unknown, name)
		}
	}
	if unknown != nil {
		sort.Strings(unknown)
		return f, fmt.Errorf("unknown parameter %s: the journal is filtered by %s", strings.Join(quoteAll(unknown), ", "), strings.Join(known, ", "))
	}
	for name, values := range q {
		if len(values) > 1 {
			return f, fmt.Errorf("parameter %q is given %d times: give it once", name, len(values))
		}
	}
	if m := q.Get("method"); m != "" {
		f.Method = strings.ToUpper(m)
		if len(f.Method) > fault.MaxMethodLen || strings.Trim(f.Method, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
			return f, fmt.Errorf("method %q must be an HTTP method such as GET", m)
		}
	}
	if p := q.Get("path"); p != "" {
		if err := fault.CheckPattern(p); err != nil {
			return f, err
		}
		f.Path = p
	}
	if s := strings.ToLower(q.Get("status")); s != "" {
		n, err := strconv.Atoi(strings.TrimSuffix(s, "xx"))
		switch {
		case strings.HasSuffix(s, "xx") && err == nil && n >= 1 && n <= 5:
			f.Status, f.StatusClass = n, true
		case !strings.HasSuffix(s, "xx") && err == nil && n >= 100 && n <= 599:
			f.Status = n
		default:
			return f, fmt.Errorf("status %q must be a status such as 404, or a class such as 4xx", s)
		}
	}
	switch v := q.Get("fault"); v {
	case "":
	case "any":
		f.Fault = AnyFault
	case "none":
		f.Fault = NoFault
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return f, fmt.Errorf("fault %q must be a fault rule's id, any or none", v)
		}
		f.Fault = n
	}
	if v, ok := q["grantType"]; ok {
		if err := checkGrantType(v[0]); err != nil {
			return f, err
		}
		f.GrantType = v[0]
	}
	if v := q.Get("since"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			f.SinceID = n
		} else if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
			f.Since = t
		} else {
			return f, fmt.Errorf("since %q must be an entry's id, or a time such as 2026-11-24T10:00:00Z", v)
		}
	}
	return f, nil
}

// checkGrantType refuses a value no grant type has: a grant type is a
// name or an absolute URI, of visible ASCII characters (RFC 6749 §A.10,
// https://www.rfc-editor.org/rfc/rfc6749#appendix-A.10), at most as long
// as a fault rule's grantType. An empty value is refused too: it would
// pick every entry, as a misspelt filter must not.
func checkGrantType(v string) error {
	switch {
	case v == "":
		return fmt.Errorf("grantType is empty: give a grant type such as password or refresh_token, or leave the parameter out")
	case len(v) > fault.MaxPatternLen:
		return fmt.Errorf("grantType is %d bytes long; at most %d", len(v), fault.MaxPatternLen)
	}
	for i := 0; i < len(v); i++ {
		if v[i] <= ' ' || v[i] > '~' {
			return fmt.Errorf("grantType %q must be a grant type such as password or refresh_token", v)
		}
	}
	return nil
}

// Picks reports whether f picks e.
func (f Filter) Picks(e Entry) bool {
	switch {
	case f.Method != "" && e.Method != f.Method,
		f.Path != "" && !fault.MatchPath(f.Path, e.Path),
		f.StatusClass && e.Status/100 != f.Status,
		!f.StatusClass && f.Status != 0 && e.Status != f.Status,
		f.Fault == AnyFault && e.Fault == 0,
		f.Fault == NoFault && e.Fault != 0,
		f.Fault > 0 && e.Fault != f.Fault,
		f.GrantType != "" && e.grantType != f.GrantType,
		e.ID <= f.SinceID,
		!f.Since.IsZero() && e.Time.Before(f.Since):
		return false
	}
	return true
}

// Find returns the last n entries f picks, oldest first; n <= 0 returns
// them all.
func (j *Journal) Find(f Filter, n int) []Entry {
	var out []Entry
	for _, e := range j.Last(0) {
		if f.Picks(e) {
			out = append(out, e)
		}
	}
	if n > 0 && n < len(out) {
		out = out[len(out)-n:]
	}
	for i := range out {
		out[i].Curl = curl(out[i])
	}
	return out
}

// Count returns how many entries f picks.
func (j *Journal) Count(f Filter) int {
	n := 0
	for _, e := range j.Last(0) {
		if f.Picks(e) {
			n++
		}
	}
	return n
}

func quoteAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = strconv.Quote(s)
	}
	return out
}
