package audit

// A valid access token that the target does not take for its account
// breaks the rule of what it was refused, unless the way it was sent is
// what the target did not honour: a token a refresh gave (TOK-8), or the
// Bearer scheme spelt in another case (SVC-7, RFC 7235 §2.1). Which of
// them is told by what the target did for the same account sent another
// way at the same address: the evidence.

// use is how a valid token was sent when the target honoured it.
type use struct {
	when      span
	tok       *token
	refreshed bool   // a token a refresh grant gave
	scheme    string // the Authorization scheme as written
}

// useOf is how c sent its token, during when.
func useOf(c caller, when span) use {
	return use{when: when, tok: c.tok, refreshed: c.tok != nil && c.tok.refreshed, scheme: c.scheme}
}

// blame is a rule that an unhonoured token may break, and the uses of
// the same account that show the target honours what this caller sent
// but for that rule's cause.
type blame struct {
	rule  string
	shows func(u use) bool
}

// honourBlames are the rules a valid token c that was not honoured may
// break besides the rule of what was refused, each with its evidence:
// a token with the scheme spelt otherwise breaks SVC-7 when the target
// honoured the same token sent with "Bearer"; a refreshed token breaks
// TOK-8 when it honoured a password grant's token of the account sent
// the same way, the scheme spelt alike. None for a password grant's
// token sent with "Bearer".
func honourBlames(c caller) []blame {
	refreshed := c.tok != nil && c.tok.refreshed
	exact := c.scheme == "Bearer"
	sameToken := func(u use) bool { return u.tok != nil && u.tok == c.tok && u.scheme == "Bearer" }
	granted := func(u use) bool { return !u.refreshed && u.scheme == c.scheme }
	switch {
	case refreshed && exact:
		return []blame{{"TOK-8", granted}}
	case !refreshed && !exact:
		return []blame{{"SVC-7", sameToken}}
	case refreshed:
		return []blame{{"SVC-7", sameToken}, {"TOK-8", granted}}
	}
	return nil
}

// honourFindings are the findings of c's valid token not honoured, for
// rule: rule's for a password grant's token sent with "Bearer"; else one
// of each of honourBlames, of which the one that the uses seen (uses,
// called when the findings are weighed) bear out stands.
func honourFindings(c caller, rule, msg string, uses func() []use) []*Finding {
	blames := honourBlames(c)
	if len(blames) == 0 {
		return []*Finding{finding(rule, "%s", msg)}
	}
	var out []*Finding
	for i, b := range blames {
		f := finding(b.rule, "%s", msg)
		f.stands = func() bool { return standing(blames, uses())[i] }
		out = append(out, f)
	}
	return out
}

// standing returns, for each of blames, whether it stands given the uses
// seen: the first whose evidence is among uses stands, and no other.
func standing(blames []blame, uses []use) []bool {
	out := make([]bool, len(blames))
	for i, b := range blames {
		for _, u := range uses {
			if b.shows(u) {
				out[i] = true
				return out
			}
		}
	}
	return out
}
