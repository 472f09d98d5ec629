// Package audit is the registry of checks every exchange of a run passes
// through (registry.go), whatever the scenario or the sequence that made
// it was about: a token answer of any grant (TOK-5, TOK-7, TOK-15), a
// JSON answer of /api/** and every event it lists (SVC-2), what an answer
// offers its caller (SVC-3, API-3, API-4, API-8), every write against
// what was written and every later read against the last write (API-6,
// API-9), a write without a valid token (AUTH-3, AUTH-4), and every link
// of every answer, followed once a run and checked against its relation
// (API-10, API-5).
//
// Both runners feed it: the scenarios' steps every exchange they record,
// the explorer every exchange of its sequences. Each finding names its
// rule and the place (scenario and step, or sequence and action) whose
// exchange broke it. The checks judge by one model of what a conforming
// target holds (world), and accept every reading the specification and
// the RFCs allow: what the audit cannot tell (a token it did not see
// issued, an event it did not see written) it does not judge.
package audit

import (
	"net/http"
	"net/url"
	"sync"
	"time"

	"eventsvc/conformance/deadlink"
	"eventsvc/conformance/hal"
	"eventsvc/conformance/origin"
	"eventsvc/internal/redact"
)

// MaxFollowed is the most of an answer the audit reads when it follows a
// link (Limit): a page or an event is a few kilobytes, and the runners
// read and judge every answer up to the run's bound themselves.
const MaxFollowed int64 = 1 << 20

// Limit is the bound of the answers the audit reads when it follows a
// link, in a run whose answers are bounded at max (zero: the default of
// package cutoff): the smaller of max and MaxFollowed.
func Limit(max int64) int64 {
	if max <= 0 || max > MaxFollowed {
		return MaxFollowed
	}
	return max
}

// Options configure an Audit.
type Options struct {
	// ClientID is the run's client: only the tokens issued to it are
	// known to act for their account (a @local scenario's other clients
	// may be registered for other resources).
	ClientID string
	// ClientSecret and Logins (passwords by username) are the run's
	// credentials: with ClientID, the only ones a token may be issued
	// for, and those a well-formed grant with must get one (issuance.go),
	// in a world whose server holds them. Without them, issuance is not
	// judged.
	ClientSecret string
	Logins       map[string]string
	// RefreshLifetime is how long the target's refresh tokens work: one
	// older, less a minute, is not judged either way. Zero: the
	// specification's 3600 s (CLI-6).
	RefreshLifetime time.Duration
	// Ref takes the target for the reference server: the checks of its
	// choices where the specification leaves one open judge too (ref.go).
	Ref bool
	// Contract, when set, is the reference server's OpenAPI document,
	// which the exchanges of a scope that asks for it are checked
	// against (Scope.CheckContract, API-11).
	Contract Contract
	// Redactor masks the messages, causes and transcripts of findings.
	Redactor *redact.Redactor
	// Transport carries the requests that follow links: the run's
	// transport, bounded (package cutoff). Each world sends credentials to
	// its own origin only (package origin).
	Transport http.RoundTripper
	// Origins, when set, is told of every link the audit follows to another
	// origin than its world's, where it goes without credentials.
	Origins *origin.Log
	// DeadLinks, when set, is told of every link and Location that
	// leads outside the run's base URL, and which answer offered it
	// (deadlink.Log.Offered): a dead link names the link that led there.
	DeadLinks *deadlink.Log
	// Follow turns on following every link once a run (API-10, API-5).
	Follow bool
	// MaxFollows bounds the links followed in one world. Zero: 3000.
	MaxFollows int
	// Workers is how many links are followed at once. Zero: 4.
	Workers int
	// Now is the clock. Nil: time.Now.
	Now func() time.Time
}

// refreshLifetime is how long the target's refresh tokens work.
func (a *Audit) refreshLifetime() time.Duration {
	if a.o.RefreshLifetime > 0 {
		return a.o.RefreshLifetime
	}
	return refreshLifetime
}

