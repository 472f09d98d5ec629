package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"html"
	"slices"
	"strings"
	"testing"
	"time"

	"eventsvc/conformance/selection"
	"eventsvc/docs"
	"eventsvc/internal/version"
)

// remoteDefault is the report of a passed run against a deployment with
// the default selection: every rule of the specification checked but the
// token lifetimes, whose scenarios move a clock (@clock) or wait in real
// time (@slow), and the reference server's configuration (@local); the
// reference server's choices (@ref) left out.
func remoteDefault(t *testing.T) *Report {
	t.Helper()
	catalogue := ruleCatalogue(t)
	var scenarios []*ScenarioResult
	add := func(id, verdict, reason string, tags ...string) {
		p := &selection.Planned{Feature: "Rules", File: "rules.feature", Line: len(scenarios) + 1, Name: "A scenario of " + id,
			Rules: []string{id}, Tags: append(tags, "@"+id), Run: reason == "", Reason: reason}
		s := &ScenarioResult{Planned: p, Verdict: verdict}
		if verdict == Passed {
			s.Attempts = 1
		}
		scenarios = append(scenarios, s)
	}
	for _, r := range catalogue.Rules() {
		switch {
		case r.Kind != docs.Spec:
			add(r.ID, NotRun, selection.ReasonRef, "@ref")
		case slices.Contains([]string{"CLI-5", "CLI-6", "LIM-1", "LIM-2"}, r.ID):
			add(r.ID, NotRun, selection.ReasonClock, "@spec", "@local", "@clock")
			if strings.HasPrefix(r.ID, "LIM-") {
				add(r.ID, NotRun, selection.ReasonSlow, "@spec", "@slow")
			}
		case slices.Contains([]string{"ACC-2", "ACC-3", "ACC-4", "CLI-2", "CLI-7"}, r.ID):
			add(r.ID, NotRun, selection.ReasonLocal, "@spec", "@local")
		default:
			add(r.ID, Passed, "", "@spec")
		}
	}
	return &Report{Target: "https://staging.example", RunID: "20261124T141500Z", Version: version.Get(), Outcome: OutcomePassed,
		Started: time.Date(2026, 11, 24, 14, 15, 0, 0, time.UTC), Duration: time.Second,
		Scenarios: scenarios, Rules: RuleResults(catalogue, scenarios)}
}

const (
	lifetimesNotChecked = "LIM-1, LIM-2, CLI-5, CLI-6 — token lifetimes need -slow (about 1 h) or -control-url"
	localNotChecked     = "ACC-2, ACC-3, ACC-4, CLI-2, CLI-7 — the reference server's configuration rules"
	passedButNotChecked = "PASSED, but 9 spec rules NOT CHECKED: " + lifetimesNotChecked + "; " + localNotChecked
)

// TestEveryReportLeadsWithTheRulesNotChecked: a run that passed but left
// rules of the specification unchecked says so first, grouped by why,
// each group with what checks it: the console's first verdict line of the
// summary and its closing line, conformance.json's first fields (valid by
// its schema), the top of conformance.html, JUnit's first test suite (a
// skipped test case per group, what CI test views show) and a property
// of every suite, Cucumber's first feature and every feature's
// description.
func TestEveryReportLeadsWithTheRulesNotChecked(t *testing.T) {
	rep := remoteDefault(t)
	groups := rep.NotChecked()
	if len(groups) != 2 || groups[0].Why != WhyLifetimes || groups[1].Why != WhyLocal || !groups[1].Beyond || groups[0].Beyond {
		t.Fatalf("not checked: %+v, want the lifetimes, then the configuration (beyond a remote run)", groups)
	}
	if got := rep.Unchecked(); !slices.Equal(got, []string{"LIM-1", "LIM-2", "CLI-5", "CLI-6"}) {
		t.Errorf("the rules another run could check: %v, want the lifetimes", got)
	}
	if h := rep.Headline(); !strings.HasPrefix(h, passedButNotChecked) {
		t.Errorf("headline %q, want it to begin %q", h, passedButNotChecked)
	}
	checkConsoleLeadsWithNotChecked(t, rep)
	w := writeReports(t, rep)
	checkJSONLeadsWithNotChecked(t, w)
	checkHTMLLeadsWithNotChecked(t, w)
	checkJUnitLeadsWithNotChecked(t, w)
	checkCucumberLeadsWithNotChecked(t, w)
}

