package explore

import (
	"eventsvc/conformance/mutate"
	"eventsvc/conformance/report"
)

// varied is every operator of the catalogue as the run used it: how many
// of its variants went out, or why none did (report.Varied).
func (r *runner) varied() []report.Varied {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []report.Varied
	for _, op := range mutate.Catalogue() {
		v := report.Varied{Operator: op.Name, Family: op.Family, Sent: r.sent[op.Name]}
		if v.Sent == 0 {
			v.Reason = r.unsent(op)
		}
		if op.Name == mutate.CredentialNearMissOp && v.Sent > 0 {
			for _, kind := range mutate.CredentialNearMissKinds() {
				if r.kindsBuilt[kind] && !r.kindsSent[kind] {
					v.NotSent = append(v.NotSent, kind)
				}
			}
			if len(v.NotSent) > 0 {
				v.NotSentReason, v.Variants = r.unsent(op), len(r.kindsBuilt)
			}
		}
		out = append(out, v)
	}
	return out
}

// noteNearMisses notes the near-misses of the credentials the run's
// credentials have (vs), and that a sequence tried to send the n-th.
func (r *runner) noteNearMisses(vs []mutate.Variant, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range vs {
		r.kindsBuilt[v.Kind] = true
	}
	if n < mutate.CredentialNearMissHead {
		r.headTried[n] = true
	}
}

// unsent says why the run sent no variant of op.
func (r *runner) unsent(op mutate.Operator) string {
	switch {
	case r.readOnly && (op.On == mutate.OnWrite || op.On == mutate.OnUpdate):
		return "read-only"
	case op.Ref && !r.ref:
		return "-ref only"
	case op.NearMisses && !r.failedLoginsLeft():
		return "the failed-login budget"
	case op.On == mutate.OnWrite && (!r.eventsLeft() || r.passEvents.Load() >= int64(r.o.MaxEvents)/4):
		return "the event budget"
	}
	return "the run's budget of actions and time"
}