// Audit is the checks of one run. It is safe for concurrent use.
type Audit struct {
	o Options

	mu       sync.Mutex
	worlds   map[string]*world
	fresh    int            // worlds of servers of their own so far
	checks   map[string]int // by rule
	findings []*Finding
	follow   *follower
	writing  inFlight // writes sent and not yet observed (Transport)
	grants   grantsSeen
}

// New returns the audit of a run.
func New(o Options) *Audit {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxFollows == 0 {
		o.MaxFollows = 3000
	}
	if o.Workers == 0 {
		o.Workers = 4
	}
	if o.Redactor == nil {
		o.Redactor = redact.New()
	}
	a := &Audit{o: o, worlds: map[string]*world{}, checks: map[string]int{}}
	if o.Follow {
		a.follow = newFollower(a, o.Workers)
	}
	return a
}

// noteOffers tells Options.DeadLinks of the links and the Location of o
// that lead outside the run's base URL.
func (a *Audit) noteOffers(o *observed) {
	dead := a.o.DeadLinks
	if dead == nil {
		return
	}
	from := o.x.Method + " " + o.url.EscapedPath()
	offer := func(rel, href string) {
		if u, ok := o.resolve(href); ok && !dead.Within(u) {
			dead.Offered(u, rel, from)
		}
	}
	if loc := o.x.RespHeader.Get("Location"); loc != "" {
		offer("Location", loc)
	}
	if o.doc == nil {
		return
	}
	for rel, href := range hal.Links(o.doc) {
		offer(rel, href)
	}
	for _, item := range hal.Items(o.doc) {
		offer("self", hal.Links(item)["self"])
	}
}

// Close waits for every link queued to be followed, and stops the
// workers that follow them.
func (a *Audit) Close() {
	if a.follow != nil {
		a.follow.close()
	}
	a.writing.clear() // every request of the run has ended
}

// Unclaimed returns the findings no step or action took, in the order
// they were found: the run reports each as a finding of the audit.
func (a *Audit) Unclaimed() []*Finding {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []*Finding
	for _, f := range a.findings {
		if !f.claimed && f.standing() {
			out = append(out, f)
		}
	}
	return out
}

// Checks returns how many answers the audit checked against each rule.
func (a *Audit) Checks() map[string]int {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[string]int, len(a.checks))
	for k, v := range a.checks {
		out[k] = v
	}
	return out
}

// NotFollowed returns how many links were left unfollowed because a
// world's budget (Options.MaxFollows) was spent.
func (a *Audit) NotFollowed() int {
	if a.follow == nil {
		return 0
	}
	return a.follow.skipped()
}

// record adds the checks made and the findings of the at-th exchange of
// s (own), or of a link followed from it.
func (a *Audit) record(s *Scope, at int, own bool, checks []string, found []*Finding) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.checkedAt[at] == nil {
		s.checkedAt[at] = map[string]int{}
	}
	if own && s.ownCheckedAt[at] == nil {
		s.ownCheckedAt[at] = map[string]int{}
	}
	for _, rule := range checks {
		a.checks[rule]++
		s.checked[rule]++
		s.checkedAt[at][rule]++
		if own {
			s.ownCheckedAt[at][rule]++
		}
	}
	a.findings = append(a.findings, found...)
}

// scopeChecks counts the checks of rule the scope had; a.mu is held.
func (a *Audit) scopeChecks(s *Scope, rule string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.checked[rule]
}

// world returns the world k names, made on first use.
func (a *Audit) world(k worldKey) *world {
	a.mu.Lock()
	defer a.mu.Unlock()
	name := k.key
	if name == "" {
		name = k.base
	}
	w, ok := a.worlds[name]
	if !ok {
		w = newWorld(a, k.base)
		a.worlds[name] = w
	}
	return w
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// stripFragment is an address without its fragment.
func stripFragment(u *url.URL) string {
	c := *u
	c.Fragment, c.RawFragment = "", ""
	return c.String()
}
