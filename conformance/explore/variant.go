package explore

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"eventsvc/conformance/mutate"
	"eventsvc/conformance/repro"
)

// Variants: an action that sends a request the sequence would send (a
// creation, an update, a password grant, a read of the list) varied by
// one operator of the mutator's catalogue (package mutate): its address,
// its method, where its credentials are, the token endpoint's inputs, its
// body, its page size. The registry judges the answer as it judges any
// exchange: its invariants hold whatever was sent. A variant that sends a
// near-miss of a credential is a failed login, within the run's budget of
// them; one that may create is an event, within the run's budget of them;
// a read-only run sends no write.

// variantBase names the request a KindVariant action varies.
func variantBase(a Action) string {
	op, _ := mutate.Find(a.Op)
	switch op.On {
	case mutate.OnWrite:
		return "a creation"
	case mutate.OnUpdate:
		return "an update of event #" + strconv.Itoa(a.Event+1)
	case mutate.OnGrant:
		return "a password grant"
	case mutate.OnRefresh:
		return "a refresh grant"
	}
	return "a read of the list"
}

// variantOps are the operators whose variants the sequence may send now.
func (s *sequence) variantOps() []mutate.Operator {
	r := s.r
	var ops []mutate.Operator
	for _, op := range mutate.Catalogue() {
		switch {
		case r.readOnly && (op.On == mutate.OnWrite || op.On == mutate.OnUpdate):
		case op.On == mutate.OnWrite && !r.eventsLeft():
		case op.On == mutate.OnUpdate && len(s.m.events) == 0:
		case op.NearMisses && !r.failedLoginsLeft():
		case op.Ref && !r.ref: // a deployment's logs would keep the password
		default:
			ops = append(ops, op)
		}
	}
	return ops
}

// drawVariant draws the run's next variant by one of ops, the operators
// the sequence may use now: the run goes through the catalogue breadth
// first, a family at a time in turn (the address, the method, the
// credentials, the token endpoint, the body, the paging), within each an
// operator at a time, the first variant of each operator, then the second,
// so that a run of any length meets every family, and every operator it
// has time for.
func (s *sequence) drawVariant(ops []mutate.Operator) Action {
	r := s.r
	usable := map[string]bool{}
	for _, op := range ops {
		usable[op.Name] = true
	}
	catalogue := mutate.Catalogue()
	r.mu.Lock()
	var op mutate.Operator
	n := 0
	for tries := 0; op.Name == "" && tries < len(mutate.Families); tries++ {
		family := mutate.Families[r.familyTurn%len(mutate.Families)]
		r.familyTurn++
		var all []mutate.Operator
		for _, o := range catalogue {
			if o.Family == family {
				all = append(all, o)
			}
		}
		for i := 0; i < len(all); i++ {
			k := r.drawnIn[family]
			r.drawnIn[family]++
			if cand := all[k%len(all)]; usable[cand.Name] {
				op, n = cand, k/len(all)
				break
			}
		}
	}
	r.mu.Unlock()
	if op.Name == "" {
		op = ops[s.rng.IntN(len(ops))]
	}
	a := Action{Kind: KindVariant, Op: op.Name, N: n}
	if op.Name == mutate.CredentialNearMissOp {
		a.N = r.nextNearMiss()
	}
	switch op.As {
	case mutate.WithoutToken:
		a.As = []string{AsAnonymous, AsInvalid, AsRefresh, AsBasic}[s.rng.IntN(4)]
	case mutate.WithToken:
		a.As = s.account()
	case mutate.NotManager:
		a.As = AsOther // the user manages the events they create, the other user theirs
	default:
		a.As = s.account()
		if op.On == mutate.OnList {
			a.As = s.caller()
		}
	}
	if op.Family == mutate.FamilyBody && op.On == mutate.OnWrite {
		s.combineDrawn(op, &a)
	}
	if op.On == mutate.OnUpdate {
		a.Event = s.rng.IntN(len(s.m.events))
		switch op.As {
		case mutate.NotManager:
			a.As = other(s.m.events[a.Event].manager)
		case mutate.WithToken:
			a.As = s.m.events[a.Event].manager // a token honoured elsewhere would update it
		}
	}
	return a
}

