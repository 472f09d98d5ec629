package explore

import (
	"context"
	"maps"
	"slices"
)

// Shrinking: a failing sequence is replayed with fewer actions, then with
// simpler data, and every change that still finds a fault of the same
// kind (the same rule, or a server error) is kept. What is left is the
// shortest sequence found that shows the fault: the one reported.

// shrink returns the smallest sequence it finds that fails as s does,
// within Options.ShrinkTrials replays, or s itself.
func (r *runner) shrink(ctx context.Context, s *sequence) *sequence {
	best := s
	actions := make([]Action, 0, len(s.done))
	for _, d := range s.done[:s.foundAt+1] {
		actions = append(actions, d.action)
	}
	trials := r.o.ShrinkTrials
	try := func(candidate []Action) bool {
		if trials <= 0 || ctx.Err() != nil || r.watch.Throttled() != nil || r.watch.Unreachable() != nil {
			return false
		}
		trials--
		t := r.newSequence(ctx, s.n, nil)
		for _, a := range candidate {
			if !t.play(a) {
				break
			}
		}
		if t.found == nil || !sameFault(t.found, s.found) {
			return false
		}
		best, actions = t, candidate[:t.foundAt+1]
		return true
	}
	// Fewer actions: chunks of halving size, then one by one.
	for size := len(actions) / 2; size >= 1; size /= 2 {
		for i := 0; i+size <= len(actions); {
			candidate := slices.Concat(actions[:i], actions[i+size:])
			if len(candidate) == 0 || !try(candidate) {
				i += size
			}
		}
	}
	// Simpler data: no changes to the body, then fewer, a plain scheme,
	// the default page size.
	for i := 0; i < len(actions); i++ {
		for _, simpler := range simplify(actions[i]) {
			candidate := slices.Clone(actions)
			candidate[i] = simpler
			if try(candidate) {
				break
			}
		}
	}
	return best
}

// sameFault reports whether f is a fault of the same kind as g.
func sameFault(f, g *finding) bool {
	return f.serverError == g.serverError && f.rule == g.rule
}

// simplify returns simpler forms of a, simplest first.
func simplify(a Action) []Action {
	var out []Action
	if len(a.Changes) > 0 {
		b := a
		b.Changes = nil
		out = append(out, b)
		if len(a.Changes) > 1 {
			for _, k := range slices.Sorted(maps.Keys(a.Changes)) {
				c := a
				c.Changes = map[string]any{k: a.Changes[k]}
				out = append(out, c)
			}
		}
	}
	if a.Scheme != "" {
		b := a
		b.Scheme = ""
		out = append(out, b)
	}
	if a.Size != 0 {
		b := a
		b.Size = 0
		out = append(out, b)
	}
	return out
}
