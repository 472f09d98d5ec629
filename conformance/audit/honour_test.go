package audit

import "testing"

// TestATokenNotHonouredIsBlamedOnWhatTheEvidenceShows: a valid token the
// target did not take for its account breaks TOK-8 or SVC-7 only where
// the same account, sent another way, was honoured; a refreshed token
// with the scheme spelt otherwise is blamed on the scheme when a
// refreshed token sent with "Bearer" was honoured, and on the refresh
// when a password grant's token with the same spelling was.
func TestATokenNotHonouredIsBlamedOnWhatTheEvidenceShows(t *testing.T) {
	refreshed := &token{refreshed: true}
	granted := &token{}
	plain := use{scheme: "Bearer"}
	refreshedBearer := use{refreshed: true, scheme: "Bearer"}
	oddPlain := use{scheme: "bEaReR"}
	for _, tc := range []struct {
		name   string
		caller caller
		uses   []use
		want   string // the rule that stands; "" for none
	}{
		{"a password grant's token sent with Bearer is the rule's own", caller{tok: granted, scheme: "Bearer"}, []use{plain}, ""},
		{"a refreshed token, when a granted one was honoured", caller{tok: refreshed, scheme: "Bearer"}, []use{plain}, "TOK-8"},
		{"a refreshed token, with nothing honoured", caller{tok: refreshed, scheme: "Bearer"}, nil, ""},
		{"a scheme spelt otherwise, when Bearer was honoured", caller{tok: granted, scheme: "bearer"}, []use{plain}, "SVC-7"},
		{"a scheme spelt otherwise, when only a refreshed token was honoured", caller{tok: granted, scheme: "bearer"}, []use{refreshedBearer}, ""},
		{"both, when a refreshed token sent with Bearer was honoured", caller{tok: refreshed, scheme: "bEaReR"}, []use{plain, refreshedBearer}, "SVC-7"},
		{"both, when a granted token with the same spelling was honoured", caller{tok: refreshed, scheme: "bEaReR"}, []use{plain, oddPlain}, "TOK-8"},
		{"both, when only a granted token sent with Bearer was honoured", caller{tok: refreshed, scheme: "bEaReR"}, []use{plain}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			blames := honourBlames(tc.caller)
			got := ""
			for i, st := range standing(blames, tc.uses) {
				if st {
					if got != "" {
						t.Fatalf("%s and %s both stand", got, blames[i].rule)
					}
					got = blames[i].rule
				}
			}
			if got != tc.want {
				t.Errorf("stands %q, want %q", got, tc.want)
			}
		})
	}
}
