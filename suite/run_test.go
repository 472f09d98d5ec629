package suite

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"eventsvc/conformance/inprocess"
	"eventsvc/conformance/report"
	"eventsvc/conformance/report/reporttest"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
	"eventsvc/internal/browsertest"

	"github.com/chromedp/chromedp"
	"github.com/cucumber/godog"
)

// fakeFeature exercises the runner with steps of its own (fakeSteps): a
// pass, a failure, a skip with a reason, an outline, a scenario that
// writes and one that waits.
const fakeFeature = `Feature: The runner's own checks
  @spec @SVC-1
  Scenario: A check that holds
    Given a step that passes

  @spec @SVC-2
  Scenario: A check that fails
    Given a step that passes
    When a step fails with "the answer had no self link"
    Then a step that passes

  @spec @API-5
  Scenario: A check the target cannot show
    Given a step that passes
    When the target cannot show it because the event list has one page
    Then a step that passes

  @spec
  Scenario Outline: An outline
    Given a step that passes
    And a step that gets <value>

    @API-1
    Examples:
      | value |
      | one   |
      | two   |

  @spec @writes @API-6
  Scenario: A check that writes
    Given a step that passes

  @ref @slow @API-7
  Scenario: A check that waits
    Given it waits 300 ms
`

// longValue is a header value of the failing step's exchange: a line no
// narrow screen holds.
var longValue = strings.Repeat("a-very-long-unbroken-value-", 20)

// fakeSteps are the steps of fakeFeature. check, when set, runs in the
// step "a step that passes".
func fakeSteps(check func() error) func(target.Target) func(*godog.ScenarioContext) {
	return func(target.Target) func(*godog.ScenarioContext) {
		return func(sc *godog.ScenarioContext) {
			sc.Step(`^a step that passes$`, func() error {
				if check != nil {
					return check()
				}
				return nil
			})
			sc.Step(`^a step that gets (\w+)$`, func(string) error { return nil })
			sc.Step(`^a step fails with "([^"]*)"$`, func(m string) error {
				return errors.New(m + "\n\nrequest:\nGET /api/events HTTP/1.1\nX-Trace: " + longValue)
			})
			sc.Step(`^the target cannot show it because (.*)$`, func(r string) error { return fmt.Errorf("%w: %s", godog.ErrSkip, r) })
			sc.Step(`^it waits (\d+) ms$`, func(ms int) error { time.Sleep(time.Duration(ms) * time.Millisecond); return nil })
		}
	}
}

func runFake(t *testing.T, o Options) (*report.Report, string, error) {
	t.Helper()
	var out bytes.Buffer
	if o.Target.Launcher == nil && o.Target.BaseURL == "" {
		o.Target.Launcher = inprocess.Launcher{Credentials: target.DemoCredentials}
	}
	o.Target.Credentials, o.Target.RunID = target.DemoCredentials, "fake"
	o.Features = fstest.MapFS{"fake.feature": {Data: []byte(fakeFeature)}}
	if o.Steps == nil {
		o.Steps = fakeSteps(nil)
	}
	o.Output = &out
	rep, err := Run(o)
	return rep, out.String(), err
}

func TestAScenarioAStepSkipsIsNotRunWithTheStepsReason(t *testing.T) {
	rep, out, err := runFake(t, Options{Tags: "@API-5 or @SVC-1"})
	if err != nil {
		t.Fatalf("Run = %v\n%s", err, out)
	}
	s := scenarioNamed(t, rep, "A check the target cannot show")
	if s.Verdict != report.NotRun || s.Reason != selection.ReasonTarget || s.Detail != "the event list has one page" {
		t.Errorf("skipped scenario: verdict %q, reason %q, detail %q", s.Verdict, s.Reason, s.Detail)
	}
	if r := ruleNamed(rep, "API-5"); r.Verdict != report.NotRun || !r.Selected {
		t.Errorf("API-5, whose only scenario was skipped: %q (selected %v), want not run", r.Verdict, r.Selected)
	}
	if !strings.Contains(out, "NOT RUN  fake.feature:13  A check the target cannot show — the event list has one page") {
		t.Errorf("the output does not say why the scenario was not run:\n%s", out)
	}
	if !strings.Contains(out, "API-5    NOT RUN            the event list has one page") {
		t.Errorf("the rule's line does not say why:\n%s", out)
	}
}

