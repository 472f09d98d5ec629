package audit

import "testing"

// TestATokenNotHonouredIsBlamedOnWhatTheEvidenceShows: a valid token the
// target did not take for its account breaks SVC-7 only where the same
// token sent with "Bearer" was honoured, and TOK-8 only where a password
// grant's token of the account, sent the same way, was.
func TestATokenNotHonouredIsBlamedOnWhatTheEvidenceShows(t *testing.T) {
	refreshed := &token{refreshed: true}
	granted, another := &token{}, &token{}
	plain := use{tok: granted, scheme: "Bearer"}
	anotherPlain := use{tok: another, scheme: "Bearer"}
	refreshedBearer := use{tok: refreshed, refreshed: true, scheme: "Bearer"}
	oddGranted := use{tok: another, scheme: "bEaReR"}
	for _, tc := range []struct {
		name   string
		caller caller
		uses   []use
		want   string // the rule that stands; "" for none
	}{
		{"a password grant's token sent with Bearer is the rule's own", caller{tok: granted, scheme: "Bearer"}, []use{plain}, ""},
		{"a refreshed token, when a granted one was honoured", caller{tok: refreshed, scheme: "Bearer"}, []use{anotherPlain}, "TOK-8"},
		{"a refreshed token, with nothing honoured", caller{tok: refreshed, scheme: "Bearer"}, nil, ""},
		{"a scheme spelt otherwise, when the same token with Bearer was honoured", caller{tok: granted, scheme: "bearer"}, []use{plain}, "SVC-7"},
		{"a scheme spelt otherwise, when only another token with Bearer was honoured", caller{tok: granted, scheme: "bearer"}, []use{anotherPlain}, ""},
		{"a scheme spelt otherwise, when only a refreshed token was honoured", caller{tok: granted, scheme: "bearer"}, []use{refreshedBearer}, ""},
		{"both, when the same refreshed token sent with Bearer was honoured", caller{tok: refreshed, scheme: "bEaReR"}, []use{anotherPlain, refreshedBearer}, "SVC-7"},
		{"both, when a granted token with the same spelling was honoured", caller{tok: refreshed, scheme: "bEaReR"}, []use{anotherPlain, oddGranted}, "TOK-8"},
		{"both, when only a granted token sent with Bearer was honoured", caller{tok: refreshed, scheme: "bEaReR"}, []use{anotherPlain}, ""},
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