// combineDrawn makes a, the n-th drawn variant of a creation's body by
// op (n from 1: the catalogue pass sent the first alone), the (n-1)-th
// combination of op's variants (mutate.Combine): every field's (n-1)-th
// value at once, one creation for them all, as an update sends them in
// the pass; past the last combination, the variants one at a time again,
// from the second.
func (s *sequence) combineDrawn(op mutate.Operator, a *Action) {
	base, ok := s.variantBase(op, *a)
	if !ok || a.N == 0 {
		return // the pass's own first variant, drawn when no operator was due
	}
	switch n := len(mutate.Combine(base, op.Vary(base, s.r.mutateEnv(s, *a)))); {
	case a.N-1 < n:
		a.N, a.Combined = a.N-1, true
	default:
		a.N -= n
	}
}

// other is the account that is not who.
func other(who string) string {
	if who == AsOther {
		return AsUser
	}
	return AsOther
}

// variant sends the variant a names; the registry judges the answer.
func (s *sequence) variant(a Action) (*finding, error) {
	op, ok := mutate.Find(a.Op)
	if !ok || op.Ref && !s.r.ref {
		return nil, nil
	}
	base, ok := s.variantBase(op, a)
	if !ok {
		return nil, nil
	}
	vs := op.Vary(base, s.r.mutateEnv(s, a))
	if len(vs) == 0 {
		return nil, nil
	}
	v, members := vs[a.N%len(vs)], []int{a.N % len(vs)}
	if op.Name == mutate.CredentialNearMissOp {
		s.r.noteNearMisses(vs, a.N)
	}
	if a.Combined {
		cs := mutate.Combine(base, vs)
		switch {
		case len(cs) == 0 && a.N == 0:
			v, members = vs[0], []int{0} // variants that combine with none: the first alone
		case a.N >= len(cs):
			return nil, nil // no such combination: the variants need fewer
		default:
			v, members = cs[a.N].Variant, cs[a.N].Members
		}
	}
	if s.r.readOnly && !reads(v) {
		return nil, nil
	}
	if base, err := url.Parse(s.r.base); err != nil || !strings.EqualFold(base.Host, v.URL.Host) || !strings.EqualFold(base.Scheme, v.URL.Scheme) {
		// An address the target gave that leads elsewhere: a variant may
		// carry the token where origin.Guard does not look for one.
		return nil, nil
	}
	if v.NearMiss && (op.Name != mutate.CredentialNearMissOp && !s.r.failedLoginsLeftBeside(s.r.nearMissHeadLeft()) || !s.r.reserveFailedLogin()) {
		return nil, nil // the head of the credentials' near-misses goes first
	}
	if (op.On == mutate.OnWrite || v.Method == http.MethodPost && !strings.HasSuffix(v.URL.Path, "/oauth/token")) && !s.reserveEvent() {
		return nil, nil // a variant may create, taken or not
	}
	for _, nm := range v.Vars {
		s.r.nearMiss(nm)
		if s.scope != nil {
			s.scope.MadeUp(nm.Value) // no account or client holds it
		}
	}
	for _, d := range v.Derived {
		s.r.derive(d)
		if s.scope != nil {
			s.scope.MadeUp(d.Value) // a token nobody was issued
		}
	}
	s.what = s.r.redactor.String(v.What)
	if a.Combined {
		s.members = members
	}
	x, err := s.send(request{method: v.Method, address: v.URL.String(), header: v.Header, body: v.Body, via: "a variant: " + v.What})
	if err != nil {
		return nil, err
	}
	// Refused as a whole (a bound, a size, a token sent two ways: RFC
	// 6750 §3.1's invalid_request), a combination told nothing of its
	// members, which are sent apart and counted as each is; a 401 or 403
	// refused each of them.
	whole := a.Combined && len(members) > 1 && x.status >= 400 && x.status <= 499 && x.status != http.StatusUnauthorized && x.status != http.StatusForbidden
	if !whole {
		s.r.noteSent(op, v, len(members))
	}
	if f := s.answered(x); f != nil {
		return f, nil
	}
	if f, err := s.probeIdentity(op, x); f != nil || err != nil {
		return f, err
	}
	if whole {
		return s.apart(op, vs, members)
	}
	return nil, s.anonymousTwin(op, a, v, x)
}

// probeIdentity reads, with the access token a variant of a grant got,
// an event of each account, when the sequence made one for each: the registry
// judges whom the token acts for by what each read is offered (audit's
// identity.go), so that a token issued for an account the grant's form
// named beside its own (a username sent twice, a username beside a
// refresh token) shows.
func (s *sequence) probeIdentity(op mutate.Operator, x *answer) (*finding, error) {
	if op.On != mutate.OnGrant && op.On != mutate.OnRefresh {
		return nil, nil
	}
	access, _ := s.tokensOf(x)
	both, ok := s.m.oneOfEach()
	if access == "" || !ok {
		return nil, nil // both reads, or none: either alone tells the links' fault from the token's no better than a guess
	}
	for _, ev := range both {
		y, err := s.send(request{method: http.MethodGet, address: ev.address, auth: bearer("", access), via: "a read with the token the variant got"})
		if err != nil {
			return nil, err
		}
		if f := s.answered(y); f != nil {
			return f, nil
		}
	}
	return nil, nil
}

