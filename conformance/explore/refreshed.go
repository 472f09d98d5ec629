package explore

import (
	"net/http"
)

// Refreshes of one refresh token sent at once (KindTogether): in every
// serial order of them the first is taken, and a later one is refused only
// when an earlier one replaced the refresh token, as a target that rotates
// refresh tokens does (RFC 6749 §6): otherwise TOK-4 is broken. The access
// token of the one a target applied last acts for the account (TOK-8); an
// earlier one may have been revoked by it. The registry judges both: the
// refusals by the refresh grants' answers, the access tokens by the reads
// of the list each is sent with here.

// refreshedTogether leaves each account whose refreshes were sent at
// once with an access token of theirs that acts for it.
func (s *sequence) refreshedTogether(parts []*part) {
	for _, who := range []string{AsUser, AsOther} {
		var taken []*part
		for _, p := range parts {
			if p.action.Kind != KindRefresh || p.action.As != who {
				continue
			}
			if access, _ := s.tokensOf(p.x); access != "" {
				taken = append(taken, p) // its answer the registry judges
			}
		}
		s.actingToken(who, taken)
	}
}

// actingToken gives who's account the first access token of the taken
// refreshes that the target honours (the last one a target applied acts,
// though one before it may have been revoked by it), asking the list with
// each in turn: the registry judges each read, and, when none is
// honoured, a read with the run's shared token tells it whether the
// target honours a password grant's (TOK-8). The account keeps the
// refresh token that answer gave, unless the taken ones gave several:
// then which the target keeps cannot be told, and the next refresh asks
// for tokens first.
func (s *sequence) actingToken(who string, taken []*part) {
	if len(taken) == 0 {
		return
	}
	acct := s.m.accounts[who]
	acting := taken[0]
	honoured := false
	for _, p := range taken {
		access, _ := p.x.text("access_token")
		if s.offers(access) {
			acting, honoured = p, true
			break
		}
	}
	if !honoured {
		s.offers(acct.pooled)
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
}

// offers reads the event list with token: whether it offers
// "create-new-event", which it offers a valid token alone.
func (s *sequence) offers(token string) bool {
	a, err := s.send(request{method: http.MethodGet, address: s.r.events, auth: bearer("", token)})
	if err != nil || a.status != http.StatusOK {
		return false
	}
	_, ok := a.links()["create-new-event"]
	return ok
}
