package conformance

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"eventsvc/features"
	"eventsvc/steps"
)

// runOther runs the scenarios a remote run selects against a second
// implementation (othersvc_test.go) configured with c. With t, each scenario
// is a subtest of t.
func runOther(t *testing.T, c otherConfig, tags string, subtests bool) (*Report, string, error) {
	t.Helper()
	srv := startOtherSvc(t, c)
	creds := c.creds
	if creds == (steps.Credentials{}) {
		creds = otherCreds
	}
	o := Options{
		Target: steps.Target{BaseURL: srv.URL, Credentials: creds, RunID: "portable", EventBody: []byte(otherEventBody)},
		Tags:   tags,
	}
	var buf bytes.Buffer
	o.Output = &buf
	if subtests {
		o.TestingT = t
	}
	rep, err := Run(o)
	return rep, buf.String(), err
}

// TestSpecScenariosPassAgainstASecondImplementation: every @spec scenario of
// a remote run passes against an implementation that obeys the specification
// but makes none of the reference server's choices, and against variants of
// it that choose differently again where the specification is silent. Each
// variant obeys the specification: when one fails, the suite relies on a
// choice the specification does not make.
func TestSpecScenariosPassAgainstASecondImplementation(t *testing.T) {
	want := 0
	set, err := features.Load(features.FS)
	if err != nil {
		t.Fatal(err)
	}
	remote, err := ParseTags(RemoteTags)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range set.Pickles() {
		if remote.Match(p.Tags) {
			want++
		}
	}
	secretWithPlus := otherCreds
	secretWithPlus.ClientSecret = "other+secret/123"
	variants := []struct {
		name string
		c    otherConfig
	}{
		{"as described", otherConfig{}},
		{"list items in a top-level array", otherConfig{choices: otherChoices{listAsArray: true}}},
		{"a page's self link is the address asked for", otherConfig{choices: otherChoices{selfAsAsked: true}}},
		{"documentation page without the optional html tag", otherConfig{choices: otherChoices{bareHTML: true}}},
		{"documentation page in ISO-8859-1", otherConfig{choices: otherChoices{latin1Docs: true}}},
		{"client secret with + and / compared as sent", otherConfig{creds: secretWithPlus}},
		{"500 events there before the run", otherConfig{choices: otherChoices{seed: 500}}},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			rep, out, err := runOther(t, v.c, RemoteTags, true)
			if err != nil {
				t.Fatalf("the suite fails a correct implementation: %v\n%s", err, failedSteps(out))
			}
			passed := 0
			for _, s := range rep.Scenarios {
				if s.Verdict == Passed {
					passed++
				}
			}
			if passed != want {
				t.Fatalf("want %d scenarios run and passed, got %d\n%s", want, passed, out)
			}
		})
	}
}

// TestSuiteCatchesBreakagesOfASecondImplementation breaks the second
// implementation in one way at a time and requires the scenarios of the
// broken rule, as a remote run selects them, to fail.
func TestSuiteCatchesBreakagesOfASecondImplementation(t *testing.T) {
	tests := []struct {
		name  string
		flaws otherFlaws
		rule  string
	}{
		{"create-new-event offered to anonymous callers", otherFlaws{createLinkForAnonymous: true}, "API-3"},
		{"a non-manager's update answered 401 instead of 403", otherFlaws{nonManager401: true}, "AUTH-6"},
		{"a session cookie that authenticates without a token", otherFlaws{sessionCookie: true}, "SVC-4"},
		{"token_type mac", otherFlaws{tokenTypeMAC: true}, "TOK-5"},
		{"documentation page behind authentication", otherFlaws{docsNeedToken: true}, "SVC-6"},
		{"update-event offered to non-managers", otherFlaws{updateLinkForAnyone: true}, "API-8"},
		{"next link on the last page", otherFlaws{nextOnLastPage: true}, "API-5"},
		// Beyond the brief: a flaw for each further rule a remote run checks.
		{"client credentials authenticate the API", otherFlaws{basicOpensAPI: true}, "AUTH-1"},
		{"token taken from the access_token query parameter", otherFlaws{queryToken: true}, "SVC-4"},
		{"an access token works as a refresh token", otherFlaws{accessAsRefresh: true}, "TOK-14"},
		{"a refresh token works as an access token", otherFlaws{refreshAsAccess: true}, "TOK-13"},
		{"refreshed tokens without client credentials", otherFlaws{refreshWithoutClient: true}, "TOK-1"},
		{"refreshed tokens for any Basic credentials", otherFlaws{refreshAnyClient: true}, "TOK-1"},
		{"next links back to the same page", otherFlaws{nextSamePage: true}, "API-5"},
		{"pages overlap", otherFlaws{overlappingPages: true}, "API-5"},
		{"client_credentials grant supported", otherFlaws{clientCredentials: true}, "TOK-9"},
		{"GET on an unknown path under /api/ needs a token", otherFlaws{unknownGETNeedToken: true}, "AUTH-2"},
		{"an invalid token on a read is refused", otherFlaws{invalidTokenRefused: true}, "API-2"},
		{"static locations need a token", otherFlaws{staticNeedToken: true}, "AUTH-5"},
		{"a creation without a token is refused but happens", otherFlaws{createsWithoutToken: true}, "AUTH-3"},
		{"any bearer token opens writes", otherFlaws{anyBearerWrites: true}, "AUTH-3"},
		{"tokens without client authentication", otherFlaws{noClientAuth: true}, "TOK-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// The scenarios of the broken rule, for speed; all of a remote
			// run when they miss it, to tell a gap from a misfiled rule.
			c := otherConfig{flaws: tt.flaws}
			rep, out, err := runOther(t, c, RemoteTags+" && @"+tt.rule, false)
			if !errors.Is(err, ErrFailed) {
				if rep, out, err = runOther(t, c, RemoteTags, false); errors.Is(err, ErrFailed) {
					t.Fatalf("no scenario of %s caught the flaw; these did:\n  %s", tt.rule, strings.Join(failures(rep), "\n  "))
				}
				t.Fatalf("no @spec scenario of a remote run catches the flaw (Run returned %v)\n%s", err, failedSteps(out))
			}
			t.Logf("caught by %s:\n  %s", tt.rule, strings.Join(failures(rep), "\n  "))
		})
	}
}

// failedSteps returns the "Failures:" section of a run's output.
func failedSteps(out string) string {
	if i := strings.Index(out, "\nFailures:"); i >= 0 {
		section, _, _ := strings.Cut(out[i:], "\nRules: ")
		return section
	}
	return ""
}

// failures returns the failed scenarios of a run, each with its place.
func failures(rep *Report) (scenarios []string) {
	if rep == nil {
		return nil
	}
	for _, s := range rep.Scenarios {
		if s.Verdict == Failed {
			scenarios = append(scenarios, s.Name+" ("+s.Place()+")")
		}
	}
	return scenarios
}
