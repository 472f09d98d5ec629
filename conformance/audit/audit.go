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
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"eventsvc/conformance/deadlink"
	"eventsvc/conformance/hal"
	"eventsvc/conformance/origin"
	"eventsvc/conformance/repro"
	"eventsvc/internal/redact"
)

// MaxFollowed is the most of an answer the audit reads when it follows a
// link (Limit): a page or an event is a few kilobytes, and the runners
// read and judge every answer up to the run's bound themselves.
const MaxFollowed int64 = 1 << 20

// Limit is the bound of the answers the audit reads when it follows a
// link, in a run whose answers are bounded at max (zero: the default of
// package bound): the smaller of max and MaxFollowed.
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
	// Accounts are the run's usernames, whose tokens the audit follows.
	Accounts []string
	// Redactor masks the messages and transcripts of findings.
	Redactor *redact.Redactor
	// Transport carries the requests that follow links: the run's
	// transport, bounded (package bound). Each world sends credentials to
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

// Place is where an exchange was made: a scenario's step, or a
// sequence's action.
type Place struct {
	// Name is the scenario's or the sequence's name.
	Name string
	// File and Line place the scenario ("listing.feature", 40) or the
	// sequence ("explore", 7).
	File string
	Line int
	// Step is the step's text with its keyword, or the action; StepLine
	// its line.
	Step     string
	StepLine int
}

// Scope is one scenario or sequence as the audit sees it: its place, and
// its exchanges so far, from which a finding's reproduction is made.
// A scope is safe for concurrent use.
type Scope struct {
	a        *Audit
	base     string // the world's address
	worldKey string // which server there, once the scope moved to one of its own

	mu      sync.Mutex
	place   Place
	log     []repro.Exchange
	checked map[string]int // the checks of its exchanges, by rule
	// checkedAt are the checks of each exchange and of the links followed
	// from it, by its number and rule.
	checkedAt map[int]map[string]int
	// ownCheckedAt are those of each exchange itself (TakeOwn).
	ownCheckedAt map[int]map[string]int
	// pending counts the links of the scope not yet followed; pendingAt
	// those from each of its exchanges, by number (guarded by mu).
	pending   sync.WaitGroup
	pendingAt map[int]*sync.WaitGroup
	// trial is set for a scope whose exchanges teach the audit what the
	// target holds but whose findings and checks are the caller's alone
	// (Trial): a failing sequence replayed as it is shrunk.
	trial bool
}

// Scope begins a scenario or a sequence against the target at base (the
// address under which /api and /oauth/token are served).
func (a *Audit) Scope(base string, p Place) *Scope {
	return &Scope{a: a, base: strings.TrimRight(base, "/"), place: p, checked: map[string]int{}, checkedAt: map[int]map[string]int{}, ownCheckedAt: map[int]map[string]int{}}
}

// Sibling begins another scenario or sequence in the world of s: the
// sequences of one exploration, against one server however it was
// started.
func (s *Scope) Sibling(p Place) *Scope {
	t := s.a.Scope(s.base, p)
	s.mu.Lock()
	t.base, t.worldKey = s.base, s.worldKey
	s.mu.Unlock()
	return t
}

// Trial is a Sibling whose exchanges the audit learns from and checks,
// returning the findings to Observe's caller, but neither keeps nor
// counts nor follows the links of: a replay of a failing sequence, which
// reports what it finds itself.
func (s *Scope) Trial(p Place) *Scope {
	t := s.Sibling(p)
	t.trial = true
	return t
}

// At says the step or action the scope is at now.
func (s *Scope) At(step string, line int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.place.Step, s.place.StepLine = step, line
}

// Move points the scope at another base: an in-process scenario that
// starts a server of its own. The server holds nothing another held,
// whatever its address (a port is used again): the scope's world is a new
// one.
func (s *Scope) Move(base string) {
	s.a.mu.Lock()
	s.a.fresh++
	n := s.a.fresh
	s.a.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.base = strings.TrimRight(base, "/")
	s.worldKey = fmt.Sprintf("%s#%d", s.base, n)
}

// Advance tells the audit that the target's clock moved forward by d (a
// scenario that moves an in-process server's clock, or a control API's):
// the tokens it issued age by d.
func (s *Scope) Advance(d time.Duration) {
	s.a.world(s.worldNow()).advance(d)
}

// MadeUp tells the audit of a token the run made up, which no target
// issued: a caller who sends it holds no valid token.
func (s *Scope) MadeUp(token string) {
	s.a.world(s.worldNow()).madeUp(token)
}

