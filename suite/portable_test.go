package suite

import (
	"bytes"
	"errors"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"eventsvc/conformance/hal"
	"eventsvc/conformance/othersvc"
	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
	"eventsvc/features"
)

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
	remote, err := selection.ParseTags(selection.RemoteTags)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range set.Pickles() {
		if remote.Match(p.Tags) {
			want++
		}
	}
	for _, v := range othersvc.Variants() {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			rep, out, err := runOther(t, v.Config, selection.RemoteTags, true)
			if err != nil {
				t.Fatalf("the suite fails a correct implementation: %v\n%s", err, failedSteps(out))
			}
			if n := count(rep, report.Passed); n != want {
				t.Fatalf("want %d scenarios run and passed, got %d\n%s", want, n, out)
			}
		})
	}
}

// breakage is one way to break the specification, and the rule it breaks.
// A breakage so blunt that the run's preflight refuses the target (its
// password grant fails) is marked preflight: the run stops there. A
// breakage that breaks more rules than its own (a list that needs a token
// breaks both the list's rule and the rule that GETs under /api/ are open)
// names them all in also.
type breakage struct {
	name      string
	flaws     othersvc.Flaws
	rule      string
	preflight bool
	also      []string
}

// blamed returns the rules a run against the breakage must blame.
func (b breakage) blamed() []string {
	out := append([]string{b.rule}, b.also...)
	slices.Sort(out)
	return out
}

