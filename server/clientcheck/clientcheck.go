// Package clientcheck judges the clients of the reference server against
// the client's side of the specification, while the server serves them:
// that a client reads addresses from the links it was offered rather than
// building them (spec API-1), writes only where a link offered it the
// write (API-4, API-8, AUTH-6), authenticates at the token endpoint with
// HTTP Basic and a form-encoded body (TOK-1, TOK-2), and sends its access
// token in `Authorization: Bearer` alone, never its refresh token
// (SVC-4, TOK-13).
//
// The server's middleware reads each exchange into an Exchange and hands
// it to Checker.Check, which judges the request against what the server
// had offered before it, then keeps what the answer offers. A mistake
// that no rule of the specification or of the RFCs forbids a client (such
// as sending a refused token again) is no finding.
package clientcheck

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"eventsvc/server/clock"
)

// MaxFindings bounds the findings a Checker keeps, as the journal's
// capacity bounds its entries; past it the oldest goes.
const MaxFindings = 500

// MaxExchanges bounds the exchanges a finding shows; Count goes on.
const MaxExchanges = 5

// Caller is who sent a request: the client and the user of its valid
// access token; at the token endpoint, the client and the user the request
// names (its Basic credentials' client, its client_id, its username),
// whether or not they authenticated. Both empty: anonymous.
type Caller struct {
	ClientID string `json:"clientId,omitempty"`
	User     string `json:"user,omitempty"`
}

// Masked stands in an Exchange's query for the value of a parameter that
// held a token; such a parameter is no part of the address.
const Masked = "***"

// MaxText bounds each text of an Exchange a finding keeps (Cut).
const MaxText = 256

// Exchange is one request and its answer, as the server's middleware read
// them. Path, Query, Caller and ContentType are what the client sent, cut
// at MaxText; Query's live tokens are masked, and a finding shows the
// values of the parameters the API defines alone (shownQuery). Body is
// the answer's, read only for its links.
type Exchange struct {
	// Method and Path are the request's; Query its decoded query, the
	// value of a parameter that held a live token masked (Masked).
	Method, Path string
	Query        url.Values
	// Caller is who sent it (Caller).
	Caller Caller
	// Status is the answer's status; Journal the id of the journal's
	// entry of the exchange, 0 without a journal.
	Status  int
	Journal int64

	// Basic says the request carried `Authorization: Basic`;
	// ContentType is its body's media type; BodySecret says its body
	// held a client_secret.
	Basic       bool
	ContentType string
	BodySecret  bool
	// Misplaced are the places other than `Authorization: Bearer` that
	// held a live access token, such as `the cookie "jwt"`.
	Misplaced []string
	// RefreshBearer says `Authorization: Bearer` held a live refresh
	// token.
	RefreshBearer bool

	// Location is the answer's Location header; Body its body, when it is
	// JSON; Prefix the path under which its links put the API ("" when
	// they put it at the root: a public URL's or a proxy's prefix).
	Location string
	Body     []byte
	Prefix   string
}

// Cut is s as an Exchange keeps it: valid UTF-8, at most MaxText bytes,
// and a copy of its own, so that a text read from a request's buffers
// (which Fiber reuses for the requests after it) stays as it was.
func Cut(s string) string {
	s = strings.ToValidUTF8(s, "?")
	if len(s) <= MaxText {
		return strings.Clone(s)
	}
	cut := MaxText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Shown is an exchange as a finding shows it.
type Shown struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	// Query is the request's query, masked (shownQuery).
	Query  string `json:"query,omitempty"`
	Status int    `json:"status"`
	// Journal is the id of the journal's entry, while the journal holds
	// it: GET /journal?since=Journal-1 shows it whole.
	Journal int64     `json:"journal,omitempty"`
	Time    time.Time `json:"time"`
}

// Finding is a rule of the specification that a client's requests broke,
// for one caller and one shape of request: how many exchanges showed it,
// and the first MaxExchanges of them.
type Finding struct {
	// ID counts the findings from 1; a filter's SinceID picks those after
	// one.
	ID   int64  `json:"id"`
	Rule string `json:"rule"`
	// Message says in a sentence what the client did and what it must do.
	Message string `json:"message"`
	Caller
	Count     int       `json:"count"`
	Exchanges []Shown   `json:"exchanges"`
	First     time.Time `json:"first"`
	Last      time.Time `json:"last"`

	key string
}

// Filter picks findings; its zero value picks them all.
type Filter struct {
	// Rule, when set, is the finding's rule, such as "API-1".
	Rule string
	// SinceID picks the findings after this id; Since those an exchange
	// showed at this time or later.
	SinceID int64
	Since   time.Time
}

