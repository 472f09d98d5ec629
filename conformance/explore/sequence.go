package explore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/cutoff"
	"eventsvc/conformance/deadlink"
	"eventsvc/conformance/repro"
)

// maxPages bounds a walk through the list.
const maxPages = 60

// sequence is one run of actions against the target, with its own model.
type sequence struct {
	r    *runner
	ctx  context.Context
	n    int  // its number in the run, from 1
	pass bool // a sequence of the catalogue pass (catalogue.go)
	rng  *rand.Rand
	m    model
	log  []repro.Exchange
	done []done // the actions it ran
	what string // what the variant being played changed (done.what)
	// members are the variants the combination being played held
	// (Action.Members).
	members []int
	checks  map[string]int // checks made, by rule
	found   *finding
	// foundAt is the action that found it, in done.
	foundAt int
	// lost is a request that got no answer: the sequence stopped.
	lost error
	// dead is the dead link of the target (package deadlink) an action
	// failed at: the sequence stopped, having checked nothing there.
	dead *deadlink.Error
	// scope is the audit's scope of the sequence (audited.go).
	scope *audit.Scope
	// lane is set for a sequence that sends one of requests sent at
	// once for another (sendAtOnce); answers are its exchanges read
	// whole, for the other's audit.
	lane    bool
	answers []laneAnswer
	// judged are the registry's findings about its exchanges (Observe).
	judged []*audit.Finding
}

// done is an action a sequence ran, and where its exchanges start in the
// sequence's log.
type done struct {
	action Action
	from   int
	// what says what a variant changed (KindVariant), for people.
	what string
}

func (r *runner) newSequence(ctx context.Context, n int, rng *rand.Rand) *sequence {
	return &sequence{r: r, ctx: ctx, n: n, rng: rng, m: newModel(r.pool), checks: map[string]int{}}
}

// play runs a, unless the sequence has stopped. It returns whether the
// sequence goes on.
func (s *sequence) play(a Action) bool {
	if s.found != nil || s.lost != nil || s.dead != nil {
		return false
	}
	from := len(s.log)
	if s.scope != nil {
		s.scope.At(a.String(), len(s.done)+1)
	}
	f, err := s.do(a)
	if f == nil && err == nil {
		f = s.registryFinding(from)
	}
	if from == len(s.log) && f == nil && err == nil {
		return true // nothing to do: an event the sequence does not have
	}
	if s.members != nil {
		a.Members = s.members
	}
	s.done = append(s.done, done{action: a, from: from, what: s.what})
	s.what, s.members = "", nil
	if link := s.deadLinkOf(f, err); link != nil {
		s.dead = &deadlink.Error{Link: link, Err: err}
		return false
	}
	var cut *cutoff.CutError
	switch {
	case errors.As(err, &cut):
		// An answer past the run's bounds is a finding of its own
		// kind: the last exchange logged.
		s.found, s.foundAt = &finding{cut: true, message: s.r.redactor.String(cut.Error()), log: len(s.log) - 1}, len(s.done)-1
	case err != nil:
		s.lost = err
	case f != nil:
		s.found, s.foundAt = f, len(s.done)-1
	}
	return s.found == nil && s.lost == nil
}

// deadLinkOf is the dead link of the target the exchange of finding f,
// or the last one sent when the action met the error err, was sent to,
// if any.
func (s *sequence) deadLinkOf(f *finding, err error) *deadlink.Link {
	at := -1
	switch {
	case f != nil && f.log >= 0:
		at = f.log
	case f != nil || err != nil:
		at = len(s.log) - 1
	}
	if at < 0 || at >= len(s.log) {
		return nil
	}
	return s.r.target.DeadLinks.DeadAt(s.log[at].URL)
}

// auth is the Authorization header of who, with the scheme spelt as
// given.
func (s *sequence) auth(who, scheme string) string {
	switch who {
	case AsUser, AsOther:
		return bearer(scheme, s.m.accounts[who].access)
	case AsInvalid:
		return bearer(scheme, s.r.madeUp)
	case AsRefresh:
		refresh := s.m.accounts[AsUser].refresh
		if refresh == "" {
			refresh = s.r.pool[AsUser].refresh
		}
		return bearer(scheme, refresh)
	case AsBasic:
		c := s.r.target.Credentials
		return basic(c.ClientID, c.ClientSecret, c.BasicAsIs)
	}
	return ""
}

// event is the sequence's i-th event, or nil.
func (s *sequence) event(i int) *event {
	if i < 0 || i >= len(s.m.events) {
		return nil
	}
	return s.m.events[i]
}

// get sends a GET as who and gives the answer the check every answer gets.
func (s *sequence) get(address, who, scheme string) (*answer, *finding, error) {
	a, err := s.send(request{method: http.MethodGet, address: address, auth: s.auth(who, scheme)})
	if err != nil {
		return nil, nil, err
	}
	if f := s.answered(a); f != nil {
		return a, f, nil
	}
	return a, nil, s.twins(address, who, scheme)
}