// breakages break the second implementation one way at a time: at least
// one for every @spec rule a remote run checks
// (TestEveryRemoteRuleHasABreakage), each the most plausible way to get
// that rule wrong.
var breakages = []breakage{
	{"create-new-event offered to anonymous callers", othersvc.Flaws{CreateLinkForAnonymous: true}, "API-3", false, nil},
	{"a non-manager's update answered 401 instead of 403", othersvc.Flaws{NonManager401: true}, "AUTH-6", false, nil},
	{"a session cookie that authenticates without a token", othersvc.Flaws{SessionCookie: true}, "SVC-4", false, nil},
	{"token_type mac", othersvc.Flaws{TokenTypeMAC: true}, "TOK-5", false, nil},
	{"documentation page behind authentication", othersvc.Flaws{DocsNeedToken: true}, "SVC-6", false, []string{"AUTH-5"}},
	{"update-event offered to non-managers", othersvc.Flaws{UpdateLinkForAnyone: true}, "API-8", false, nil},
	{"next link on the last page", othersvc.Flaws{NextOnLastPage: true}, "API-5", false, nil},
	{"client credentials authenticate the API", othersvc.Flaws{BasicOpensAPI: true}, "AUTH-1", false, nil},
	{"token taken from the access_token query parameter", othersvc.Flaws{QueryToken: true}, "SVC-4", false, nil},
	{"an access token works as a refresh token", othersvc.Flaws{AccessAsRefresh: true}, "TOK-14", false, nil},
	{"a refresh token works as an access token", othersvc.Flaws{RefreshAsAccess: true}, "TOK-13", false, nil},
	{"refreshed tokens without client credentials", othersvc.Flaws{RefreshWithoutClient: true}, "TOK-1", false, nil},
	{"refreshed tokens for any Basic credentials", othersvc.Flaws{RefreshAnyClient: true}, "TOK-1", false, []string{"CLI-1", "TOK-10"}},
	{"next links back to the same page", othersvc.Flaws{NextSamePage: true}, "API-5", false, nil},
	{"pages overlap", othersvc.Flaws{OverlappingPages: true}, "API-5", false, nil},
	{"client_credentials grant supported", othersvc.Flaws{ClientCredentials: true}, "TOK-9", false, []string{"CLI-3"}},
	{"client_credentials grant authorized for the client", othersvc.Flaws{ClientCredentials: true}, "CLI-3", false, []string{"TOK-9"}},
	{"GET on an unknown path under /api/ needs a token", othersvc.Flaws{UnknownGETNeedToken: true}, "AUTH-2", false, nil},
	{"an invalid token on a read is refused", othersvc.Flaws{InvalidTokenRefused: true}, "API-2", false, []string{"API-7", "SVC-5"}},
	{"static locations need a token", othersvc.Flaws{StaticNeedToken: true}, "AUTH-5", false, nil},
	{"a creation without a token is refused but happens", othersvc.Flaws{CreatesWithoutToken: true}, "AUTH-3", false, nil},
	{"any bearer token opens writes", othersvc.Flaws{AnyBearerWrites: true}, "AUTH-3", false, []string{"SVC-5", "TOK-13"}},
	{"tokens without client authentication", othersvc.Flaws{NoClientAuth: true}, "TOK-1", false, nil},
	{"the API knows none of the issued tokens", othersvc.Flaws{TokensNotHonoured: true}, "SVC-1", false, nil},
	{"_links as an array", othersvc.Flaws{LinksAsArray: true}, "SVC-2", true, nil},
	{"create-new-event offered to nobody", othersvc.Flaws{NoCreateLinkForUsers: true}, "SVC-3", true, nil},
	{"create-new-event not offered to a caller with a token", othersvc.Flaws{NoCreateLinkForUsers: true}, "API-4", false, nil},
	{"the event list needs a token", othersvc.Flaws{ListNeedsToken: true}, "SVC-5", false, []string{"API-2", "AUTH-2"}},
	{"a client serves only the first user it logs in", othersvc.Flaws{OneUserPerClient: true}, "CLI-1", true, nil},
	{"a user's email and password authenticate as the client", othersvc.Flaws{UserAsClient: true}, "CLI-1", false, []string{"TOK-10"}},
	{"only the read scope granted", othersvc.Flaws{ScopeReadOnly: true}, "CLI-4", false, []string{"TOK-5"}},
	{"a JSON body at the token endpoint", othersvc.Flaws{JsonBodyAccepted: true}, "TOK-2", false, nil},
	{"any password of a known user", othersvc.Flaws{PasswordNotChecked: true}, "TOK-3", false, nil},
	{"the refresh token read from refresh_token only", othersvc.Flaws{RefreshTokenParamOnly: true}, "TOK-4", false, nil},
	{"a CSRF cookie required at the token endpoint", othersvc.Flaws{CsrfRequired: true}, "TOK-6", true, nil},
	{"the username is not the email", othersvc.Flaws{UsernameNotEmail: true}, "ACC-1", true, nil},
	{"no refresh token with the password grant", othersvc.Flaws{NoRefreshToken: true}, "TOK-7", false, nil},
	{"refreshed access tokens do not work", othersvc.Flaws{RefreshedTokensDead: true}, "TOK-8", false, nil},
	{"a user's email and password authenticate as a client", othersvc.Flaws{UserAsClient: true}, "TOK-10", false, []string{"CLI-1"}},
	{"the list linked as event-list, not events", othersvc.Flaws{NoEventsLink: true}, "API-1", true, nil},
	{"the creator does not become the manager", othersvc.Flaws{CreatorNotManager: true}, "API-6", false, nil},
	// The audit reads the events the lists link to without a token too:
	// a GET under /api/ refused to a caller without one breaks AUTH-2.
	{"reading an event needs a token", othersvc.Flaws{ReadNeedsToken: true}, "API-7", false, []string{"AUTH-2", "SVC-5"}},
	{"the manager's update changes nothing", othersvc.Flaws{UpdateIgnored: true}, "API-9", false, nil},
	// The run goes on: one finding of API-10, the rest not checked.
	{"the events href leads nowhere", othersvc.Flaws{BrokenEventsHref: true}, "API-10", false, nil},
	{"requests outside the API need no token", othersvc.Flaws{OpenOutsideAPI: true}, "AUTH-4", false, nil},
	{"token answers without Cache-Control: no-store", othersvc.Flaws{TokensCacheable: true}, "TOK-15", false, nil},
	{"a failed Basic authentication answered 400 without a challenge", othersvc.Flaws{BadClient400: true}, "TOK-16", false, nil},
	{"the bearer scheme read in one case only", othersvc.Flaws{BearerCaseSensitive: true}, "SVC-7", false, nil},
	{"the basic scheme read in one case only", othersvc.Flaws{BasicCaseSensitive: true}, "SVC-7", false, nil},
	{"a refreshed token acts for nobody the API knows", othersvc.Flaws{RefreshLosesUser: true}, "TOK-8", false, nil},
	{"every refresh acts for the first user", othersvc.Flaws{RefreshAsFirstUser: true}, "TOK-8", false, nil},
	{"a refresh token kept by the refresh works once", othersvc.Flaws{RefreshSingleUse: true}, "TOK-4", false, nil},
	{"create-new-event only on a page asked for without parameters", othersvc.Flaws{CreateLinkDefaultOnly: true}, "API-4", false, nil},
	{"profile and get-an-event on the first page only", othersvc.Flaws{AnonLinksFirstOnly: true}, "API-3", false, []string{"API-4"}},
	{"next on a full last page", othersvc.Flaws{NextWhenFull: true}, "API-5", false, nil},
	{"prev on a first page asked for by its number", othersvc.Flaws{PrevOnExplicitFirst: true}, "API-5", false, nil},
	{"an event's self leads to the next event", othersvc.Flaws{EventSelfOffByOne: true}, "API-10", false, nil},
	{"an event's profile leads to no page", othersvc.Flaws{ProfileNowhere: true}, "API-10", false, nil},
	{"the answer to a creation has _links as an array", othersvc.Flaws{PostLinksAsArray: true}, "SVC-2", false, nil},
	{"the answer to an update has _links as an array", othersvc.Flaws{PutLinksAsArray: true}, "SVC-2", false, nil},
	{"the events of a list have no _links", othersvc.Flaws{ItemsWithoutLinks: true}, "SVC-2", false, nil},
	{"listed events offer update-event to anyone", othersvc.Flaws{ItemUpdateForAnyone: true}, "API-8", false, nil},
	{"texts lose what is not ASCII", othersvc.Flaws{AsciiOnly: true}, "API-6", false, []string{"API-9"}},
	{"an update changes the name only", othersvc.Flaws{UpdateNameOnly: true}, "API-9", false, nil},
	{"an update leaves the event without a manager", othersvc.Flaws{UpdateDropsManager: true}, "API-9", false, nil},
	// Offered to every caller, the link is API-8's fault alone, whatever
	// credentials the callers who were offered it sent.
	{"an event offers update-event to every caller", othersvc.Flaws{UpdateLinkForEveryone: true}, "API-8", false, nil},
}

