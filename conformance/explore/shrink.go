package explore

import (
	"context"
	"maps"
	"slices"
)

// Shrinking: a failing sequence is replayed with the actions it sent at
// once one after another, its combinations of variants split into them
// (mutate.Combine), with fewer actions, then with fewer actions
// sent at once, then with simpler data, and every change that still
// finds a fault of the same kind (the same rule, a server error, an
// answer cut) is kept. What is left is the shortest sequence found that
// shows the fault: the one reported. Actions sent at once that still
// fail one after another were no race, and are reported so.

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
		t.scope = r.sequenceScope(s.n, true)
		for _, a := range candidate {
			if creations(a) > 0 && !r.readOnly && r.created.Load() >= int64(r.o.MaxEvents) {
				trials = 0 // no events left to replay with: keep the best so far
				return false
			}
			if !t.play(a) {
				break
			}
		}
		if t.found == nil || !sameFault(t.found, s.found) {
			return false
		}
		// The actions after the one the fault showed at are kept: a
		// fault the registry sees while following links may show at
		// any action after the one that offered them, and the actions
		// after it may show it when it does not.
		best, actions = t, candidate
		return true
	}
	// First the actions the fault can depend on: the creations, the
	// tokens' and those about the event of the failing action.
	if slice := dependencies(actions); len(slice) < len(actions) {
		try(slice)
	}
	// Then the actions sent at once one after another: what still fails
	// so was no race, and a sequence without actions at once replays
	// alike, however loaded the target or the run's machine, so that
	// what is left out after this tells.
	together := func(i int) bool { return i < len(actions) && actions[i].Kind == KindTogether }
	for i := 0; i < len(actions); i++ {
		if together(i) {
			try(slices.Concat(actions[:i], serially(actions, i, actions[i].Parts), actions[i+1:]))
		}
	}
	// Combinations split into their variants, one after another: what
	// follows leaves out those that do not fail.
	for i := 0; i < len(actions); i++ {
		if a := actions[i]; a.Combined && len(a.Members) > 0 {
			try(slices.Concat(actions[:i], split(a), actions[i+1:]))
		}
	}
	// Fewer actions: chunks of halving size, then one by one.
	fewer := func() {
		for size := len(actions) / 2; size >= 1; size /= 2 {
			for i := 0; i+size <= len(actions); {
				candidate := without(actions, i, size)
				if len(candidate) == 0 || !try(candidate) {
					i += size
				}
			}
		}
	}
	fewer()
	// Fewer actions sent at once, in what was a race: parts left out may
	// leave one, sent alone, and the others fewer again.
	apart := false
	for i := 0; i < len(actions); i++ {
		for j := 0; together(i) && j < len(actions[i].Parts); {
			if try(withoutPart(actions, i, j)) {
				apart = apart || !together(i)
			} else {
				j++
			}
		}
	}
	if apart {
		fewer()
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

// without returns actions without the n from i, the events of the actions
// after them renumbered: an action about the sequence's k-th event is about
// the (k-1)-th when a creation before it is left out.
func without(actions []Action, i, n int) []Action {
	created := 0 // creations before i
	for _, a := range actions[:i] {
		created += creations(a)
	}
	gone := 0
	for _, a := range actions[i : i+n] {
		gone += creations(a)
	}
	out := slices.Clone(actions[:i])
	for _, a := range actions[i+n:] {
		out = append(out, renumber(a, created+gone, gone))
	}
	return out
}

// withoutPart returns actions without the j-th part of the KindTogether
// at i, the events of the actions after it renumbered; a KindTogether
// left with one part is that part.
func withoutPart(actions []Action, i, j int) []Action {
	t := actions[i]
	created := 0 // creations before the part
	for _, a := range actions[:i] {
		created += creations(a)
	}
	for _, p := range t.Parts[:j] {
		created += creations(p)
	}
	gone := creations(t.Parts[j])
	t.Parts = slices.Delete(slices.Clone(t.Parts), j, j+1)
	out := append(slices.Clone(actions[:i]), t)
	if len(t.Parts) == 1 {
		out = append(out[:i], serially(actions, i, t.Parts)...)
	}
	for _, a := range actions[i+1:] {
		out = append(out, renumber(a, created+gone, gone))
	}
	return out
}

// serially returns parts, the actions of the KindTogether at i, one
// after another, and after them what the KindTogether reads after
// sending them at once: the list, by each account that refreshed, and
// every event they created (by its creator) or updated (by anyone).
func serially(actions []Action, i int, parts []Action) []Action {
	created := 0
	for _, a := range actions[:i] {
		created += creations(a)
	}
	out := slices.Clone(parts)
	read := map[int]bool{}
	listed := map[string]bool{}
	for _, p := range parts {
		if p.Kind == KindRefresh && !listed[p.As] {
			listed[p.As] = true
			out = append(out, Action{Kind: KindList, As: p.As})
		}
	}
	for _, p := range parts {
		switch p.Kind {
		case KindCreate:
			out = append(out, Action{Kind: KindRead, As: p.As, Event: created})
			created++
		case KindUpdate:
			if !read[p.Event] {
				read[p.Event] = true
				out = append(out, Action{Kind: KindRead, As: AsAnonymous, Event: p.Event})
			}
		}
	}
	return out
}

// creations is how many events a creates.
func creations(a Action) int {
	n := 0
	if a.Kind == KindCreate {
		n++
	}
	for _, p := range a.Parts {
		n += creations(p)
	}
	return n
}

// renumber returns a about the event k-n when it is about an event k from
// from on: a creation before it was left out.
func renumber(a Action, from, n int) Action {
	if onEvent(a) && a.Event >= from {
		a.Event -= n
	}
	if len(a.Parts) > 0 {
		parts := make([]Action, len(a.Parts))
		for i, p := range a.Parts {
			parts[i] = renumber(p, from, n)
		}
		a.Parts = parts
	}
	return a
}

// onEvent reports whether a is about one of the sequence's events.
func onEvent(a Action) bool {
	return a.Kind == KindRead || a.Kind == KindUpdate || a.Kind == KindFollow && a.From == "event"
}

// dependencies are the actions of a sequence its last action can depend
// on: every creation (the sequence's events are numbered by them), every
// grant and refresh (the tokens), every action sent with others at once
// (which may create or refresh), and every action about the event of the
// last one, if it is about an event; and the last one.
func dependencies(actions []Action) []Action {
	last := actions[len(actions)-1]
	var out []Action
	for _, a := range actions[:len(actions)-1] {
		about := onEvent(a) && onEvent(last) && a.Event == last.Event
		if a.Kind == KindCreate || a.Kind == KindGrant || a.Kind == KindRefresh || a.Kind == KindTogether || about {
			out = append(out, a)
		}
	}
	return append(out, last)
}

// sameFault reports whether f is a fault of the same kind as g.
func sameFault(f, g *finding) bool {
	return f.serverError == g.serverError && f.cut == g.cut && f.rule == g.rule
}

// simplify returns simpler forms of a, simplest first.
func simplify(a Action) []Action {
	var out []Action
	for i, p := range a.Parts {
		if len(p.Changes) > 0 {
			b := a
			b.Parts = slices.Clone(a.Parts)
			b.Parts[i].Changes = nil
			out = append(out, b)
		}
	}
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

// split is a, a combination of variants that was sent, as its variants
// sent one after another.
func split(a Action) []Action {
	out := make([]Action, 0, len(a.Members))
	for _, m := range a.Members {
		out = append(out, Action{Kind: KindVariant, Op: a.Op, As: a.As, Scheme: a.Scheme, Event: a.Event, N: m})
	}
	return out
}
