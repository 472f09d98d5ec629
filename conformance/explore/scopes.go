package explore

import (
	"fmt"
	"slices"
	"time"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/report"
)

// Every exchange of every sequence, the setup's and the shrinking's
// replays included, passes through the run's audit (package audit), which
// checks it against every rule that governs that kind of answer and
// follows its links once. The audit reports what it finds itself
// (report.Audited), at the end of the run, after the sequences: only then
// are the writes of sequences that ran beside one known, which a read may
// show. A finding a failed sequence blames already is not told again.
// The shrinking's replays teach the audit what they wrote, and neither
// report nor count what it finds of them: the sequence they shrink does.

// auditScopes begins the audit of the run: the setup's scope, whose world
// every sequence shares (a fresh one for a server the exploration
// started, which holds nothing another held at its address).
func (r *runner) auditScopes(a *audit.Audit, launched bool) {
	r.audit = a
	r.scope = a.Scope(r.base, audit.Place{Name: "the exploration's setup", File: File})
	if launched {
		r.scope.Move(r.base, true)
	}
	r.scope.MadeUp(r.madeUp, r.madeUpWrong("password"), r.madeUpWrong("secret"), r.madeUpUser())
}

// sequenceScope is the audit's scope of sequence n; a trial's (a replay
// while shrinking) keeps and counts nothing.
func (r *runner) sequenceScope(n int, trial bool) *audit.Scope {
	if r.scope == nil {
		return nil
	}
	p := audit.Place{Name: fmt.Sprintf("sequence %d", n), File: File, Line: n}
	if trial {
		return r.scope.Trial(p)
	}
	s := r.scope.Fork(p)
	r.mu.Lock()
	r.scopes = append(r.scopes, s)
	r.mu.Unlock()
	return s
}

// releaseAudit waits for the links of every sequence to be followed and
// closes the audit's connections to the target: a server the exploration
// started, about to stop.
func (r *runner) releaseAudit() {
	if r.scope == nil {
		return
	}
	r.mu.Lock()
	scopes := r.scopes
	r.mu.Unlock()
	for _, s := range scopes {
		s.Wait()
	}
	r.scope.Release()
}

// laneAnswer is an exchange a lane read whole, kept for the audit of the
// sequence that merges the lane, with its index in the lane's log.
type laneAnswer struct {
	x  audit.Exchange
	at int
}

// observe passes the at-th exchange of the sequence's log, sent at start
// and read whole at end, through the audit; a lane keeps it for its
// sequence.
func (s *sequence) observe(at int, start, end time.Time) {
	x := audit.Exchange{Exchange: s.log[at], Start: start, End: end}
	if s.lane {
		s.answers = append(s.answers, laneAnswer{x: x, at: at})
		return
	}
	s.observeAt(x, at)
}

func (s *sequence) observeAt(x audit.Exchange, at int) {
	if s.scope != nil {
		s.judged = append(s.judged, s.scope.Observe(x, at)...)
	}
}

// registryFinding is the first finding of the registry about the
// sequence's exchanges from the from-th on that still stands, claimed by
// the sequence, or nil: the registry's judgment of what an action sent,
// which the sequence reports, shrinks and replays as a fault of its own.
func (s *sequence) registryFinding(from int) *finding {
	for _, f := range s.judged {
		if f.At() < from || !f.Stands() {
			continue
		}
		s.scope.Claim(f)
		return &finding{rule: f.Rule, message: f.Message, log: f.At()}
	}
	return nil
}

// auditResults reports what the audit of a run found that no sequence
// took and no failed sequence of results blames already.
func (r *runner) auditResults(results []*report.ScenarioResult) ([]*report.ScenarioResult, map[string]int) {
	told := func(f *audit.Finding) bool {
		for _, s := range results {
			if s.File == f.Place.File && s.Line == f.Place.Line && slices.Contains(s.Blamed(), f.Rule) {
				return true
			}
		}
		return f.AtDeadLink(r.target.DeadLinks)
	}
	return report.Audited(r.audit, nil, r.target.Script(r.redactor), told)
}