// TestSuiteCatchesBreakagesOfASecondImplementation breaks the second
// implementation in one way at a time and requires the scenarios of the
// broken rule, as a remote run selects them, to fail. The bug reports
// (othersvc.BugReports) that a remote run catches must stay caught: a
// whole remote run fails the first rule their record names, by a scenario
// of that rule or by the audit of every answer.
func TestSuiteCatchesBreakagesOfASecondImplementation(t *testing.T) {
	for _, tt := range breakages {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			requireCaught(t, othersvc.Config{Flaws: tt.flaws}, tt.rule, tt.preflight)
		})
	}
	for _, b := range othersvc.BugReports {
		if b.Today.Scenarios == "" {
			continue
		}
		t.Run("bug report: "+b.Name, func(t *testing.T) {
			t.Parallel()
			rule, _, _ := strings.Cut(b.Today.Scenarios, " ")
			if rule == "preflight" {
				requireCaught(t, b.Config, "", true)
				return
			}
			rep, out, err := runOther(t, b.Config, selection.RemoteTags, false)
			if !errors.Is(err, ErrFailed) {
				t.Fatalf("a remote run does not catch the flaw (Run returned %v)%s", err, failedSteps(out))
			}
			if failed := failedRules(rep); !slices.Contains(strings.Fields(failed), rule) {
				t.Fatalf("a remote run fails %q, not %s:\n  %s", failed, rule, strings.Join(failures(rep), "\n  "))
			}
		})
	}
}

// requireCaught requires the scenarios of rule (all of a remote run's,
// without one), as a remote run selects them, to fail against the second
// implementation configured with c, or with preflight, the preflight to
// refuse it.
func requireCaught(t *testing.T, c othersvc.Config, rule string, preflight bool) {
	t.Helper()
	// The scenarios of the broken rule, for speed; all of a remote run
	// when they miss it, to tell a gap from a misfiled rule.
	tags := selection.RemoteTags
	if rule != "" {
		tags += " && @" + rule
	}
	rep, out, err := runOther(t, c, tags, false)
	if preflight {
		if !errors.Is(err, target.ErrPreflight) {
			t.Fatalf("the preflight does not refuse the target (Run returned %v)%s", err, failedSteps(out))
		}
		t.Logf("refused by the preflight: %v", err)
		return
	}
	if !errors.Is(err, ErrFailed) {
		if rep, out, err = runOther(t, c, selection.RemoteTags, false); errors.Is(err, ErrFailed) {
			t.Fatalf("no scenario of %s caught the flaw; these did:\n  %s", rule, strings.Join(failures(rep), "\n  "))
		}
		t.Fatalf("no @spec scenario of a remote run catches the flaw (Run returned %v)%s", err, failedSteps(out))
	}
	t.Logf("caught by %s:\n  %s", rule, strings.Join(failures(rep), "\n  "))
}

