package explore

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"eventsvc/conformance/cutoff"
	"eventsvc/conformance/meet"
)

// At the same time: a KindTogether action sends creations, updates and
// refreshes of both users at once, or both users' password grants, each held once its connection is
// ready until every other's is (package meet), so that they meet at the
// target. A target may apply them in any order; the model takes what any
// serial order gives (serial.go), and the reads after them check it.

// part is one action of a KindTogether, ready to be sent.
type part struct {
	action Action
	req    request
	ev     *event         // the event an update is about
	body   map[string]any // what a creation or an update writes
	sent   string         // the refresh token a refresh sends
	x      *answer        // the answer
	err    error          // no answer, or not a whole one
}

// together sends actions at once and checks what they did against every
// serial order of them: the refreshes first (the reads after act with
// the tokens they gave), then the creations and the updates, each read
// back after all of them.
func (s *sequence) together(actions []Action) (*finding, error) {
	parts, f, err := s.prepare(actions)
	if f != nil || err != nil || len(parts) == 0 {
		return f, err
	}
	if err := s.sendAtOnce(parts); err != nil {
		return nil, err
	}
	for _, p := range parts {
		if f := s.answered(p.x); f != nil {
			return f, nil
		}
	}
	s.refreshedTogether(parts)
	if f, err := s.grantedTogether(parts); f != nil || err != nil {
		return f, err
	}
	made := s.createdTogether(parts)
	s.m.events = append(s.m.events, made...)
	for _, u := range s.updatedTogether(parts) {
		if f, err := s.readAfterUpdates(u); f != nil || err != nil {
			return f, err
		}
	}
	for _, ev := range made {
		if f, err := s.readAfterCreation(ev); f != nil || err != nil {
			return f, err
		}
	}
	return nil, nil
}

// prepare makes the request of each action, in the sequence's state
// before any is sent: a refresh of an account that holds no refresh
// token of the sequence's own asks for tokens first (a password grant),
// and every event to be updated is read first, as update does, so that
// what reads back otherwise after them is theirs. Actions the sequence
// cannot take (no event to update, no event left in the budget, a
// read-only run) are left out.
func (s *sequence) prepare(actions []Action) ([]*part, *finding, error) {
	for _, a := range actions {
		if a.Kind == KindRefresh && s.m.accounts[a.As].refresh == "" {
			if f, err := s.grant(a.As); f != nil || err != nil {
				return nil, f, err
			}
		}
	}
	read := map[*event]bool{}
	for _, a := range actions {
		ev := s.event(a.Event)
		if a.Kind != KindUpdate || ev == nil || s.r.readOnly || read[ev] {
			continue
		}
		read[ev] = true
		before, f, err := s.get(ev.address, AsAnonymous, "")
		if err != nil || f != nil {
			return nil, f, err
		}
		s.learnEvent(before, ev)
	}
	var parts []*part
	for _, a := range actions {
		p := &part{action: a}
		switch a.Kind {
		case KindRefresh:
			p.sent = s.m.accounts[a.As].refresh
			p.req = s.r.tokenRequest("", "grant_type", "refresh_token", "token", p.sent)
		case KindGrant:
			user, pass := s.r.login(a.As)
			p.req = s.r.tokenRequest("", "grant_type", "password", "username", user, "password", pass)
		case KindCreate:
			if s.r.readOnly || !s.r.reserveEvent() {
				continue
			}
			p.body = withChanges(s.r.body, a.Changes)
			p.req = s.writeRequest(http.MethodPost, s.r.create, a, p.body)
		case KindUpdate:
			if p.ev = s.event(a.Event); p.ev == nil || s.r.readOnly {
				continue
			}
			p.body = withChanges(p.ev.fields, a.Changes)
			p.req = s.writeRequest(http.MethodPut, p.ev.address, a, p.body)
		default:
			continue
		}
		p.req.close = true // see sendAtOnce
		parts = append(parts, p)
	}
	return parts, nil, nil
}

// writeRequest sends body to address as a's caller.
func (s *sequence) writeRequest(method, address string, a Action, body map[string]any) request {
	raw, _ := json.Marshal(body)
	return request{method: method, address: address, auth: s.auth(a.As, a.Scheme), contentType: "application/json", body: raw}
}

// sendAtOnce sends every part's request at the same moment: each from a
// goroutine of its own, held once its connection is ready until every
// other's is (package meet), and logs their exchanges in the order of the
// parts. Each goes on a connection of its own, closed after its answer:
// none then returns to the client's pool while another waits for the one
// it dialled, which would be left open and unused, and a server shutting
// down gracefully waits for a connection that never sent a byte. Each is
// sent through a lane of the sequence (a sequence with a log of its own),
// so that send needs no lock. An error is the first part's that got no
// answer, or not a whole one; its exchange is logged last, where a
// finding of an answer cut looks for it (play).
func (s *sequence) sendAtOnce(parts []*part) error {
	lanes := make([]*sequence, len(parts))
	// Each waits for the others at most a quarter of its time (-timeout).
	meet.Send(s.ctx, len(parts), s.r.target.Timeout/4, func(ctx context.Context, i int) {
		lanes[i] = &sequence{r: s.r, ctx: ctx, n: s.n, lane: true}
		parts[i].x, parts[i].err = lanes[i].send(parts[i].req)
	})
	var failed *part
	var failedLane *sequence
	for i, p := range parts {
		if p.err != nil && failed == nil {
			failed, failedLane = p, lanes[i]
			continue
		}
		s.merge(lanes[i], p.x)
	}
	if failed == nil {
		return nil
	}
	s.merge(failedLane, nil)
	var cut *cutoff.CutError
	if errors.As(failed.err, &cut) {
		return cut
	}
	return failed.err
}

// merge appends a lane's log to the sequence's, and moves its answer's
// place in the log with it.
func (s *sequence) merge(lane *sequence, x *answer) {
	offset := len(s.log)
	if x != nil {
		x.log += offset
	}
	s.log = append(s.log, lane.log...)
	for _, a := range lane.answers {
		s.observeAt(a.x, a.at+offset)
	}
}

// grantedTogether gives each account the tokens its own password grant
// among parts answered, and reads an event of each account as each, when
// the sequence has one of each: the registry judges what each is offered
// there by whom the audit saw each token issued to, so that a token issued
// for one account that acts for the other shows (offered the other's
// update, denied its own; either alone tells it from the links' fault no
// better than a guess).
func (s *sequence) grantedTogether(parts []*part) (*finding, error) {
	granted := false
	for _, p := range parts {
		if p.action.Kind != KindGrant {
			continue
		}
		if access, refresh := s.tokensOf(p.x); access != "" {
			acct := s.m.accounts[p.action.As]
			acct.access, acct.refresh, acct.refreshed = access, refresh, false
			granted = true
		}
	}
	both, ok := s.m.oneOfEach()
	if !granted || !ok {
		return nil, nil
	}
	for _, who := range []string{AsUser, AsOther} {
		for _, ev := range both {
			if _, f, err := s.get(ev.address, who, ""); f != nil || err != nil {
				return f, err
			}
		}
	}
	return nil, nil
}
