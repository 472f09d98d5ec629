package explore

import (
	"slices"
	"sync"

	"eventsvc/conformance/mutate"
)

// The catalogue pass: an exploration begins with sequences that send the
// first variant of every operator of the mutator's catalogue the run may
// send (mutate.Catalogue), and every variant of the body's operators and
// of the token's places on an update, combined, a family at a time, so that every cell of the
// catalogue's matrix (mutate.Matrix) is sent in every run, whatever the
// seed and whatever the drawn sequences after them have time for. A
// sequence with variants of an update creates the event they update
// first, and one with variants of a refresh grant asks for a refresh
// token of its own. A sequence stops at its first finding, which is shrunk as any
// other; the variants it had not sent yet go on in the next one. The
// drawn sequences after the pass draw each operator's next variants, a
// creation's body's combined (combineDrawn).

// maxCombinations is how many combinations of one operator's variants
// the catalogue pass sends at most: as many as a field of the body has
// values (mutate.Combine), 16 in the catalogue of today.
const maxCombinations = 16

// planned is the catalogue pass's variants not sent yet, a family at a
// time, in the catalogue's order.
type planned struct {
	mu      sync.Mutex
	pending [][]Action
}

// take returns the next sequence of the pass, at most most variants of one
// family (with the creation an update needs first, and the grant a
// refresh needs), or nil when the pass is over.
func (p *planned) take(most int) []Action {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.pending) > 0 && len(p.pending[0]) == 0 {
		p.pending = p.pending[1:]
	}
	if len(p.pending) == 0 {
		return nil
	}
	n := min(most, len(p.pending[0]))
	variants := p.pending[0][:n]
	p.pending[0] = p.pending[0][n:]
	var out []Action
	needs := map[string]Action{
		mutate.OnUpdate:  {Kind: KindCreate, As: AsUser}, // the event it updates
		mutate.OnRefresh: {Kind: KindGrant, As: AsUser},  // a refresh token of the sequence's own
	}
	for _, on := range []string{mutate.OnUpdate, mutate.OnRefresh} {
		if slices.ContainsFunc(variants, func(a Action) bool { op, _ := mutate.Find(a.Op); return op.On == on }) {
			out = append(out, needs[on])
		}
	}
	if slices.ContainsFunc(variants, func(a Action) bool {
		op, _ := mutate.Find(a.Op)
		return op.On == mutate.OnGrant || op.On == mutate.OnRefresh
	}) {
		// An event of each account, which the tokens the variants get
		// read: whom each acts for (probeIdentity).
		out = append(out, Action{Kind: KindCreate, As: AsUser}, Action{Kind: KindCreate, As: AsOther})
	}
	return append(out, variants...)
}

// giveBack puts the variants among actions, those a sequence of the pass
// did not send, first in line again.
func (p *planned) giveBack(actions []Action) {
	var rest []Action
	for _, a := range actions {
		if a.Kind == KindVariant {
			rest = append(rest, a)
		}
	}
	if len(rest) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending = append([][]Action{rest}, p.pending...)
}

// plan makes the catalogue pass of the run: the first variant of every
// operator it may send (the others' reasons are told as the report's
// "varied"), a family at a time; and moves the drawing of variants past
// the first of each (drawVariant).
func (r *runner) plan() *planned {
	p := &planned{}
	withoutToken := []string{AsAnonymous, AsInvalid, AsRefresh, AsBasic}
	for _, family := range mutate.Families {
		var actions []Action
		ops := 0
		for _, op := range mutate.Catalogue() {
			if op.Family != family {
				continue
			}
			ops++
			if r.readOnly && (op.On == mutate.OnWrite || op.On == mutate.OnUpdate) || op.Ref && !r.ref {
				continue
			}
			a := Action{Kind: KindVariant, Op: op.Name, As: AsUser}
			switch {
			case op.As == mutate.WithoutToken:
				a.As = withoutToken[len(actions)%len(withoutToken)]
			case op.As == mutate.NotManager:
				a.As = AsOther // the event is the user's (take)
			}
			if op.Name == mutate.CredentialNearMissOp {
				// The head of the near-misses, the password's every
				// kind that the scenarios' wrong logins do not send, in
				// every run its budget of failed logins allows.
				for range min(mutate.CredentialNearMissHead, max(r.o.FailedLogins, 1)) {
					actions = append(actions, Action{Kind: KindVariant, Op: op.Name, As: a.As, N: r.nextNearMiss()})
				}
				continue
			}
			if (op.Family == mutate.FamilyBody || op.Way == mutate.ByPlace) && op.On == mutate.OnUpdate {
				// Every variant, combined: as many updates as a field
				// has values, the token in every place at once, no
				// event spent.
				for k := range maxCombinations {
					actions = append(actions, Action{Kind: KindVariant, Op: op.Name, As: a.As, N: k, Combined: true})
				}
				continue
			}
			actions = append(actions, a)
		}
		r.mu.Lock()
		r.drawnIn[family] = ops
		r.mu.Unlock()
		p.pending = append(p.pending, actions)
	}
	return p
}
