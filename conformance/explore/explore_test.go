package explore

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/contract"
	"eventsvc/conformance/explore/flawed"
	"eventsvc/conformance/inprocess"
	"eventsvc/conformance/report"
	"eventsvc/conformance/report/reporttest"
	"eventsvc/conformance/target"
)

// inProcess is a target of one in-process reference server, whose clock
// follows the machine's, with the API's OpenAPI document.
func inProcess(t *testing.T) target.Target {
	t.Helper()
	c, err := contract.Default()
	if err != nil {
		t.Fatal(err)
	}
	creds := target.DemoCredentials
	return target.Target{Credentials: creds, RunID: "explore-test", Launcher: inprocess.Launcher{Credentials: creds, RealTime: true}, Contract: c}
}

// remote is a target at base with the demo credentials.
func remote(base string) target.Target {
	return target.Target{BaseURL: base, Credentials: target.DemoCredentials, RunID: "explore-test"}
}

func TestExploringTheReferenceServerFindsNothing(t *testing.T) {
	concurrencies := []int{1, 4}
	if raceBuild {
		concurrencies = []int{4} // what the race detector is for: sequences at once
	}
	for _, concurrency := range concurrencies {
		var out bytes.Buffer
		dir := t.TempDir()
		rep, err := Run(context.Background(), Options{Target: inProcess(t), Seed: 1, Concurrency: concurrency, Ref: true, Output: &out, ReportDir: dir})
		if err != nil {
			t.Fatalf("concurrency %d: Run = %v\n%s", concurrency, err, out.String())
		}
		reporttest.Check(t, dir)
		checked := map[string]bool{}
		for _, r := range rep.Rules {
			if r.Checks > 0 {
				checked[r.ID] = true
			}
		}
		if len(checked) < len(Rules())*2/3 {
			t.Errorf("concurrency %d: the exploration checked %d rules of the %d it can", concurrency, len(checked), len(Rules()))
		}
		for id := range checked {
			if !slices.Contains(Rules(), id) {
				t.Errorf("concurrency %d: the exploration checked %s, which Rules() does not list", concurrency, id)
			}
		}
	}
}

// actionsOf are the actions of every sequence of a run, as its report
// tells them.
func actionsOf(rep *report.Report) []string {
	var out []string
	for _, s := range rep.Scenarios {
		for _, st := range s.Steps {
			out = append(out, s.Place()+" "+st.Text)
		}
	}
	return out
}

// TestTheExplorationJudgesNoRuleItself reads the package's code: no
// rule id is named outside its tests. Every exchange of a sequence is the
// registry's to judge (package audit), and Rules is its list.
func TestTheExplorationJudgesNoRuleItself(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ruleLiteral.FindAllStringSubmatch(string(b), -1) {
			t.Errorf("%s names %s: a rule is judged by the registry's checks alone", f, m[1])
		}
	}
	if !slices.Equal(Rules(), audit.Rules()) {
		t.Errorf("Rules() = %v, want the registry's, %v", Rules(), audit.Rules())
	}
}

// readBackMessage is the message of a field that does not read back:
// its name, what was read, what was written.
var readBackMessage = regexp.MustCompile(`"([^"]+)"(?: of event #\d+)? reads back as the string "([^"]*)"; it was written as the string "([^"]*)"`)

var ruleLiteral = regexp.MustCompile(`"([A-Z]+-[0-9]+)"`)

// tokenPattern finds a token shown as it is: a bearer token other than
// the made-up one, or a token field of an answer.
var tokenPattern = regexp.MustCompile(`Bearer [^*\s"$]{12,}|"(access|refresh)_token" *: *"[^*"]`)

func TestTheSameSeedExploresTheSameSequences(t *testing.T) {
	run := func(seed uint64) []string {
		var out bytes.Buffer
		rep, err := Run(context.Background(), Options{Target: inProcess(t), Seed: seed, MaxActions: 120, Output: &out})
		if err != nil {
			t.Fatalf("Run = %v\n%s", err, out.String())
		}
		if !strings.Contains(out.String(), "with seed 7:") && seed == 7 {
			t.Errorf("the seed is not printed at the start:\n%s", out.String())
		}
		return actionsOf(rep)
	}
	first, again, other := run(7), run(7), run(8)
	if len(first) < 100 || !slices.Equal(first, again) {
		t.Fatalf("seed 7 explored %d actions, then %d, not the same ones", len(first), len(again))
	}
	if slices.Equal(first, other) {
		t.Fatal("seeds 7 and 8 explored the same actions")
	}
}