// Checker keeps the findings of every client of one server, and what the
// server offered. It is safe for concurrent use.
type Checker struct {
	clock clock.Clock

	mu       sync.Mutex
	offers   offers
	findings []*Finding // oldest first, at most MaxFindings
	byKey    map[string]*Finding
	count    int64
}

// New returns a Checker that stamps findings with c's time.
func New(c clock.Clock) *Checker {
	return &Checker{clock: c, offers: newOffers(), byKey: map[string]*Finding{}}
}

// Check judges x against what the server offered before it, and keeps
// what its answer offers. It returns the findings x started, for the
// server to log each once; x adds to the others.
func (ch *Checker) Check(x Exchange) (started []Finding) {
	links := readLinks(x.Body)
	ch.mu.Lock()
	defer ch.mu.Unlock()
	now := ch.clock.Now()
	for _, v := range judge(x, &ch.offers) {
		if f, isNew := ch.add(v, x, now); isNew {
			started = append(started, *f)
		}
	}
	ch.offers.record(x, links)
	return started
}

// add counts x as one more exchange that shows v, and says whether it
// started the finding.
func (ch *Checker) add(v verdict, x Exchange, now time.Time) (*Finding, bool) {
	key := v.rule + "\x00" + x.Caller.ClientID + "\x00" + x.Caller.User + "\x00" + v.shape
	f, ok := ch.byKey[key]
	if !ok {
		ch.count++
		f = &Finding{ID: ch.count, Rule: v.rule, Message: v.message.String(), Caller: x.Caller, First: now, key: key}
		if len(ch.findings) == MaxFindings {
			delete(ch.byKey, ch.findings[0].key)
			ch.findings = slices.Delete(ch.findings, 0, 1)
		}
		ch.findings = append(ch.findings, f)
		ch.byKey[key] = f
	}
	f.Count++
	f.Last = now
	if len(f.Exchanges) < MaxExchanges {
		f.Exchanges = append(f.Exchanges, Shown{Method: x.Method, Path: x.Path, Query: shownQuery(x.Query), Status: x.Status, Journal: x.Journal, Time: now})
	}
	return f, !ok
}

// Findings returns copies of the findings f picks, oldest first.
func (ch *Checker) Findings(f Filter) []Finding {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	out := []Finding{}
	for _, x := range ch.findings {
		if (f.Rule == "" || x.Rule == f.Rule) && x.ID > f.SinceID && !x.Last.Before(f.Since) {
			c := *x
			c.Exchanges = slices.Clone(x.Exchanges)
			out = append(out, c)
		}
	}
	return out
}

// Clear forgets every finding and returns how many it forgot; what the
// server offered is kept, as a client keeps the links it read, and the
// numbering goes on.
func (ch *Checker) Clear() int {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	n := len(ch.findings)
	ch.findings, ch.byKey = nil, map[string]*Finding{}
	return n
}

// Len returns how many findings the Checker holds.
func (ch *Checker) Len() int {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return len(ch.findings)
}

// String is a finding in one line, as a test's failure shows it.
func (f Finding) String() string {
	who := f.ClientID
	if f.User != "" {
		who += " as " + f.User
	}
	if who == "" {
		who = "an anonymous caller"
	}
	first := ""
	if len(f.Exchanges) > 0 {
		x := f.Exchanges[0]
		first = fmt.Sprintf("; first %s %s → %d", x.Method, x.Path, x.Status)
		if x.Query != "" {
			first = fmt.Sprintf("; first %s %s?%s → %d", x.Method, x.Path, x.Query, x.Status)
		}
	}
	return fmt.Sprintf("%s (%s, %d times%s): %s", f.Rule, who, f.Count, first, f.Message)
}

// shownParams are the query parameters whose values a finding shows:
// those the API defines, which carry no secret. Any other value is
// masked, for a client may put a token or a password anywhere.
var shownParams = map[string]bool{"page": true, "size": true, "sort": true, "grant_type": true, "client_id": true, "username": true, "scope": true}

// shownQuery is q as a finding shows it, written only for the exchanges
// a finding keeps: the values of shownParams, cut,
// and every other value masked.
func shownQuery(q url.Values) string {
	if len(q) == 0 {
		return ""
	}
	shown := url.Values{}
	for name, values := range q {
		name = Cut(name)
		for _, v := range values {
			if !shownParams[name] {
				v = Masked
			}
			shown.Add(name, Cut(v))
		}
	}
	return Cut(shown.Encode())
}
