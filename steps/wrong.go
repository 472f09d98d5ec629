package steps

import (
	"sync/atomic"

	"eventsvc/conformance/mutate"
	"eventsvc/conformance/repro"
)

// Wrong logins: a wrong password or client secret is a near-miss of the
// right one, each of the run's wrong logins of a credential the next kind
// of near-miss (mutate.NearMissWays: its letters' case swapped, a
// character appended, its last character dropped, its first character
// changed), so that a run's wrong client secrets send every kind, and its
// wrong password the one kind the explorer's budget of failed logins
// leaves last. A near-miss is made up (the audit is told no account or
// client holds it), masked as the credential is, and written in a
// reproduction as the expression of the credential's variable that makes
// it. A credential that is no variable of the run (a client a scenario
// registered), or one with no near-miss that is not another credential of
// the run, gets a made-up value, as before.

// wrongTurns are the run's turns, by credential: how many wrong logins
// of it the run sent, which picks the next one's kind.
type wrongTurns struct {
	password, secret atomic.Int64
}

// wrong returns a wrong value of the credential right, the next kind of
// near-miss of it by turn.
func (s *scenario) wrong(right string, turn *atomic.Int64) string {
	fallback := "wrong-password-"
	if turn == &s.turns.secret {
		fallback = "wrong-secret-"
	}
	var credential repro.Var
	var others []string
	for _, v := range s.creds.Vars() {
		others = append(others, v.Value)
		if v.Value == right && right != "" {
			credential = v
		}
	}
	if credential.Name == "" {
		return s.madeUp(fallback)
	}
	n := int(turn.Add(1) - 1)
	for i := range mutate.NearMissWays {
		way := mutate.NearMissWays[(n+i)%len(mutate.NearMissWays)]
		if nm, ok := mutate.NearMiss(mutate.Var{Value: credential.Value, Name: credential.Name}, way, others); ok {
			s.redactor.Add(nm.Value)
			if s.target.Redactor != nil { // the run's: the audit's findings and the reports
				s.target.Redactor.Add(nm.Value)
			}
			s.nearMisses = append(s.nearMisses, repro.Var{Value: nm.Value, Name: nm.Name})
			return s.madeUpValue(nm.Value)
		}
	}
	return s.madeUp(fallback)
}

// passwordOf is the password a token request sends, or "".
func passwordOf(a tokenAsk) string {
	for _, p := range a.params {
		if p[0] == "password" {
			return p[1]
		}
	}
	return ""
}