// checkConsoleLeadsWithNotChecked checks that the console's summary of
// rep begins with the rules not checked, by group, and ends with them.
func checkConsoleLeadsWithNotChecked(t *testing.T, rep *Report) {
	var console bytes.Buffer
	NewConsole(&console, FormatCompact, false).Summary(rep)
	lines := strings.Split(strings.TrimSpace(console.String()), "\n")
	var verdicts []string // the lines after the suite's
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) != "" {
			verdicts = append(verdicts, l)
		}
	}
	if len(verdicts) < 3 || verdicts[0] != "NOT CHECKED: 9 rules of the specification" ||
		!strings.HasPrefix(verdicts[1], "  "+lifetimesNotChecked) || !strings.HasPrefix(verdicts[2], "  "+localNotChecked) {
		t.Errorf("the summary does not begin with the rules not checked, by group:\n%s", console.String())
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, passedButNotChecked) || !strings.Contains(last, "Rules: ") {
		t.Errorf("the closing line is %q, want it to begin %q", last, passedButNotChecked)
	}
}

// checkJSONLeadsWithNotChecked checks that conformance.json, valid by its
// schema, begins with its headline and the rules not checked.
func checkJSONLeadsWithNotChecked(t *testing.T, w written) {
	doc := w.read(JSONReport)
	checkSchema(t, doc)
	if h, s := bytes.Index(doc, []byte(`"headline"`)), bytes.Index(doc, []byte(`"suite"`)); h < 0 || h > s || bytes.Index(doc, []byte(`"notChecked"`)) > s {
		t.Errorf("conformance.json does not begin with its headline and the rules not checked:\n%.600s", doc)
	}
	var parsed Document
	if err := json.Unmarshal(doc, &parsed); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(parsed.Headline, passedButNotChecked) || len(parsed.NotChecked) != 2 ||
		!slices.Equal(parsed.NotChecked[0].Rules, []string{"LIM-1", "LIM-2", "CLI-5", "CLI-6"}) || parsed.NotChecked[0].Why != WhyLifetimes ||
		parsed.NotChecked[1].Why != WhyLocal || !parsed.NotChecked[1].Beyond {
		t.Errorf("conformance.json: headline %q, notChecked %+v", parsed.Headline, parsed.NotChecked)
	}
}

// checkHTMLLeadsWithNotChecked checks that the top of conformance.html,
// and its title, say which rules were not checked.
func checkHTMLLeadsWithNotChecked(t *testing.T, w written) {
	page := string(w.read(HTMLReport))
	header, _, _ := strings.Cut(page, `<dl class="run">`)
	for _, want := range []string{"9 rules of the specification NOT CHECKED", `<a href="#LIM-1">LIM-1</a>`, html.EscapeString("token lifetimes need -slow (about 1 h) or -control-url"),
		`<a href="#CLI-7">CLI-7</a>`, html.EscapeString("the reference server's configuration rules")} {
		if !strings.Contains(header, want) {
			t.Errorf("the top of conformance.html lacks %q:\n%s", want, header)
		}
	}
	if !strings.Contains(page, "<title>Conformance of https://staging.example: passed, but 9 spec rules not checked</title>") {
		t.Errorf("the page's title does not say so")
	}
}

// checkJUnitLeadsWithNotChecked checks that junit.xml's first test suite
// is the rules not checked, a skipped test case per group, and that every
// suite has them as a property.
func checkJUnitLeadsWithNotChecked(t *testing.T, w written) {
	var junit struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Props []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Cases []struct {
				Name      string `xml:"name,attr"`
				Classname string `xml:"classname,attr"`
				Skipped   *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"skipped"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(w.read(JUnitReport), &junit); err != nil || len(junit.Suites) < 2 {
		t.Fatalf("junit.xml: %v, %d suites", err, len(junit.Suites))
	}
	first := junit.Suites[0]
	if first.Name != "NOT CHECKED: 9 rules of the specification" || len(first.Cases) != 2 {
		t.Fatalf("junit.xml's first test suite is %q with %d cases, want the rules not checked, a case per group", first.Name, len(first.Cases))
	}
	for i, want := range []string{lifetimesNotChecked, localNotChecked} {
		c := first.Cases[i]
		// GitLab shows a case's classname as its suite, its name, and
		// the text of <skipped>; GitHub's test report actions the name
		// and the message.
		if !strings.HasPrefix(c.Name, want) || c.Classname != "NOT CHECKED" || c.Skipped == nil || c.Failure != nil ||
			!strings.Contains(c.Skipped.Text, strings.SplitN(want, " — ", 2)[1]) || c.Skipped.Message == "" {
			t.Errorf("junit.xml: not checked case %d: %+v, want one named %q, skipped with what checks it", i, c, want)
		}
	}
	for _, s := range junit.Suites {
		found := false
		for _, p := range s.Props {
			found = found || p.Name == "not checked" && strings.HasPrefix(p.Value, "9 spec rules NOT CHECKED: "+lifetimesNotChecked)
		}
		if !found {
			t.Errorf("junit.xml: test suite %q lacks the property not checked: %+v", s.Name, s.Props)
		}
	}
}

// checkCucumberLeadsWithNotChecked checks that cucumber.json's first
// feature is the rules not checked, and that every feature's description
// begins with the headline.
func checkCucumberLeadsWithNotChecked(t *testing.T, w written) {
	var cucumber []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Elements    []struct {
			Name  string `json:"name"`
			Steps []struct {
				Result struct {
					Status string `json:"status"`
				} `json:"result"`
			} `json:"steps"`
		} `json:"elements"`
	}
	if err := json.Unmarshal(w.read(CucumberReport), &cucumber); err != nil || len(cucumber) < 2 {
		t.Fatalf("cucumber.json: %v, %d features", err, len(cucumber))
	}
	if f := cucumber[0]; f.Name != "NOT CHECKED: 9 rules of the specification" || len(f.Elements) != 2 ||
		!strings.HasPrefix(f.Elements[0].Name, lifetimesNotChecked) || f.Elements[0].Steps[0].Result.Status != "skipped" {
		t.Errorf("cucumber.json's first feature is not the rules not checked: %+v", f)
	}
	for _, f := range cucumber {
		if !strings.HasPrefix(f.Description, passedButNotChecked) {
			t.Errorf("cucumber.json: feature %q's description %q does not begin with the headline", f.Name, f.Description)
		}
	}
}

