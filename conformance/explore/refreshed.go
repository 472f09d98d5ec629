package explore

import (
	"fmt"
	"net/http"
)

// Refreshes of one refresh token sent at once (KindTogether): in every
// serial order of them the first is taken, and a later one is refused only
// when an earlier one replaced the refresh token, as a target that rotates
// refresh tokens does (RFC 6749 §6): otherwise TOK-4 is broken. The access
// token of the one a target applied last acts for the account (TOK-8); an
// earlier one may have been revoked by it.

// refreshedTogether checks the refreshes of each account sent at once
// against every serial order of them, and leaves the account with an
// access token of theirs that acts for it.
func (s *sequence) refreshedTogether(parts []*part) *finding {
	for _, who := range []string{AsUser, AsOther} {
		var taken []*part
		var refused *answer
		n, sent := 0, ""
		for _, p := range parts {
			if p.action.Kind != KindRefresh || p.action.As != who {
				continue
			}
			sent = p.sent
			if access, _ := s.tokensOf(p.x); access != "" {
				taken = append(taken, p) // its answer the registry judges
				continue
			}
			refused = p.x
			n++
		}
		var rotated []string
		for _, p := range taken {
			r, _ := p.x.text("refresh_token")
			rotated = append(rotated, r)
		}
		if msg := refreshOrder(callerText(who)+"'s", sent, rotated, n); msg != "" {
			return s.breaks("TOK-4", refused, "%s", msg)
		}
		if f := s.actingToken(who, taken); f != nil {
			return f
		}
	}
	return nil
}

// refreshOrder says why no serial order of whose refreshes with the
// refresh token sent, sent at once, gives what they got: the refresh
// tokens the taken ones answered ("" for none), and the number refused;
// "" when one does. In every order the first is taken; a later one is
// refused only when an earlier one replaced the refresh token (RFC 6749
// §6).
func refreshOrder(whose, sent string, rotated []string, refused int) string {
	switch {
	case refused == 0:
		return ""
	case len(rotated) == 0:
		return fmt.Sprintf("%d refreshes of %s with one refresh token, sent at the same time, were all refused: in any order, the first is taken", refused, whose)
	}
	for _, r := range rotated {
		if r != "" && r != sent {
			return ""
		}
	}
	return fmt.Sprintf("a refresh of %s was refused, sent at the same time as %d taken with the same refresh token, none of which replaced it: in no order is a refresh token that is still valid refused", whose, len(rotated))
}

// actingToken gives who's account the first access token of the taken
// refreshes that the target honours (the last one a target applied acts,
// though one before it may have been revoked by it): none honoured, while
// the run's shared token is, breaks TOK-8. The account keeps the refresh
// token that answer gave, unless the taken ones gave several: then which
// the target keeps cannot be told, and the next refresh asks for tokens
// first.
func (s *sequence) actingToken(who string, taken []*part) *finding {
	if len(taken) == 0 {
		return nil
	}
	s.checked("TOK-8")
	acct := s.m.accounts[who]
	acting := taken[0]
	var probe *answer
	honoured := false
	for _, p := range taken {
		access, _ := p.x.text("access_token")
		a, offered := s.offers(access)
		if a != nil {
			probe = a
		}
		if offered {
			acting, honoured = p, true
			break
		}
	}
	if !honoured {
		if _, offered := s.offers(acct.pooled); offered {
			return s.breaks("TOK-8", probe, "none of the %d access tokens that %s's refreshes, sent at the same time, gave is honoured: the event list offers none of them \"create-new-event\", as it does the token of a password grant", len(taken), callerText(who))
		}
	}
	acct.access, _ = acting.x.text("access_token")
	acct.refreshed = true
	kept := map[string]bool{}
	for _, p := range taken {
		if r, _ := p.x.text("refresh_token"); r != "" {
			kept[r] = true
		}
	}
	switch r, _ := acting.x.text("refresh_token"); {
	case len(kept) > 1:
		acct.refresh = ""
	case r != "":
		acct.refresh = r
	}
	return nil
}

// offers reads the event list with token: whether it offers
// "create-new-event", which it offers a valid token alone.
func (s *sequence) offers(token string) (*answer, bool) {
	a, err := s.send(request{method: http.MethodGet, address: s.r.events, auth: bearer("", token)})
	if err != nil || a.status != http.StatusOK {
		return a, false
	}
	_, ok := a.links()["create-new-event"]
	return a, ok
}