// worldNow is the scope's world: its base, and which server there.
func (s *Scope) worldNow() worldKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	return worldKey{base: s.base, key: s.worldKey}
}

// worldKey names a world: the address of its target, and which server
// there ("" for the one a deployment is).
type worldKey struct{ base, key string }

// Exchange is one request of the run and its answer, as the audit reads
// them, with when it was sent and when its answer was read.
type Exchange struct {
	repro.Exchange
	Start, End time.Time
}

// Observe checks x, the at-th exchange of the scope (as its runner
// numbers them, from 0), and returns what it breaks. It learns from x
// what the world holds (the tokens issued, the events written, the
// address of the list), and, when the audit follows links, queues those of
// x's answer. A request that got no answer is ignored.
func (s *Scope) Observe(x Exchange, at int) []*Finding {
	if x.Status != 0 { // a request without an answer the Transport counted in
		// A write stops counting as under way once the world knows what
		// it wrote, after the checks below: before them, a read's
		// finding weighed meanwhile knew of neither, and stood against a
		// correct target (a page that showed an update, judged against
		// the write before it).
		defer s.a.observedWrite(x.Method, x.URL)
	}
	if x.Status == 0 || at < 0 {
		return nil
	}
	s.mu.Lock()
	for len(s.log) <= at {
		s.log = append(s.log, repro.Exchange{})
	}
	s.log[at] = x.Exchange
	place, wk := s.place, worldKey{base: s.base, key: s.worldKey}
	s.mu.Unlock()
	w := s.a.world(wk)
	o := newObserved(w, x)
	if o.url == nil {
		return nil
	}
	s.a.noteOffers(o)
	found := w.check(o)
	for _, f := range found {
		f.Place, f.at, f.scope = place, at, s
		f.stands = both(f.stands, func() bool { return w.holds(o.caller, x.End) })
		f.Message = s.a.o.Redactor.String(f.Message)
		f.Transcript = s.a.o.Redactor.String(x.Transcript)
	}
	if s.trial {
		return found
	}
	s.a.record(s, at, true, o.checks, found)
	if s.a.follow != nil && o.followable() {
		s.a.follow.queue(s, w, o, at, place)
	}
	return found
}

// Wait waits for the links of the scope's exchanges to be followed.
func (s *Scope) Wait() { s.pending.Wait() }

// waitAt waits for the links from the at-th exchange of the scope to be
// followed, and those from the answers they led to, which the audit
// follows before any other meanwhile.
func (s *Scope) waitAt(at int) {
	s.mu.Lock()
	wg := s.pendingAt[at]
	s.mu.Unlock()
	if wg != nil {
		if s.a.follow != nil {
			defer s.a.follow.hurry(s, at)()
		}
		wg.Wait()
	}
}

// addPending counts one more link from the at-th exchange of the scope,
// and returns what to tell once it is followed.
func (s *Scope) addPending(at int) func() {
	s.mu.Lock()
	if s.pendingAt == nil {
		s.pendingAt = map[int]*sync.WaitGroup{}
	}
	wg := s.pendingAt[at]
	if wg == nil {
		wg = &sync.WaitGroup{}
		s.pendingAt[at] = wg
	}
	wg.Add(1)
	s.mu.Unlock()
	s.pending.Add(1)
	return func() {
		wg.Done()
		s.pending.Done()
	}
}

// Release waits for the links of the scope's exchanges to be followed,
// and closes the audit's idle connections to the scope's target: an
// in-process scenario's server, about to stop.
func (s *Scope) Release() {
	s.Wait()
	if s.a.follow != nil {
		s.a.follow.release(s.a.world(s.worldNow()))
	}
}

// Log is the scope's exchanges up to and including the at-th.
func (s *Scope) Log(at int) []repro.Exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	if at >= len(s.log) {
		at = len(s.log) - 1
	}
	var out []repro.Exchange
	for _, x := range s.log[:at+1] {
		if x.Method != "" { // not an exchange the scope was told of
			out = append(out, x)
		}
	}
	return out
}

// Finding is an answer that breaks a rule, as the audit tells it.
type Finding struct {
	// Rule is the rule broken.
	Rule string
	// Message says what was expected and what came, masked.
	Message string
	// Transcript is the exchange that broke it, masked.
	Transcript string
	// Place is where its exchange was made.
	Place Place
	// Followed is the chain of exchanges the audit sent itself to follow
	// links, the last of them the one that broke the rule; empty when
	// the exchange is the place's own.
	Followed []repro.Exchange

	scope   *Scope
	at      int // the place's exchange it came from, in the scope's log
	claimed bool
	// stands reports whether what the finding rests on still holds (a
	// token the audit took for valid when it was sent); nil: always.
	stands func() bool
}