func TestAFindingIsReplayedFromItsFileAndItsScript(t *testing.T) {
	f := flawed.Named(t, "a leap day reads back as the first of March")
	dir := t.TempDir()
	var out bytes.Buffer
	rep, err := Run(context.Background(), Options{Target: remote(flawed.Start(t, f)), Seed: 1, Output: &out, ReportDir: dir})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	reporttest.Check(t, dir)
	var found *report.ScenarioResult
	for _, s := range rep.Scenarios {
		if s.Verdict == report.Failed && !strings.Contains(s.Name, "another finding") {
			found = s
			break
		}
	}
	if found == nil || found.Failure.ReplayFile == "" || found.Failure.ScriptFile == "" {
		t.Fatalf("no shrunk finding with a replay file and a script:\n%s", out.String())
	}
	for _, want := range []string{"Replay: conformance explore -replay " + filepath.Join(dir, found.Failure.ReplayFile), "Reproduce: sh " + filepath.Join(dir, found.Failure.ScriptFile)} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	replay, err := ReadReplay(filepath.Join(dir, found.Failure.ReplayFile))
	if err != nil {
		t.Fatal(err)
	}
	if replay.Seed != 1 || replay.Finding != found.Failure.Rules[0] || len(replay.Actions) != len(found.Steps) {
		t.Fatalf("replay file: %+v", replay)
	}

	// The file, against a fresh flawed target, finds the same fault; against
	// the reference server, nothing.
	out.Reset()
	again, err := Run(context.Background(), Options{Target: remote(flawed.Start(t, f)), Replay: replay, Output: &out})
	if !errors.Is(err, ErrFailed) || again.Scenarios[0].Failure.Rules[0] != replay.Finding {
		t.Fatalf("the replay against the flawed target: Run = %v\n%s", err, out.String())
	}
	out.Reset()
	if _, err := Run(context.Background(), Options{Target: inProcess(t), Replay: replay, Output: &out}); err != nil {
		t.Fatalf("the replay against the reference server: Run = %v\n%s", err, out.String())
	}

	// The script, against a fresh flawed target, shows the faulty answer;
	// against the reference server, the right one.
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no curl: .ci/run installs Debian's curl for this check")
		}
		t.Skip("curl is not installed: the scripts cannot be run here (CI installs it)")
	}
	script := filepath.Join(dir, found.Failure.ScriptFile)
	shows := func(base string) string {
		cmd := exec.Command("sh", script)
		c := target.DemoCredentials
		cmd.Env = append(os.Environ(), "BASE_URL="+base, "CONFORMANCE_CLIENT_ID="+c.ClientID, "CONFORMANCE_CLIENT_SECRET="+c.ClientSecret,
			"CONFORMANCE_USERNAME="+c.Username, "CONFORMANCE_PASSWORD="+c.Password, "CONFORMANCE_OTHER_USERNAME="+c.OtherUsername, "CONFORMANCE_OTHER_PASSWORD="+c.OtherPass)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("sh %s: %v\n%s", script, err, b)
		}
		return string(b)
	}
	m := readBackMessage.FindStringSubmatch(found.Failure.Message)
	if m == nil {
		t.Fatalf("the finding says %q", found.Failure.Message)
	}
	faulty, right := `"`+m[1]+`":"`+m[2]+`"`, `"`+m[1]+`":"`+m[3]+`"`
	if got := shows(flawed.Start(t, f)); !strings.Contains(got, faulty) {
		t.Errorf("the script against the flawed target does not show %s:\n%s", faulty, got)
	}
	if got := shows(flawed.Start(t, flawed.Flaw{Name: "none"})); strings.Contains(got, faulty) || !strings.Contains(got, right) {
		t.Errorf("the script against the reference server does not show %s alone:\n%s", right, got)
	}
}

func TestNoSecretReachesTheReports(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	rep, err := Run(context.Background(), Options{Target: remote(flawed.Start(t, flawed.Named(t, "a refreshed token of the other user is offered every event's update-event"))), Seed: 1, Output: &out, ReportDir: dir})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	c := target.DemoCredentials
	secrets := []string{c.ClientSecret + "\"", "password=" + c.Password, c.OtherPass + "\""}
	var texts []string
	texts = append(texts, out.String())
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		// rules.html is the project's documentation, demo credentials and all.
		if err == nil && !info.IsDir() && info.Name() != report.RulesPage {
			b, _ := os.ReadFile(path)
			texts = append(texts, string(b))
		}
		return nil
	})
	var tokens []string
	for _, m := range tokenPattern.FindAllString(strings.Join(texts, "\n"), -1) {
		// Not tokens: the made-up one, a challenge's parameters
		// (WWW-Authenticate), a word of the documentation before an
		// HTML reference ("Bearer header&#34;"; a token the target
		// issued holds no "&").
		word, _, _ := strings.Cut(strings.TrimPrefix(m, "Bearer "), "&")
		if !strings.HasPrefix(m, "Bearer made-up-") && !strings.HasPrefix(m, "Bearer realm=") && len(word) >= 12 {
			tokens = append(tokens, m)
		}
	}
	for _, text := range texts {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("a report holds %q", s)
			}
		}
	}
	if len(tokens) > 0 {
		t.Errorf("the reports hold tokens: %v", tokens)
	}
	if rep.Findings() == 0 {
		t.Fatal("nothing was found, so nothing was shown")
	}
}