// TestEachBreakageIsBlamedOnItsRules runs the whole of a remote run
// against each breakage, and requires the rules it fails to be exactly
// those the breakage breaks: a failure blames the rule its check proves,
// not every rule of its scenario. A breakage that the preflight of a whole
// run refuses (it blocks the scenarios that write) is caught by its own
// rule's scenarios alone (TestSuiteCatchesBreakagesOfASecondImplementation).
func TestEachBreakageIsBlamedOnItsRules(t *testing.T) {
	for _, tt := range breakages {
		if tt.preflight {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, out, err := runOther(t, othersvc.Config{Flaws: tt.flaws}, selection.RemoteTags, false)
			if errors.Is(err, target.ErrPreflight) {
				t.Skipf("the preflight of a whole run refuses this breakage: %v", err)
			}
			var failed []string
			for _, r := range rep.Rules {
				if r.Verdict == report.Failed {
					failed = append(failed, r.ID)
				}
			}
			slices.Sort(failed)
			if want := tt.blamed(); !slices.Equal(failed, want) {
				t.Fatalf("the run blames %v, want %v%s", failed, want, failedSteps(out))
			}
		})
	}
}

// TestReadOnlyRunsCheckWhatTheTargetHolds: a read-only run creates nothing,
// checks paging and reading on the events a target already has, and where
// the target holds too little to check them, skips those scenarios with the
// reason instead of passing them.
func TestReadOnlyRunsCheckWhatTheTargetHolds(t *testing.T) {
	readOnly := func(t *testing.T, c othersvc.Config) (*report.Report, string, error) {
		srv := othersvc.Start(t, c)
		var out bytes.Buffer
		rep, err := Run(Options{
			Target:   target.Target{BaseURL: srv.URL, Credentials: othersvc.Creds, RunID: "read-only", EventBody: []byte(othersvc.EventBody)},
			Tags:     selection.RemoteTags + " && @API-5,@API-7,@API-8",
			ReadOnly: true,
			Output:   &out,
		})
		return rep, out.String(), err
	}
	t.Run("a target with pages of the user's events", func(t *testing.T) {
		t.Parallel()
		rep, out, err := readOnly(t, othersvc.Config{Choices: othersvc.Choices{Seed: 7, SeedManager: othersvc.Creds.Username}})
		if err != nil {
			t.Fatalf("Run = %v%s", err, failedSteps(out))
		}
		if count(rep, report.Passed) == 0 || count(rep, report.Passed) != len(rep.Ran()) {
			t.Fatalf("want every scenario run and passed:\n%s", out)
		}
	})
	t.Run("an empty target", func(t *testing.T) {
		t.Parallel()
		rep, out, err := readOnly(t, othersvc.Config{})
		if err != nil {
			t.Fatalf("Run = %v%s", err, failedSteps(out))
		}
		for _, rule := range []string{"API-5", "API-7", "API-8"} {
			if !regexp.MustCompile(`(?m)^\s+` + rule + `\s+NOT RUN`).MatchString(out) {
				t.Errorf("the summary does not say %s was not run:\n%s", rule, out)
			}
		}
		if count(rep, report.Passed)+count(rep, report.Failed) != 0 {
			t.Errorf("want every scenario not run:\n%s", out)
		}
	})
}

// TestEveryRemoteRuleHasABreakage: every rule a remote run checks has at
// least one breakage above that the suite must kill, so that no rule is
// checked only vacuously. The rules a remote run leaves out (@local, @slow
// only) are reported not run there.
func TestEveryRemoteRuleHasABreakage(t *testing.T) {
	set, err := features.Load(features.FS)
	if err != nil {
		t.Fatal(err)
	}
	broken := map[string]bool{}
	for _, b := range breakages {
		broken[b.rule] = true
	}
	checked := map[string]bool{}
	remote, err := selection.ParseTags(selection.RemoteTags)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range set.Pickles() {
		if remote.Match(p.Tags) {
			for _, id := range features.Tags(p.Tags).Rules() {
				checked[id] = true
			}
		}
	}
	if len(checked) == 0 {
		t.Fatal("a remote run checks no rule")
	}
	for _, id := range slices.Sorted(maps.Keys(checked)) {
		if !broken[id] {
			t.Errorf("rule %s is checked by a remote run, but no breakage of the second implementation shows that its scenarios can fail", id)
		}
	}
}

