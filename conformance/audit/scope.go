package audit

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"eventsvc/conformance/repro"
)

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
	spans   []span         // when each exchange of log was sent and read
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
	// contract is set once its exchanges are checked against the OpenAPI
	// document (CheckContract).
	contract bool
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

// Fork begins a sequence in a world of its own, forked from that of s:
// it knows the tokens the target issued, the address of its list and
// its clock as s's world knows them now, and nothing of the events
// written there, nor learns what other scopes write meanwhile. What it
// finds of a sequence is the sequence's own doing, which a replay of the
// sequence alone shows again: the sequences of one exploration, each
// shrunk by replaying it. Forks share their world's budget of links to
// follow, and follow each link once among them.
func (s *Scope) Fork(p Place) *Scope {
	parent := s.a.world(s.worldNow())
	s.a.mu.Lock()
	s.a.fresh++
	n := s.a.fresh
	s.a.mu.Unlock()
	t := s.a.Scope(s.base, p)
	t.worldKey = fmt.Sprintf("%s#fork%d", t.base, n)
	s.mu.Lock()
	t.contract = s.contract
	s.mu.Unlock()
	t.a.world(t.worldNow()).inherit(parent)
	return t
}

// Trial is a Fork whose exchanges the audit learns from and checks,
// returning the findings to Observe's caller, but neither keeps nor
// counts nor follows the links of: a replay of a failing sequence, which
// reports what it finds itself.
func (s *Scope) Trial(p Place) *Scope {
	t := s.Fork(p)
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
// one. runLogins says whether the server holds the run's client and
// accounts (Options.Logins) and no others of theirs, so that what it
// issues tokens for is judged by them.
func (s *Scope) Move(base string, runLogins bool) {
	s.a.mu.Lock()
	s.a.fresh++
	n := s.a.fresh
	s.a.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.base = strings.TrimRight(base, "/")
	s.worldKey = fmt.Sprintf("%s#%d", s.base, n)
	w := s.a.world(worldKey{base: s.base, key: s.worldKey})
	w.mu.Lock()
	w.logins = runLogins
	w.mu.Unlock()
}

// Advance tells the audit that the target's clock moved forward by d (a
// scenario that moves an in-process server's clock, or a control API's):
// the tokens it issued age by d.
func (s *Scope) Advance(d time.Duration) {
	s.a.world(s.worldNow()).advance(d)
}

// MadeUp tells the audit of credentials the run made up, which no
// target holds: a token no target issued (a caller who sends it holds no
// valid token), a username of no account, a wrong password or secret (a
// token request with one must be refused).
func (s *Scope) MadeUp(creds ...string) {
	s.a.world(s.worldNow()).madeUp(creds...)
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
		s.spans = append(s.spans, span{})
	}
	s.log[at], s.spans[at] = x.Exchange, span{x.Start, x.End}
	place, wk, contract := s.place, worldKey{base: s.base, key: s.worldKey}, s.contract
	s.mu.Unlock()
	w := s.a.world(wk)
	o := newObserved(w, x)
	if o.url == nil {
		return nil
	}
	o.contract = contract
	s.a.noteOffers(o)
	found := w.check(o)
	for _, f := range found {
		s.own(f, place, at, w, o)
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

// own makes f, a finding about o, the at-th exchange of the scope made
// at place in w, the scope's: it stands while o's caller held what the
// audit took it for, and its message and transcript are masked.
func (s *Scope) own(f *Finding, place Place, at int, w *world, o *observed) {
	f.Place, f.at, f.scope = place, at, s
	f.stands = both(f.stands, func() bool { return w.holds(o.caller, o.x.End) })
	f.Message = s.a.o.Redactor.String(f.Message)
	f.Cause = s.a.o.Redactor.String(f.Cause)
	f.Transcript = s.a.o.Redactor.String(o.x.Transcript)
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

// TakeOne is TakeOwn for one finding: the first standing finding about
// the at-th exchange itself whose rule is among rules; nil when there is
// none. The others stay for whoever asks, or are reported apart.
func (s *Scope) TakeOne(at int, rules ...string) *Finding {
	for _, f := range s.OwnFindings(at) {
		if contains(rules, f.Rule) {
			s.Claim(f)
			return f
		}
	}
	return nil
}

// OwnFindings returns the standing findings about the at-th exchange
// itself that nobody took yet, without taking them.
func (s *Scope) OwnFindings(at int) []*Finding {
	a := s.a
	a.mu.Lock()
	defer a.mu.Unlock()
	var found []*Finding
	for _, f := range a.findings {
		if f.scope == s && f.at == at && len(f.Followed) == 0 && !f.claimed && f.standing() {
			found = append(found, f)
		}
	}
	return found
}

// LinkFindings are the scope's standing findings that a link its
// answers offered leads elsewhere than its relation says, of links to
// address whose relation is for method (update-event for PUT,
// create-new-event for POST, any other for GET): a request sent there,
// as the link said, met that fault on its way, whatever it was answered.
func (s *Scope) LinkFindings(method, address string) []*Finding {
	u, err := url.Parse(address)
	if err != nil {
		return nil
	}
	k := key(u)
	a := s.a
	a.mu.Lock()
	defer a.mu.Unlock()
	var found []*Finding
	for _, f := range a.findings {
		if f.scope == s && f.leadsTo == k && relationFor(f.rel, method) && f.standing() {
			found = append(found, f)
		}
	}
	return found
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

// OwnChecks returns how many checks of each rule the scope's exchanges
// themselves had so far, not counting those of the links followed from
// them: what the registry judged of what the scope's runner sent.
func (s *Scope) OwnChecks() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for _, byRule := range s.ownCheckedAt {
		for rule, n := range byRule {
			out[rule] += n
		}
	}
	return out
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

// relationFor reports whether a link of relation rel is followed with
// method: update-event with PUT, create-new-event with POST, every other
// with GET.
func relationFor(rel, method string) bool {
	switch rel {
	case "update-event":
		return method == http.MethodPut
	case "create-new-event":
		return method == http.MethodPost
	}
	return method == http.MethodGet
}