// TestAWrongLoginHoldsNothingOfTheRealCredential: the wrong password and
// client secret the exploration sends are made up, so that a finding's
// script and report show nothing of the real ones, short as the demo
// credentials are ("user", "pass"): a target that takes any password and
// any client secret is caught, and no output holds the real ones with a
// word added.
func TestAWrongLoginHoldsNothingOfTheRealCredential(t *testing.T) {
	c := target.DemoCredentials
	anyCredential := flawed.Flaw{Name: "any password and client secret are taken", Request: func(_ *flawed.Proxy, _ http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
		if r.URL.Path != "/oauth/token" {
			return body, false
		}
		form, err := url.ParseQuery(string(body))
		if err != nil || form.Get("grant_type") != "password" {
			return body, false
		}
		if form.Get("username") == c.Username {
			form.Set("password", c.Password)
		}
		r.SetBasicAuth(c.ClientID, c.ClientSecret)
		return []byte(form.Encode()), false
	}}
	dir := t.TempDir()
	var out bytes.Buffer
	rep, err := Run(context.Background(), Options{Target: remote(flawed.Start(t, anyCredential)), Seed: 1, MaxActions: 150, FailedLogins: 100, Output: &out, ReportDir: dir})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	texts := []string{out.String()}
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && info.Name() != report.RulesPage {
			b, _ := os.ReadFile(path)
			texts = append(texts, string(b))
		}
		return nil
	})
	all := strings.Join(texts, "\n")
	for _, rule := range []string{"TOK-3", "TOK-1"} {
		if !strings.Contains(all, rule) {
			t.Errorf("no finding of %s: the wrong login was not taken", rule)
		}
	}
	for _, leak := range []string{c.Password + "-", c.ClientSecret + "-", "password=" + c.Password, "PASSWORD}-", "SECRET}-"} {
		if strings.Contains(all, leak) {
			t.Errorf("a report or the output holds %q", leak)
		}
	}
	if rep.Findings() == 0 {
		t.Fatal("nothing was found")
	}
}

// TestAChecksCountIsAJudgmentMade: the exploration counts a check of a
// rule when it judged an answer by it, not when it set out to: against a
// target whose event list answers nothing, no walk through the list is
// made, and API-5 has no check to pass it.
func TestAChecksCountIsAJudgmentMade(t *testing.T) {
	listNowhere := flawed.Flaw{Name: "the event list is not served", Request: func(_ *flawed.Proxy, w http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
		if r.URL.Path == "/api/events" && r.Method == http.MethodGet {
			http.Error(w, "<html><body>404 Not Found</body></html>", http.StatusNotFound)
			return body, true
		}
		return body, false
	}}
	rep, err := Run(context.Background(), Options{Target: remote(flawed.Start(t, listNowhere)), Seed: 1, MaxActions: 60, ReadOnly: true, Output: io.Discard})
	if rep == nil {
		t.Fatalf("no report: %v", err)
	}
	for _, r := range rep.Rules {
		if r.ID == "API-5" && (r.Checks > 0 || r.Verdict == report.Passed) {
			t.Errorf("API-5: %d checks, %s, of a list never read", r.Checks, r.Verdict)
		}
	}
}

// TestALinkOfferedToEveryoneIsBlamedOnItsRuleAlone: an event that offers
// "update-event" to every caller, anonymous ones too, breaks API-8; the
// callers who sent credentials that open nothing (the client's Basic
// ones, a refresh token) were offered it as everyone is, which breaks no
// rule of theirs (AUTH-1, TOK-13).
func TestALinkOfferedToEveryoneIsBlamedOnItsRuleAlone(t *testing.T) {
	everyone := flawed.Flaw{Name: "every event offers update-event to every caller", Answer: func(_ *flawed.Proxy, r *http.Request, _ []byte, status int, doc map[string]any) {
		if r.Method != http.MethodGet || !flawed.EventPath.MatchString(r.URL.Path) || status != http.StatusOK {
			return
		}
		links, _ := doc["_links"].(map[string]any)
		if links != nil {
			links["update-event"] = links["self"]
		}
	}}
	rep, err := Run(context.Background(), Options{Target: remote(flawed.Start(t, everyone)), Seed: 3, MaxActions: 300, Output: io.Discard})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("Run = %v", err)
	}
	blamed := map[string]bool{}
	for _, s := range rep.Scenarios {
		for _, r := range s.Blamed() {
			blamed[r] = true
		}
	}
	if !blamed["API-8"] || blamed["AUTH-1"] || blamed["TOK-13"] || len(blamed) != 1 {
		t.Errorf("the exploration blames %v, want API-8 alone", blamed)
	}
}