// TestFailOnNotRunFailsEveryReportOnTheRulesAnotherRunCouldCheck: with
// -fail-on-not-run the run fails on the lifetimes, which -slow or
// -control-url check, and the reports say so where they said skipped;
// the configuration rules, which no run against a deployment checks,
// stay skipped.
func TestFailOnNotRunFailsEveryReportOnTheRulesAnotherRunCouldCheck(t *testing.T) {
	rep := remoteDefault(t)
	rep.Outcome, rep.FailOnNotRun = OutcomeFailed, true
	if h := rep.Headline(); !strings.HasPrefix(h, "FAILED: ") || !strings.Contains(h, "4 rules not checked, -fail-on-not-run") || !strings.Contains(h, lifetimesNotChecked) {
		t.Errorf("headline %q, want a failure on the 4 lifetime rules", h)
	}
	b, err := junitXML(rep)
	if err != nil {
		t.Fatal(err)
	}
	var junit struct {
		Suites []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Skipped *struct{} `xml:"skipped"`
				Failure *struct {
					Text string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &junit); err != nil {
		t.Fatal(err)
	}
	cases := junit.Suites[0].Cases
	if len(cases) != 2 || cases[0].Failure == nil || !strings.Contains(cases[0].Failure.Text, "-fail-on-not-run") || cases[1].Skipped == nil {
		t.Errorf("junit.xml: the lifetimes should fail and the configuration stay skipped: %+v", cases)
	}
	c, err := cucumberJSON(rep)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(c), `"status": "failed"`) {
		t.Errorf("cucumber.json does not fail the lifetimes:\n%.800s", c)
	}
}

// TestARunThatNeverStartedListsEveryRuleAsNotStarted: a run that did not
// start checked nothing, whatever its selection would have left out.
func TestARunThatNeverStartedListsEveryRuleAsNotStarted(t *testing.T) {
	catalogue := ruleCatalogue(t)
	var plan []*selection.Planned
	for i, r := range catalogue.Rules() {
		p := &selection.Planned{Feature: "Rules", File: "rules.feature", Line: i + 1, Name: "A scenario of " + r.ID, Rules: []string{r.ID}, Tags: []string{"@" + r.ID}, Run: i%2 == 0}
		if !p.Run {
			p.Reason = []string{selection.ReasonTags, selection.ReasonLocal, selection.ReasonReadOnly, selection.ReasonRef}[i%4/2*2+i%2]
		}
		plan = append(plan, p)
	}
	rep := &Report{Outcome: OutcomeNotStarted, Scenarios: NotStarted(plan)}
	rep.Rules = RuleResults(catalogue, rep.Scenarios)
	for _, r := range rep.Rules {
		if r.Verdict != NotRun || !slices.Equal(r.Reasons, []string{selection.ReasonNoStart}) {
			t.Errorf("%s: %s, %v; want not run because the run did not start", r.ID, r.Verdict, r.Reasons)
		}
	}
	groups := rep.NotChecked()
	if len(groups) != 1 || groups[0].Why != WhyNotStarted {
		t.Errorf("not checked: %+v, want one group: not started", groups)
	}
}
