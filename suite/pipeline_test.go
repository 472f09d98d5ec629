package suite

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"eventsvc/conformance/othersvc"
	"eventsvc/conformance/report"
	"eventsvc/conformance/report/reporttest"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
)

func TestTheJSONReportTellsEveryRuleAndScenario(t *testing.T) {
	dir := t.TempDir()
	_, out, err := runFake(t, Options{Tags: "not @writes", ReportDir: dir})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("Run = %v\n%s", err, out)
	}
	doc := reporttest.Read(t, dir)
	if doc.SchemaVersion != report.ReportSchemaVersion || doc.RunID != "fake" || doc.Suite.Version == "" || doc.Outcome != report.OutcomeFailed || doc.Tags != "not @writes" {
		t.Errorf("run fields: %+v", doc)
	}
	rules := map[string]report.DocumentRule{}
	for _, r := range doc.Rules {
		rules[r.ID] = r
	}
	if r := rules["SVC-2"]; r.Verdict != report.Failed || r.Kind != "spec" {
		t.Errorf("SVC-2: %+v", r)
	}
	if r := rules["API-5"]; r.Verdict != report.NotRun || strings.Join(r.NotRun, ",") != selection.ReasonTarget {
		t.Errorf("API-5: %+v", r)
	}
	if r := rules["API-6"]; r.Verdict != report.NotRun || strings.Join(r.NotRun, ",") != selection.ReasonTags || r.Selected {
		t.Errorf("API-6, left out by the tags: %+v", r)
	}
	if r := rules["API-7"]; r.Verdict != report.NotRun || strings.Join(r.NotRun, ",") != selection.ReasonSlow {
		t.Errorf("API-7, @slow: %+v", r)
	}
	var failed *report.DocumentScenario
	for i, s := range doc.Scenarios {
		if s.Name == "A check that fails" {
			failed = &doc.Scenarios[i]
		}
	}
	if failed == nil || failed.Place != "fake.feature:7" || failed.Attempts != 1 || failed.Failure == nil ||
		failed.Failure.Step != `When a step fails with "the answer had no self link"` || failed.Failure.Message != "the answer had no self link" ||
		!strings.HasPrefix(failed.Failure.Exchange, "request:") {
		t.Errorf("the failed scenario: %+v %+v", failed, failed.Failure)
	}
	page := readHTML(t, dir)
	for _, want := range []string{
		`<span class="outcome failed">failed</span>`, `<a href="#SVC-2">SVC-2</a>`, `<section class="rule" id="SVC-2">`,
		`<li class="failed">When a step fails with &#34;the answer had no self link&#34; <span class="place">(line 9)</span></li>`,
		"<pre>request:\nGET /api/events HTTP/1.1\nX-Trace: a-very-long", "Not run: the event list has one page",
		"Resource responses are HAL", `<h2 id="failures">Failures</h2>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("conformance.html lacks %q", want)
		}
	}
}

func TestAScenarioThatPassesOnARetryIsFlaky(t *testing.T) {
	dir := t.TempDir()
	calls := 0
	rep, out, err := runFake(t, Options{Tags: "@SVC-1", Retries: 2, ReportDir: dir, Steps: fakeSteps(func() error {
		calls++
		if calls == 1 {
			return errors.New("connection reset by peer")
		}
		return nil
	})})
	if err != nil {
		t.Fatalf("Run = %v\n%s", err, out)
	}
	s := scenarioNamed(t, rep, "A check that holds")
	if s.Verdict != report.Flaky || s.Attempts != 2 || ruleNamed(rep, "SVC-1").Verdict != report.Flaky {
		t.Errorf("verdict %q after %d attempts, rule %q", s.Verdict, s.Attempts, ruleNamed(rep, "SVC-1").Verdict)
	}
	if !strings.Contains(out, "flaky (failed, then passed on a retry): SVC-1") || !strings.Contains(out, "1 flaky") {
		t.Errorf("the output does not say the rule is flaky:\n%s", out)
	}
	doc := reporttest.Read(t, dir)
	if doc.Counts[report.Flaky] != 1 || doc.Counts[report.Passed] != 0 || doc.Retries != 2 {
		t.Errorf("conformance.json counts %v, retries %d", doc.Counts, doc.Retries)
	}
	if !strings.Contains(readHTML(t, dir), `<span class="v flaky">flaky</span>`) {
		t.Error("conformance.html does not show the flaky scenario")
	}

	// Without retries the same failure fails the run.
	calls = 0
	if _, _, err := runFake(t, Options{Tags: "@SVC-1", Steps: fakeSteps(func() error {
		calls++
		if calls == 1 {
			return errors.New("connection reset by peer")
		}
		return nil
	})}); !errors.Is(err, ErrFailed) {
		t.Errorf("without retries: Run = %v, want a failure", err)
	}
}

func writeBaseline(t *testing.T, text string) *report.Baseline {
	t.Helper()
	path := filepath.Join(t.TempDir(), "expected.json")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	bl, err := report.ReadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	return bl
}

// TestABaselineAcceptsAKnownDeviationAndFailsWhenItIsStale runs the
// second implementation with a deliberate fault (a non-manager's update
// answered 401, AUTH-6) and a baseline entry for it: the run passes and
// both reports say "expected failure". Without the fault the entry is
// stale, and the run fails.
func TestABaselineAcceptsAKnownDeviationAndFailsWhenItIsStale(t *testing.T) {
	bl := writeBaseline(t, `{"expectedFailures": [{"rule": "AUTH-6", "reason": "TICKET-12: non-managers get 401"}]}`)
	run := func(flaws othersvc.Flaws) (*report.Report, string, string, error) {
		srv := othersvc.Start(t, othersvc.Config{Flaws: flaws})
		dir := t.TempDir()
		var out bytes.Buffer
		rep, err := Run(Options{
			Target: target.Target{BaseURL: srv.URL, Credentials: othersvc.Creds, RunID: "baseline", EventBody: []byte(othersvc.EventBody)},
			Tags:   selection.RemoteTags + " && (@AUTH-6 or @SVC-1)", Baseline: bl, ReportDir: dir, Output: &out,
		})
		return rep, out.String(), dir, err
	}
	rep, out, dir, err := run(othersvc.Flaws{NonManager401: true})
	if err != nil {
		t.Fatalf("with the fault and its entry: Run = %v\n%s", err, out)
	}
	if r := ruleNamed(rep, "AUTH-6"); r.Verdict != report.ExpectedFailure || r.Expectation != "TICKET-12: non-managers get 401" {
		t.Errorf("AUTH-6: %q %q", r.Verdict, r.Expectation)
	}
	doc := reporttest.Read(t, dir)
	for _, r := range doc.Rules {
		if r.ID == "AUTH-6" && (r.Verdict != report.ExpectedFailure || r.Expectation == "") {
			t.Errorf("conformance.json AUTH-6: %+v", r)
		}
	}
	if len(doc.Baseline) != 1 || doc.Baseline[0].Status != report.EntryExpected {
		t.Errorf("conformance.json baseline: %+v", doc.Baseline)
	}
	if page := readHTML(t, dir); !strings.Contains(page, `<section class="rule" id="AUTH-6">
<h2><span class="v expected-failure">expected failure</span> AUTH-6`) {
		t.Error("conformance.html does not show AUTH-6 as an expected failure")
	}
	if !strings.Contains(out, "AUTH-6   EXPECTED FAILURE") {
		t.Errorf("the output does not show the expected failure:\n%s", out)
	}

	rep, out, dir, err = run(othersvc.Flaws{})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("without the fault: Run = %v, want a failure on the stale entry\n%s", err, out)
	}
	if r := ruleNamed(rep, "AUTH-6"); r.Verdict != report.Passed || !r.Stale {
		t.Errorf("AUTH-6 without the fault: %q, stale %v", r.Verdict, r.Stale)
	}
	if !strings.Contains(out, "stale baseline entry: rule AUTH-6") {
		t.Errorf("the closing line does not name the stale entry:\n%s", out)
	}
	if doc := reporttest.Read(t, dir); doc.Outcome != report.OutcomeFailed || doc.Baseline[0].Status != report.EntryStale {
		t.Errorf("conformance.json: outcome %q, baseline %+v", doc.Outcome, doc.Baseline)
	}
}

func TestABaselineEntryNamingNothingKnownStopsTheRun(t *testing.T) {
	for text, want := range map[string]string{
		`{"expectedFailures": [{"rule": "AUTH-66", "reason": "x"}]}`:                    "rule AUTH-66 is not a rule of docs/rules.md",
		`{"expectedFailures": [{"scenario": "A scenario that is not", "reason": "x"}]}`: `scenario "A scenario that is not" names no scenario`,
	} {
		bl := writeBaseline(t, text)
		_, _, err := runFake(t, Options{Baseline: bl})
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: Run = %v, want %q", text, err, want)
		}
	}
	for text, want := range map[string]string{
		`{"expectedFailures": [{"rule": "AUTH-6"}]}`:                                 "has no reason",
		`{"expectedFailures": [{"rule": "AUTH-6", "scenario": "x", "reason": "y"}]}`: "both a rule and a scenario",
		`{"expected": []}`:                        "unknown field",
		`{"expectedFailures": [{"reason": "y"}]}`: "neither a rule nor a scenario",
	} {
		path := filepath.Join(t.TempDir(), "expected.json")
		os.WriteFile(path, []byte(text), 0o600)
		if _, err := report.ReadBaseline(path); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: ReadBaseline = %v, want %q", text, err, want)
		}
	}
	// A scenario entry by name, by an outline row's name and by place.
	bl := writeBaseline(t, `{"expectedFailures": [{"scenario": "A check that fails", "reason": "known"}, {"scenario": "fake.feature:7", "reason": "known"}]}`)
	rep, out, err := runFake(t, Options{Tags: "@SVC-2", Baseline: bl})
	if err != nil || scenarioNamed(t, rep, "A check that fails").Verdict != report.ExpectedFailure {
		t.Errorf("a scenario entry: Run = %v\n%s", err, out)
	}
}

// comparable is a report without what changes from run to run: times.
func comparable(t *testing.T, dir string) report.Document {
	doc := reporttest.Read(t, dir)
	doc.Started, doc.DurationMs, doc.Concurrency, doc.RunID = "", 0, 0, ""
	for i := range doc.Rules {
		// How many answers the audit checked depends on how many
		// requests the scenarios sent: a shared token, or their own.
		doc.Rules[i].Checks = 0
	}
	for i := range doc.Scenarios {
		doc.Scenarios[i].DurationMs = 0
		if f := doc.Scenarios[i].Failure; f != nil {
			// The events' ids and the Date headers differ, and so does
			// the number of exchanges (whether a scenario asked for a
			// shared token itself); whether the last is the failing one
			// does not.
			last := f.FailingExchange > 0 && f.FailingExchange == len(f.Exchanges)
			f.Message, f.Exchange, f.Exchanges, f.FailingExchange = "", "", nil, 0
			if last {
				f.FailingExchange = 1
			}
		}
	}
	return doc
}

func TestAConcurrentRunReportsWhatASerialRunDoes(t *testing.T) {
	srv := othersvc.Start(t, othersvc.Config{Flaws: othersvc.Flaws{NonManager401: true}})
	reports := map[int]report.Document{}
	for _, n := range []int{1, 4} {
		dir := t.TempDir()
		var out bytes.Buffer
		_, err := Run(Options{
			Target: target.Target{BaseURL: srv.URL, Credentials: othersvc.Creds, RunID: "concurrent", EventBody: []byte(othersvc.EventBody)},
			Tags:   selection.RemoteTags + " && (@AUTH-6 or @API-5 or @TOK-3 or @API-8 or @SVC-4)", Concurrency: n, ReportDir: dir, Output: &out,
		})
		if !errors.Is(err, ErrFailed) {
			t.Fatalf("concurrency %d: Run = %v\n%s", n, err, out.String())
		}
		reports[n] = comparable(t, dir)
	}
	if !reflect.DeepEqual(reports[1], reports[4]) {
		a, _ := json.MarshalIndent(reports[1], "", " ")
		b, _ := json.MarshalIndent(reports[4], "", " ")
		t.Errorf("the reports of a serial and a concurrent run differ:\n%s\n---\n%s", a, b)
	}
}

// TestABaselineEntryExcusesItsRuleOnly: a baseline that expects API-8 to
// fail lets a run whose only fault breaks API-8 pass, and the other rules
// of the failing scenario (SVC-3) are not made expected failures by it.
func TestABaselineEntryExcusesItsRuleOnly(t *testing.T) {
	srv := othersvc.Start(t, othersvc.Config{Flaws: othersvc.Flaws{UpdateLinkForAnyone: true}})
	bl := writeBaseline(t, `{"expectedFailures": [{"rule": "API-8", "reason": "TICKET-12: everyone may update"}]}`)
	var out bytes.Buffer
	rep, err := Run(Options{
		Target: target.Target{BaseURL: srv.URL, Credentials: othersvc.Creds, RunID: "baseline", EventBody: []byte(othersvc.EventBody)},
		Tags:   selection.RemoteTags + " and (@API-8 or @SVC-3)", Baseline: bl, Output: &out,
	})
	if err != nil {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	for _, r := range rep.Rules {
		switch r.ID {
		case "API-8":
			if r.Verdict != report.ExpectedFailure {
				t.Errorf("API-8: %s, want an expected failure", r.Verdict)
			}
		case "SVC-3":
			if r.Verdict != report.Passed {
				t.Errorf("SVC-3: %s, want passed: the entry for API-8 excuses no other rule", r.Verdict)
			}
		}
	}
	if strings.Contains(out.String(), "FAILED ") {
		t.Errorf("an expected failure is shown as FAILED:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "expected by the baseline (") {
		t.Errorf("the expected failure does not name its scenario:\n%s", out.String())
	}
}

// TestEveryReportBlamesTheSameRule runs the scenario of the token answer
// against a target whose token_type is "mac", and reads each report: the
// console, conformance.json, conformance.html, junit.xml and cucumber.json
// all fail TOK-5 alone and leave the scenario's other rules not checked.
func TestEveryReportBlamesTheSameRule(t *testing.T) {
	srv := othersvc.Start(t, othersvc.Config{Flaws: othersvc.Flaws{TokenTypeMAC: true}})
	dir := t.TempDir()
	var out bytes.Buffer
	rep, err := Run(Options{
		Target:    target.Target{BaseURL: srv.URL, Credentials: othersvc.Creds, RunID: "agree", EventBody: []byte(othersvc.EventBody)},
		Tags:      "@TOK-5",
		ReportDir: dir,
		Output:    &out,
	})
	if err == nil {
		t.Fatalf("the run passed\n%s", out.String())
	}
	const blame = "fails TOK-5; not checked: "
	if !strings.Contains(out.String(), blame) {
		t.Errorf("the console does not say %q:\n%s", blame, out.String())
	}
	for _, r := range rep.Rules {
		if r.Verdict == report.Failed && r.ID != "TOK-5" {
			t.Errorf("the run fails %s", r.ID)
		}
	}

	doc := reporttest.Read(t, dir)
	failed := 0
	for _, s := range doc.Scenarios {
		if s.Verdict == report.Failed {
			failed++
			if !slices.Equal(s.Blamed, []string{"TOK-5"}) || s.Failure == nil || !slices.Equal(s.Failure.Rules, []string{"TOK-5"}) {
				t.Errorf("conformance.json blames %v (failure %+v)", s.Blamed, s.Failure)
			}
		}
	}
	for _, r := range doc.Rules {
		if (r.Verdict == report.Failed) != (r.ID == "TOK-5") {
			t.Errorf("conformance.json: %s %s", r.ID, r.Verdict)
		}
	}
	if failed != 1 {
		t.Errorf("conformance.json has %d failed scenarios, want 1", failed)
	}

	if page := readHTML(t, dir); strings.Count(page, blame) != 1 {
		t.Errorf("conformance.html says %q %d times, want once", blame, strings.Count(page, blame))
	}

	junit := readJUnit(t, dir)
	failures := 0
	for _, s := range junit.Suites {
		for _, c := range s.Cases {
			if c.Failure == nil {
				continue
			}
			failures++
			if !strings.HasPrefix(c.Failure.Message, blame) {
				t.Errorf("junit.xml failure message %q", c.Failure.Message)
			}
			var blamed []string
			for _, p := range c.Props {
				if p.Name == "failed rule" {
					blamed = append(blamed, p.Value)
				}
			}
			if !slices.Equal(blamed, []string{"TOK-5"}) {
				t.Errorf("junit.xml failed rules %v", blamed)
			}
		}
	}
	if failures != 1 {
		t.Errorf("junit.xml has %d failures, want 1", failures)
	}

	var cucumber []struct {
		Elements []struct {
			Steps []struct {
				Result struct {
					Status string `json:"status"`
					Error  string `json:"error_message"`
				} `json:"result"`
			} `json:"steps"`
		} `json:"elements"`
	}
	readFile(t, filepath.Join(dir, report.CucumberReport), func(b []byte) error { return json.Unmarshal(b, &cucumber) })
	var errs []string
	for _, f := range cucumber {
		for _, el := range f.Elements {
			for _, st := range el.Steps {
				if st.Result.Status == "failed" {
					errs = append(errs, st.Result.Error)
				}
			}
		}
	}
	if len(errs) != 1 || !strings.HasPrefix(errs[0], blame) {
		t.Errorf("cucumber.json's failed steps say %q, want one starting %q", errs, blame)
	}
}

// readFile reads a file and decodes it with decode, failing t on either.
func readFile(t *testing.T, path string, decode func([]byte) error) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := decode(b); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