// At is the number of the place's exchange the finding came from, as its
// runner numbered it (Observe).
func (f *Finding) At() int { return f.at }

// both is a test that holds when a (if any) and b hold.
func both(a, b func() bool) func() bool {
	if a == nil {
		return b
	}
	return func() bool { return a() && b() }
}

// standing reports whether f still stands.
func (f *Finding) standing() bool { return f.stands == nil || f.stands() }

// Log is the exchanges that show the finding again: the place's up to
// the one it came from, then those the audit sent to follow its links.
func (f *Finding) Log() []repro.Exchange {
	if f.scope == nil {
		return f.Followed
	}
	return append(f.scope.Log(f.at), f.Followed...)
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

// AtDeadLink reports whether the exchange the finding came from was at
// a dead link of dead (package deadlink): the run tells that link once,
// as API-10, and the finding says no more.
func (f *Finding) AtDeadLink(dead *deadlink.Log) bool {
	if dead == nil {
		return false
	}
	log := f.Log()
	if len(log) == 0 {
		return false
	}
	return dead.DeadAt(log[len(log)-1].URL) != nil
}

// Take returns the findings of the scope about rules (all rules when none
// is given), after its links were followed, and claims them: the step or
// action that takes them reports them, and the run does not report them
// again. checked is how many checks of those rules the scope's exchanges
// had.
func (s *Scope) Take(rules ...string) (found []*Finding, checked int) {
	s.Wait()
	a := s.a
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, f := range a.findings {
		if f.scope == s && !f.claimed && f.standing() && (len(rules) == 0 || contains(rules, f.Rule)) {
			f.claimed = true
			found = append(found, f)
		}
	}
	return found, s.checkedLocked(rules)
}

// Claim claims found, findings of Observe that its caller reports
// itself, without waiting for any link to be followed.
func (s *Scope) Claim(found ...*Finding) {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	for _, f := range found {
		f.claimed = true
	}
}

// TakeAt is Take for the findings about the at-th exchange of the scope,
// and the links followed from it; checked is how many checks of rules
// those had.
func (s *Scope) TakeAt(at int, rules ...string) (found []*Finding, checked int) {
	s.waitAt(at)
	return s.take(at, false, rules)
}

// TakeOwn is TakeAt for the findings about the at-th exchange itself, not
// about the links followed from it, which it does not wait for: those
// the run reports apart, unless a step takes them.
func (s *Scope) TakeOwn(at int, rules ...string) (found []*Finding, checked int) {
	return s.take(at, true, rules)
}

// take claims the standing findings about the at-th exchange that break
// one of rules (any, when none is given), with own those about it alone,
// and counts the checks of rules they had.
func (s *Scope) take(at int, own bool, rules []string) (found []*Finding, checked int) {
	a := s.a
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, f := range a.findings {
		if f.scope == s && f.at == at && (!own || len(f.Followed) == 0) && !f.claimed && f.standing() && (len(rules) == 0 || contains(rules, f.Rule)) {
			f.claimed = true
			found = append(found, f)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	counts := s.checkedAt
	if own {
		counts = s.ownCheckedAt
	}
	for _, r := range rules {
		checked += counts[at][r]
	}
	return found, checked
}

// Checked returns how many checks of rules the scope's exchanges had so
// far, after its links were followed.
func (s *Scope) Checked(rules ...string) int {
	s.Wait()
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	return s.checkedLocked(rules)
}

func (s *Scope) checkedLocked(rules []string) int {
	n := 0
	for _, r := range rules {
		n += s.a.scopeChecks(s, r)
	}
	return n
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

// Holders returns, for every bearer token the exchanges of the finding's
// log send, the account the audit saw it issued to: a reproduction asks
// for such a token again when its log does not.
func (f *Finding) Holders() map[string]string {
	out := map[string]string{}
	if f.scope == nil {
		return out
	}
	w := f.scope.a.world(f.scope.worldNow())
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, x := range f.Log() {
		scheme, cred, _ := strings.Cut(x.Header.Get("Authorization"), " ")
		if t, ok := w.tokens[strings.TrimSpace(cred)]; ok && strings.EqualFold(scheme, "Bearer") && !t.refresh {
			out[strings.TrimSpace(cred)] = t.account
		}
	}
	return out
}