func TestOutputListsTheSelectedRulesAndEndsWithAVerdict(t *testing.T) {
	rep, out, err := runFake(t, Options{Tags: "@SVC-1"})
	if err != nil {
		t.Fatalf("Run = %v\n%s", err, out)
	}
	if strings.Contains(out, "  SVC-2 ") || strings.Contains(out, "  AUTH-6 ") {
		t.Errorf("the output gives a verdict on rules the run did not select:\n%s", out)
	}
	if !strings.Contains(out, "  SVC-1    PASSED") {
		t.Errorf("the output lacks the selected rule:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	// It passed, but on one rule of the specification: the others are
	// said not checked, the tags having left them out.
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "PASSED, but 49 spec rules NOT CHECKED: SVC-2, SVC-3,") ||
		!strings.Contains(last, " — the tags left them out") || !strings.Contains(last, ". Rules: 1 passed, 0 failed; 1 scenario in") {
		t.Errorf("the last line is %q, want a closing verdict", last)
	}
	if strings.Contains(out, "\x1b[") || strings.Contains(out, ".go:") {
		t.Errorf("colour or step locations in the output:\n%s", out)
	}
	if rep.Outcome != report.OutcomePassed {
		t.Errorf("outcome %q", rep.Outcome)
	}
}

func TestFailuresComeInFullAtTheEndAndPrettyShowsEveryStep(t *testing.T) {
	_, out, err := runFake(t, Options{Tags: "@SVC-2 or @SVC-1"})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("Run = %v", err)
	}
	failures, _, ok := strings.Cut(out[strings.Index(out, "\nFailures:"):], "\nRules:")
	if !ok || !strings.Contains(failures, "When a step fails with \"the answer had no self link\"") ||
		!strings.Contains(failures, "the answer had no self link") || !strings.Contains(failures, "GET /api/events HTTP/1.1") {
		t.Errorf("the failures section lacks the step, message or exchange:\n%s", out)
	}
	if !strings.Contains(out, "FAILED: 1 passed, 1 failed (SVC-2)") {
		t.Errorf("no closing FAILED line naming the rule:\n%s", out)
	}

	_, pretty, _ := runFake(t, Options{Tags: "@SVC-2", Format: report.FormatPretty, Color: true})
	for _, want := range []string{"Feature:", "Scenario:", "    \x1b[32mGiven a step that passes\x1b[0m", "\x1b[31mWhen a step fails with"} {
		if !strings.Contains(pretty, want) {
			t.Errorf("the pretty output lacks %q:\n%s", want, pretty)
		}
	}
	if strings.Contains(pretty, "->") || strings.Contains(pretty, ".go:") {
		t.Errorf("the pretty output shows step definition locations:\n%s", pretty)
	}
}