// TestAccessTokenLifetimeIsCheckedInRealTime runs the @slow LIM-1 scenario
// against the second implementation with a two-second access lifetime: it
// passes, and fails when access tokens outlive the expires_in they were
// issued with.
func TestAccessTokenLifetimeIsCheckedInRealTime(t *testing.T) {
	for _, tt := range []struct {
		name  string
		flaws othersvc.Flaws
		want  error
	}{
		{"tokens that expire", othersvc.Flaws{}, nil},
		{"tokens that never expire", othersvc.Flaws{AccessNeverExpires: true}, ErrFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, out, err := runOther(t, othersvc.Config{Flaws: tt.flaws, AccessTTL: 2 * time.Second}, "@LIM-1 && @slow", false)
			if !errors.Is(err, tt.want) && err != tt.want {
				t.Fatalf("Run = %v, want %v%s", err, tt.want, failedSteps(out))
			}
			if len(rep.Ran()) != 1 {
				t.Fatalf("want one scenario run:\n%s", out)
			}
		})
	}
}

// TestAListWhoseNextNeverEndsIsLeftWithinAFewPagesOfItsEnd: against a list
// whose "next" goes on past its last page, a remote run fails API-5, and
// no walk through it, the scenarios', the audit's or the exploration's,
// asks for more than hal.StaleWalk pages past the last, the page the
// walk was on when it passed the end included.
func TestAListWhoseNextNeverEndsIsLeftWithinAFewPagesOfItsEnd(t *testing.T) {
	var past atomic.Int64
	rep, out := requireFails(t, othersvc.Config{Flaws: othersvc.Flaws{NextNeverEnds: true, PastTheEnd: &past}}, "API-5")
	if !strings.Contains(out, "stopped following \"next\"") && !strings.Contains(out, "lists again an event of the page before") {
		t.Errorf("no failure says where the walk stopped and why:%s", failedSteps(out))
	}
	walks := 0
	for _, s := range rep.Scenarios {
		if s.Verdict == report.Failed || s.Verdict == report.Passed {
			walks++
		}
	}
	if n := past.Load(); n > int64(walks*(hal.StaleWalk+1)) {
		t.Errorf("the run asked for %d pages past the last, in %d scenarios", n, walks)
	}
	t.Logf("%d pages asked for past the last, in %d scenarios%s", past.Load(), walks, failedSteps(out))
}

// TestOneFaultFailsTheRuleItBreaksAlone: a cache that serves a page of
// the list to whoever asks next at the same address breaks what the list
// offers its callers (API-4 here, where the anonymous caller asks first);
// the scenarios that meet it on their way (creating an event needs the
// link the page no longer offers) fail that rule, not their own, which
// are not checked; and the run tells the failures of that one cause as
// one: the first in full, then how many more.
func TestOneFaultFailsTheRuleItBreaksAlone(t *testing.T) {
	_, out := requireFails(t, othersvc.Config{Flaws: othersvc.Flaws{ListCacheShared: true}}, "API-4")
	if !regexp.MustCompile(`and \d+ more of the same cause: answers given to one caller are served, byte for byte, to callers who must be answered otherwise`).MatchString(out) {
		t.Errorf("the failures of the cache are not told as one:%s", failedSteps(out))
	}
	if !strings.Contains(out, "fails API-4; not checked: AUTH-3, as the scenario could not go on past that fault") {
		t.Errorf("a scenario that met the cache on its way does not say its own rule went unchecked:%s", failedSteps(out))
	}
}

// TestAnUpdateLinkThatLeadsElsewhereFailsAPI10Alone: an event whose
// "update-event" leads to the list fails API-10 alone: the scenarios that
// update through it, and are answered 405, met that fault on their way
// (TOK-8, API-8 and API-9 are not checked), however their steps fail.
func TestAnUpdateLinkThatLeadsElsewhereFailsAPI10Alone(t *testing.T) {
	requireFails(t, othersvc.Config{Flaws: othersvc.Flaws{UpdateLinkToList: true}}, "API-10")
}