// apart sends alone each variant of a combination the target refused as
// a whole: a refusal of one of them told nothing of the others. The
// registry judges each answer. A variant of a creation is an event each,
// of the drawn sequences' half of the budget in a drawn sequence (of the
// whole budget when shrinking or replaying): those it has no event for
// go unsent, and uncounted.
func (s *sequence) apart(op mutate.Operator, vs []mutate.Variant, members []int) (*finding, error) {
	for _, m := range members {
		v := vs[m]
		if op.On == mutate.OnWrite && (s.rng != nil && !s.r.eventsLeft() || !s.reserveEvent()) {
			return nil, nil
		}
		x, err := s.send(request{method: v.Method, address: v.URL.String(), header: v.Header, body: v.Body, via: "a variant: " + v.What})
		if err != nil {
			return nil, err
		}
		s.r.noteSent(op, v, 1)
		if f := s.answered(x); f != nil {
			return f, nil
		}
	}
	return nil, nil
}

// noteSent counts n variants of op sent, v among them, whose answer
// tested them.
func (r *runner) noteSent(op mutate.Operator, v mutate.Variant, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent[op.Name] += n
	if v.Kind != "" {
		r.kindsSent[v.Kind] = true
	}
}

// anonymousTwin sends v again without its Authorization header when a
// caller without a valid token (a refresh token, the client's Basic
// credentials, a token made up) had it taken, as a write: whether the
// target takes it from anyone tells the registry whose fault it is, the
// check of those credentials' or the write's (AUTH-3), which the
// sequence then reports alone. A POST counts as an event it may create.
func (s *sequence) anonymousTwin(op mutate.Operator, a Action, v mutate.Variant, x *answer) error {
	if op.As != mutate.WithoutToken || a.As == AsAnonymous || x.status < 200 || x.status > 299 || reads(v) ||
		v.Method == http.MethodPost && !s.reserveEvent() { // a POST may create; an update does not
		return nil
	}
	h := v.Header.Clone()
	h.Del("Authorization")
	_, err := s.send(request{method: v.Method, address: v.URL.String(), header: h, body: v.Body, via: "a variant: " + v.What + ", sent again without credentials"})
	return err
}

// reads reports whether v changes nothing on a target that obeys the
// methods' semantics: a GET, HEAD or OPTIONS, or a token request POSTed.
func reads(v mutate.Variant) bool {
	switch v.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	return v.Method == http.MethodPost && strings.HasSuffix(v.URL.Path, "/oauth/token")
}

// variantBase is the request a varies, as its caller sends it; false
// when the sequence cannot send it now.
func (s *sequence) variantBase(op mutate.Operator, a Action) (mutate.Request, bool) {
	h := http.Header{}
	var req request
	switch op.On {
	case mutate.OnWrite:
		if s.r.readOnly {
			return mutate.Request{}, false
		}
		raw, _ := json.Marshal(s.r.body)
		req = request{method: http.MethodPost, address: s.r.create, auth: s.auth(a.As, ""), contentType: "application/json", body: raw}
	case mutate.OnUpdate:
		ev := s.event(a.Event)
		if ev == nil || s.r.readOnly {
			return mutate.Request{}, false
		}
		raw, _ := json.Marshal(ev.fields)
		req = request{method: http.MethodPut, address: ev.address, auth: s.auth(a.As, ""), contentType: "application/json", body: raw}
	case mutate.OnGrant:
		c := s.r.target.Credentials
		user, pass := c.Username, c.Password
		if a.As == AsOther {
			user, pass = c.OtherUsername, c.OtherPass
		}
		req = s.r.tokenRequest("", "grant_type", "password", "username", user, "password", pass)
	case mutate.OnRefresh:
		acct := s.m.accounts[a.As]
		if acct == nil || acct.refresh == "" {
			return mutate.Request{}, false // no refresh token of the sequence's own: none of another's
		}
		req = s.r.tokenRequest("", "grant_type", "refresh_token", "token", acct.refresh)
	default:
		req = request{method: http.MethodGet, address: s.r.listAddress(3), auth: s.auth(a.As, "")}
	}
	u, err := url.Parse(req.address)
	if err != nil {
		return mutate.Request{}, false
	}
	if req.auth != "" {
		h.Set("Authorization", req.auth)
	}
	if req.contentType != "" {
		h.Set("Content-Type", req.contentType)
	}
	return mutate.Request{Method: req.method, URL: u, Header: h, Body: req.body}, true
}

