package eventsvctest

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"eventsvc/server/journal"
)

// JournalEntry is one request to the public API and its answer as the
// journal keeps them, masked: credentials, passwords and tokens are
// "***", in the headers, the bodies and the entry's Curl command alike.
type JournalEntry = journal.Entry

// Values of JournalFilter.Fault besides a fault rule's id.
const (
	// AnyFault picks the requests a fault rule was applied to.
	AnyFault = journal.AnyFault
	// NoFault picks the requests no fault rule was applied to.
	NoFault = journal.NoFault
)

// JournalFilter picks entries of the journal; its zero value picks them
// all. Every field that is set must match.
type JournalFilter struct {
	// Method is the request method, such as "GET".
	Method string
	// Path is a pattern of paths, as a Fault's: "*" within a segment
	// ("/api/events/*"), a final "/**" everything under the path.
	Path string
	// Status is the answer's status, "404", or its class, "4xx".
	Status string
	// Fault is the id of the fault rule applied to the request (AddFault
	// returns it), or AnyFault, or NoFault.
	Fault int
	// GrantType picks token requests (POST /oauth/token) whose form
	// body's grant_type is this, such as "refresh_token": to count the
	// refreshes a client made.
	GrantType string
	// SinceID picks the entries after the entry of this id; Since those
	// recorded at this time of the server's clock or later. SinceID, when
	// set, is used in place of Since.
	SinceID int64
	Since   time.Time
	// Limit, for Journal, keeps the last Limit entries picked; zero: all.
	// JournalCount ignores it.
	Limit int
}

// query is f as the control API's query parameters.
func (f JournalFilter) query(withLimit bool) string {
	q := url.Values{}
	set := func(name, value string) {
		if value != "" {
			q.Set(name, value)
		}
	}
	set("method", f.Method)
	set("path", f.Path)
	set("status", f.Status)
	set("grantType", f.GrantType)
	switch {
	case f.Fault == AnyFault:
		q.Set("fault", "any")
	case f.Fault == NoFault:
		q.Set("fault", "none")
	case f.Fault != 0:
		q.Set("fault", strconv.Itoa(f.Fault))
	}
	switch {
	case f.SinceID != 0:
		q.Set("since", strconv.FormatInt(f.SinceID, 10))
	case !f.Since.IsZero():
		q.Set("since", f.Since.Format(time.RFC3339Nano))
	}
	if withLimit && f.Limit != 0 {
		q.Set("limit", strconv.Itoa(f.Limit))
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// Journal returns the journal's entries that f picks (GET /journal),
// oldest first: the last requests to the public API, up to 500, and their
// answers, masked. A filter the control API cannot read fails tb.
func (s *Server) Journal(tb testing.TB, f JournalFilter) []JournalEntry {
	tb.Helper()
	return member[[]JournalEntry](tb, s, http.MethodGet, "/journal"+f.query(true), nil, "entries")
}

// JournalCount returns how many of the journal's entries f picks (GET
// /journal/count): what a test checks of what its client sent, such as
// how many times it asked for a list.
func (s *Server) JournalCount(tb testing.TB, f JournalFilter) int {
	tb.Helper()
	return member[int](tb, s, http.MethodGet, "/journal/count"+f.query(false), nil, "count")
}

// ClearJournal forgets every entry of the journal (DELETE /journal), so
// that a test counts from here, and returns how many there were. The ids
// of later entries go on from where they were.
func (s *Server) ClearJournal(tb testing.TB) int {
	tb.Helper()
	return member[int](tb, s, http.MethodDelete, "/journal", nil, "cleared")
}
