// Package journal keeps the reference server's request journal: the last
// requests and their answers, masked, for a client developer to see what
// their client sent and what it got.
package journal

import (
	"net/http"
	"sync"
	"time"

	"eventsvc/server/clock"
)

// MaxBody is how much of a request or answer body an entry keeps.
const MaxBody = 4 << 10

// Entry is one request and its answer. Headers and bodies are masked:
// credentials, passwords and tokens never appear.
type Entry struct {
	// ID counts the requests from 1.
	ID     int64     `json:"id"`
	Time   time.Time `json:"time"`
	Method string    `json:"method"`
	Path   string    `json:"path"`
	// Query is the query string, masked.
	Query string `json:"query,omitempty"`
	// Remote is the client's address.
	Remote   string  `json:"remote"`
	Request  Message `json:"request"`
	Response Message `json:"response"`
	// Status is the answer's status; 0 when the connection was dropped or
	// the client left.
	Status int `json:"status"`
	// Dropped is true when a fault closed the connection without an
	// answer.
	Dropped bool `json:"dropped,omitempty"`
	// ClientLeft is true when the client closed its connection while a
	// fault's latency held the request: it went no further and nothing
	// was answered.
	ClientLeft bool `json:"clientLeft,omitempty"`
	// Fault is the ID of the fault rule applied to the request, if any.
	Fault int `json:"fault,omitempty"`
	// LatencyMS is how long the server took, in milliseconds.
	LatencyMS float64 `json:"latencyMs"`
	// Curl is the request as a curl command, masked: a masked credential
	// stays "***", to be filled in by whoever runs it. Find fills it in
	// when it hands the entry out, not when the request is recorded.
	Curl string `json:"curl"`

	// grantType is the grant_type of a token request, as the token
	// endpoint reads it, for Filter.GrantType; it is taken from the
	// request, not from its recorded body, which may be cut before it.
	grantType string
}

// Message is the masked headers and body of a request or an answer.
type Message struct {
	Headers http.Header `json:"headers,omitempty"`
	// Body is the body as text, masked and cut at MaxBody.
	Body string `json:"body,omitempty"`
	// Truncated is true when Body was cut.
	Truncated bool `json:"truncated,omitempty"`
}

// Journal keeps the last entries, up to its capacity. It is safe for
// concurrent use.
type Journal struct {
	clock clock.Clock

	mu      sync.Mutex
	entries []Entry // a ring of cap entries
	next    int     // where the next entry goes
	full    bool
	count   int64
}

// New returns an empty Journal that keeps the last capacity entries (at
// least one) and stamps them with c's time.
func New(capacity int, c clock.Clock) *Journal {
	return &Journal{clock: c, entries: make([]Entry, max(capacity, 1))}
}

// Capacity returns how many entries the journal keeps.
func (j *Journal) Capacity() int { return len(j.entries) }

// Add records e, numbering it, and returns its id; the oldest entry goes
// when the journal is full.
func (j *Journal) Add(e Entry) int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.count++
	e.ID = j.count
	j.entries[j.next] = e
	j.next = (j.next + 1) % len(j.entries)
	j.full = j.full || j.next == 0
	return e.ID
}

// Last returns the last n entries, oldest first; n <= 0 returns them all.
func (j *Journal) Last(n int) []Entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	var all []Entry
	if j.full {
		all = append(all, j.entries[j.next:]...)
	}
	all = append(all, j.entries[:j.next]...)
	if n > 0 && n < len(all) {
		all = all[len(all)-n:]
	}
	return all
}

// Len returns how many entries the journal holds.
func (j *Journal) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.full {
		return len(j.entries)
	}
	return j.next
}

// Clear forgets every entry; numbering goes on.
func (j *Journal) Clear() {
	j.mu.Lock()
	defer j.mu.Unlock()
	clear(j.entries)
	j.next, j.full = 0, false
}