// mutateEnv is what the operators know of the run, for the variant a
// sent as who: who's token, the credentials of who's account with the
// variables that hold them, and values of the sequence's own events
// (shownOf).
func (r *runner) mutateEnv(s *sequence, a Action) mutate.Env {
	who := a.As
	c := r.target.Credentials
	vars := map[string]string{}
	for _, v := range c.Vars() {
		vars[v.Value] = v.Name
	}
	cred := func(value string) mutate.Var { return mutate.Var{Value: value, Name: vars[value]} }
	env := mutate.Env{
		Password: cred(c.Password), Username: cred(c.Username), ClientID: cred(c.ClientID), ClientSecret: cred(c.ClientSecret),
		Credentials:   []string{c.Password, c.Username, c.ClientID, c.ClientSecret, c.OtherPass, c.OtherUsername},
		OtherUsername: c.OtherUsername, Mark: r.mark, SizeParam: r.sizeParam,
		Basic: func(id, secret string) string { return basic(id, secret, c.BasicAsIs) },
	}
	if who == AsOther {
		env.Password, env.Username, env.OtherUsername = cred(c.OtherPass), cred(c.OtherUsername), c.Username
	}
	if acct := s.m.accounts[who]; acct != nil {
		env.Token, env.Refresh = acct.access, acct.refresh
	}
	env.OtherID, env.OtherManager = s.shownOf(a)
	return env
}

// shownOf are, as the target renders them, the id of an event of the
// sequence's other than the one a updates, and the manager of an event
// the other account than a's caller manages; nil when the sequence has
// none. They are of events the run created: a service that takes them
// from a body changes nothing of anyone else's.
func (s *sequence) shownOf(a Action) (id, manager any) {
	for i, ev := range s.m.events {
		if i != a.Event || a.Kind != KindVariant || !updates(a) {
			if v, ok := ev.shown["id"]; ok && id == nil {
				id = v
			}
		}
		if v, ok := ev.shown["manager"]; ok && manager == nil && ev.manager == other(a.As) {
			manager = v
		}
	}
	return id, manager
}

// updates reports whether a is a variant of an update.
func updates(a Action) bool {
	op, _ := mutate.Find(a.Op)
	return op.On == mutate.OnUpdate
}

// nextNearMiss is the variant of the run's next near-miss of a
// credential: each failed login of the run's small budget is another
// (nearMissIndex).
func (r *runner) nextNearMiss() int {
	return nearMissIndex(int(r.nearMissDrawn.Add(1)-1), r.o.Seed)
}

// nearMissIndex is the variant of the k-th near-miss of a credential a
// run of seed sends: the operator's head in its order (the likeliest,
// mutate.CredentialNearMissHead), then the others from a place the seed
// chooses, so that runs of other seeds send the usernames', the client
// ids' and the rest's in turn.
func nearMissIndex(k int, seed uint64) int {
	head, all := mutate.CredentialNearMissHead, mutate.CredentialNearMisses()
	if k < head || all <= head {
		return k
	}
	tail := all - head
	return head + (k-head+int(seed%uint64(tail)))%tail
}

// nearMiss teaches the run a near-miss of a credential that a variant
// sends: masked wherever the run writes, as a secret, and written in
// replay scripts as the expression of its variable.
func (r *runner) nearMiss(v mutate.Var) {
	r.redactor.Add(v.Value)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, known := range r.nearMisses {
		if known.Value == v.Value {
			return
		}
	}
	r.nearMisses = append(r.nearMisses, repro.Var{Value: v.Value, Name: v.Name})
}

// derive teaches the run a value a variant sends made from a token (a
// near-miss of it): masked wherever the run writes, as the token is, and
// written in replay scripts from the token's variable.
func (r *runner) derive(d mutate.Derived) {
	r.redactor.Add(d.Value)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.ContainsFunc(r.derived, func(known repro.Derived) bool { return known.Value == d.Value }) {
		r.derived = append(r.derived, repro.Derived{Value: d.Value, Of: d.Of, Written: d.Written})
	}
}

// scriptDerived are the values the variants sent made from tokens.
func (r *runner) scriptDerived() []repro.Derived {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.derived)
}

// scriptVars are the variables of the run's credentials, and the
// expressions of the near-misses its variants sent.
func (r *runner) scriptVars() []repro.Var {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append(r.target.Credentials.Vars(), r.nearMisses...)
}