func TestSlowScenariosOnlyWhenAskedAndAProgressLineWhileTheyWait(t *testing.T) {
	plan, _, err := plan(Options{Tags: "~@writes", Features: fstest.MapFS{"fake.feature": {Data: []byte(fakeFeature)}}, Target: target.Target{Launcher: inprocess.Launcher{}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plan {
		if strings.Contains(p.Name, "waits") && (p.Run || p.Reason != selection.ReasonSlow) {
			t.Errorf("~@writes selects the @slow scenario (run %v, reason %q)", p.Run, p.Reason)
		}
	}
	rep, out, err := runFake(t, Options{Tags: "@slow", Progress: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("Run = %v\n%s", err, out)
	}
	if scenarioNamed(t, rep, "A check that waits").Verdict != report.Passed {
		t.Errorf("@slow did not select the slow scenario:\n%s", out)
	}
	if !strings.Contains(out, "… still running after") || !strings.Contains(out, "A check that waits (fake.feature:34; @slow") {
		t.Errorf("no progress line while the scenario waited:\n%s", out)
	}
}

func TestJUnitFitsCITestViews(t *testing.T) {
	dir := t.TempDir()
	_, out, err := runFake(t, Options{Tags: "not @slow", ReadOnly: true, ReportDir: dir})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("Run = %v\n%s", err, out)
	}
	reporttest.Check(t, dir)
	doc := readJUnit(t, dir)
	if len(doc.Suites) != 2 || !strings.HasPrefix(doc.Suites[0].Name, "NOT CHECKED: ") {
		t.Fatalf("junit.xml's suites: %d, the first %q; want the rules not checked, then the feature", len(doc.Suites), doc.Suites[0].Name)
	}
	doc.Suites = doc.Suites[1:] // the feature's
	cases := map[string]int{}
	for i, c := range doc.Suites[0].Cases {
		cases[c.Name] = i
		if c.Classname != "The runner's own checks" {
			t.Errorf("%s: classname %q, want the feature", c.Name, c.Classname)
		}
	}
	get := func(name string) int {
		i, ok := cases[name]
		if !ok {
			t.Fatalf("no test case %q in %v", name, cases)
		}
		return i
	}
	c := doc.Suites[0].Cases[get("A check that fails")]
	if c.Failure == nil || !strings.Contains(c.Failure.Text, "the answer had no self link") || !strings.Contains(c.Failure.Text, "GET /api/events") ||
		!strings.Contains(c.Failure.Text, "When a step fails with") || c.Failure.Message != "fails SVC-2: the answer had no self link" {
		t.Errorf("the failure element does not hold the failure's text: %+v", c.Failure)
	}
	var rules []string
	for _, p := range c.Props {
		if p.Name == "rule" {
			rules = append(rules, p.Value)
		}
	}
	if strings.Join(rules, ",") != "SVC-2" {
		t.Errorf("rule properties %v, want SVC-2", rules)
	}
	get("An outline (value: one)")
	get("An outline (value: two)")
	skipped := doc.Suites[0].Cases[get("A check the target cannot show")]
	if skipped.Skipped == nil || skipped.Skipped.Message != "the event list has one page" || skipped.Error != nil {
		t.Errorf("a skipped scenario is not <skipped> with its reason: %+v", skipped)
	}
	ro := doc.Suites[0].Cases[get("A check that writes")]
	if ro.Skipped == nil || !strings.Contains(ro.Skipped.Message, "read-only") {
		t.Errorf("a scenario left out by -read-only is not skipped with the reason: %+v", ro)
	}
}

func TestReportsSayARunHasNotFinishedUntilItHas(t *testing.T) {
	dir := t.TempDir()
	var during, duringJSON string
	_, out, err := runFake(t, Options{Tags: "@SVC-1", ReportDir: dir, Steps: fakeSteps(func() error {
		b, err := os.ReadFile(filepath.Join(dir, report.JUnitReport))
		during = string(b)
		j, _ := os.ReadFile(filepath.Join(dir, report.JSONReport))
		duringJSON = string(j)
		return err
	})})
	if err != nil {
		t.Fatalf("Run = %v\n%s", err, out)
	}
	if !strings.Contains(during, "did not finish") || !strings.Contains(duringJSON, `"outcome": "incomplete"`) {
		t.Errorf("during the run, the reports do not say the run has not finished:\n%s\n%s", during, duringJSON)
	}
	reporttest.CheckJSON(t, []byte(duringJSON))
	reporttest.Check(t, dir)
	after := readJUnit(t, dir)
	if len(after.Suites) != 2 || !strings.HasPrefix(after.Suites[0].Name, "NOT CHECKED: ") || after.Suites[1].Cases[0].Name != "A check that holds" {
		t.Errorf("after the run junit.xml is not its result: %+v", after)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("a temporary file is left: %s", e.Name())
		}
	}
}

func TestLocalScenariosAgainstADeploymentAreNotRunWithTheReason(t *testing.T) {
	inst, err := inprocess.Launcher{Credentials: target.DemoCredentials}.Launch(target.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	var out bytes.Buffer
	rep, err := Run(Options{
		Target: target.Target{BaseURL: inst.BaseURL(), Credentials: target.DemoCredentials, RunID: "local"},
		Tags:   "@ACC-2 or @SVC-1", Output: &out,
	})
	if err != nil {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	acc2 := ruleNamed(rep, "ACC-2")
	if acc2.Verdict != report.NotRun || len(acc2.Reasons) != 1 || acc2.Reasons[0] != selection.ReasonLocal {
		t.Errorf("ACC-2 against a deployment: %q %v, want not run for @local", acc2.Verdict, acc2.Reasons)
	}
	if ruleNamed(rep, "SVC-1").Verdict != report.Passed {
		t.Errorf("SVC-1 did not pass:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "ACC-2    NOT RUN            @local: needs the in-process reference server") {
		t.Errorf("the output does not say why ACC-2 was not run:\n%s", out.String())
	}

	_, err = Run(Options{Target: target.Target{BaseURL: inst.BaseURL(), Credentials: target.DemoCredentials}, Tags: "@ACC-2", Output: &out})
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "select no scenario this run can check: 2 @local") {
		t.Errorf("a selection of only @local scenarios against a deployment: %v", err)
	}
}

// TestTheHTMLReportInARealBrowser opens the conformance.html of a failing
// run, with long lines in its exchanges, from the file system in headless
// Chromium at phone width: no console message, no uncaught exception, no
// request but for the file itself, no script, nothing wider than the
// screen, and the failure open with its exchange.
func TestTheHTMLReportInARealBrowser(t *testing.T) {
	browsertest.Chromium(t)
	dir := t.TempDir()
	long := longValue
	_, out, err := runFake(t, Options{Tags: "@SVC-2 or @SVC-1 or @API-5", ReportDir: dir})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("Run = %v\n%s", err, out)
	}
	page := "file://" + filepath.Join(dir, report.HTMLReport)

	var open, first bool
	rendered := browsertest.Load(t, page, browsertest.Options{
		Ready:      "#SVC-2",
		OnlyItself: true,
		Actions: []chromedp.Action{
			chromedp.Evaluate(`document.querySelector("section.failure details").open`, &open),
			// The failures come before the rules.
			chromedp.Evaluate(`document.querySelector("#failures").compareDocumentPosition(document.querySelector("#rules")) === Node.DOCUMENT_POSITION_FOLLOWING`, &first),
		},
	})
	for _, p := range rendered.Problems {
		t.Errorf("the browser reports %s", p)
	}
	scripts, overflow, text := rendered.Scripts, rendered.Overflow, rendered.Text
	if scripts != 0 {
		t.Errorf("the report has %d scripts", scripts)
	}
	if overflow > 0 {
		t.Errorf("at phone width the report is %d pixels wider than the screen", overflow)
	}
	if !open {
		t.Error("the failure's exchange is not open")
	}
	if !first {
		t.Error("the failures do not come first")
	}
	for _, want := range []string{"Conformance of in-process", "SVC-2", "GET /api/events HTTP/1.1", long[:100], "Not run: the event list has one page", "Resource responses are HAL", "fails SVC-2"} {
		if !strings.Contains(text, want) {
			t.Errorf("the rendered report lacks %q", want)
		}
	}

	// The rule links lead to the project's catalogue saved beside the
	// report, which stands alone too.
	var link string
	catalogue := browsertest.Load(t, page, browsertest.Options{
		Ready: "#SVC-2",
		Actions: []chromedp.Action{
			chromedp.Evaluate(`document.querySelector("#SVC-2 a.catalogue").href`, &link),
		},
	})
	if want := "file://" + filepath.Join(dir, report.RulesPage) + "#SVC-2"; link != want {
		t.Fatalf("the catalogue link of SVC-2 is %q, want %q", link, want)
	}
	var heading string
	rules := browsertest.Load(t, link, browsertest.Options{
		Ready:      "#SVC-2",
		OnlyItself: true,
		Actions: []chromedp.Action{
			chromedp.Evaluate(`document.getElementById("SVC-2").textContent`, &heading),
		},
	})
	for _, p := range append(catalogue.Problems, rules.Problems...) {
		t.Errorf("the browser reports %s", p)
	}
	if !strings.Contains(heading, "SVC-2") {
		t.Errorf("the catalogue's SVC-2 reads %q", heading)
	}
}