// twins reads address again as who, with the account's token sent the
// plain way, when who's was sent another way: its scheme spelt otherwise
// (the same token with "Bearer"), or from a refresh (the run's shared
// token, from a password grant, with the same scheme). What the target
// honours of the account sent the plain way is the registry's evidence
// of what it did not honour of the other (audit's honour.go): with the
// twin in the same action, every replay of the action carries it.
func (s *sequence) twins(address, who, scheme string) error {
	acct := s.m.accounts[who]
	if !holdsToken(who) || acct == nil {
		return nil
	}
	var auths []string
	if scheme != "" {
		auths = append(auths, bearer("", acct.access))
	}
	if acct.refreshed && acct.pooled != "" {
		auths = append(auths, bearer(scheme, acct.pooled))
	}
	for _, auth := range auths {
		if _, err := s.send(request{method: http.MethodGet, address: address, auth: auth, via: "the same read with the account's token sent the plain way"}); err != nil {
			return err
		}
	}
	return nil
}

// do runs one action: its requests, whose answers the registry judges.
func (s *sequence) do(a Action) (*finding, error) {
	switch a.Kind {
	case KindRoot:
		return s.root(a)
	case KindList:
		_, f, err := s.get(s.r.listAddress(a.Size), a.As, a.Scheme)
		return f, err // the registry judges the page
	case KindWalk:
		return s.walk(a)
	case KindRead:
		ev := s.event(a.Event)
		if ev == nil {
			return nil, nil
		}
		x, f, err := s.get(ev.address, a.As, a.Scheme)
		if err != nil || f != nil {
			return f, err
		}
		s.learnEvent(x, ev) // the registry judges the read
		return nil, nil
	case KindFollow:
		return s.follow(a)
	case KindCreate:
		return s.create(a)
	case KindUpdate:
		return s.update(a)
	case KindGrant:
		return s.grant(a.As)
	case KindRefresh:
		return s.refresh(a.As)
	case KindAccessAsRefr: // the registry judges it (TOK-14)
		x, err := s.tokenRequest("", "grant_type", "refresh_token", "token", s.m.accounts[a.As].access)
		if err != nil {
			return nil, err
		}
		return s.answered(x), nil
	case KindWrongLogin:
		return s.wrongLogin(a.Wrong)
	case KindTogether:
		return s.together(a.Parts)
	case KindVariant:
		return s.variant(a)
	case KindDocs: // the registry judges it (AUTH-5)
		_, f, err := s.get(s.r.base+"/docs/index.html", AsInvalid, "")
		return f, err
	}
	return nil, fmt.Errorf("unknown action %q", a.Kind)
}

// root reads the API root as the action's caller; the registry judges
// the answer (API-1).
func (s *sequence) root(a Action) (*finding, error) {
	_, f, err := s.get(s.r.root, a.As, a.Scheme)
	return f, err
}

// create posts an event body as the action's caller; the registry
// judges the answer (a caller with a valid token creates an event it
// manages, at an address and with an id of its own, API-6; any other is
// refused, AUTH-3, TOK-13, AUTH-1). An event made joins the sequence's.
func (s *sequence) create(a Action) (*finding, error) {
	if s.r.readOnly || !s.reserveEvent() {
		return nil, nil
	}
	body := withChanges(s.r.body, a.Changes)
	raw, _ := json.Marshal(body)
	x, err := s.send(request{method: http.MethodPost, address: s.r.create, auth: s.auth(a.As, a.Scheme), contentType: "application/json", body: raw})
	if err != nil {
		return nil, err
	}
	if f := s.answered(x); f != nil {
		return f, nil
	}
	if !holdsToken(a.As) || x.status < 200 || x.status > 299 {
		return nil, nil
	}
	address := x.header.Get("Location")
	if address == "" {
		address = x.links()["self"]
	}
	if address == "" {
		return nil, nil // the event cannot be found again
	}
	ev := &event{address: x.resolve(address), manager: a.As, fields: body}
	s.learnEvent(x, ev)
	s.m.events = append(s.m.events, ev)
	return nil, nil
}

// update puts the event's last body with the action's changes, as the
// action's caller, after a read of it, and reads it again when the
// update was refused; the registry judges the answers (its manager
// updates it, API-9; another user is refused with 403, AUTH-6; a caller
// without a valid token is refused, AUTH-3, TOK-13, AUTH-1; a refused
// update changes nothing).
func (s *sequence) update(a Action) (*finding, error) {
	ev := s.event(a.Event)
	if ev == nil || s.r.readOnly {
		return nil, nil
	}
	// The event reads back as last written before the update, so that
	// what reads back otherwise after a refused one is the refusal's.
	before, f, err := s.get(ev.address, AsAnonymous, "")
	if err != nil || f != nil {
		return f, err
	}
	s.learnEvent(before, ev)
	body := withChanges(ev.fields, a.Changes)
	raw, _ := json.Marshal(body)
	x, err := s.send(request{method: http.MethodPut, address: ev.address, auth: s.auth(a.As, a.Scheme), contentType: "application/json", body: raw})
	if err != nil {
		return nil, err
	}
	if f := s.answered(x); f != nil {
		return f, nil
	}
	if x.status >= 200 && x.status <= 299 {
		if manages(a.As, ev) {
			ev.fields = body
		}
		return nil, nil
	}
	_, f, err = s.get(ev.address, AsAnonymous, "")
	return f, err
}
