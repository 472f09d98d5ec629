package report

import (
	"encoding/xml"
	"fmt"
	"strings"
	"time"

	"eventsvc/conformance/selection"
)

// JUnit XML, in the shape CI test views read (Jenkins, GitLab, GitHub
// actions that publish test results): a test suite per feature, a test case
// per scenario with the feature as its classname, the failure's full text
// inside <failure>, <skipped> with its reason, and the rule ids as
// properties. The rules of the specification the run did not check come
// first, as a test suite of a skipped test case per group: GitLab shows
// neither a suite's name nor its properties, only its test cases (the
// classname as their suite, the name, the text of <failure> and
// <skipped>), and the test report actions of GitHub the cases' names and
// messages.
type junitSuites struct {
	XMLName xml.Name `xml:"testsuites"`
	Name    string   `xml:"name,attr"`
	junitCounts
	Suites []junitSuite `xml:"testsuite"`
}

// junitCounts are the counts of test cases and the time that both the
// document and each of its suites carry.
type junitCounts struct {
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Skipped  int    `xml:"skipped,attr"`
	Time     string `xml:"time,attr"`
}

// add counts the test cases of a suite in the document's counts.
func (c *junitCounts) add(s junitCounts) {
	c.Tests += s.Tests
	c.Failures += s.Failures
	c.Errors += s.Errors
	c.Skipped += s.Skipped
}

type junitSuite struct {
	Name string `xml:"name,attr"`
	junitCounts
	Timestamp string          `xml:"timestamp,attr,omitempty"`
	Props     *junitPropsList `xml:"properties,omitempty"`
	Cases     []junitCase     `xml:"testcase"`
}

type junitCase struct {
	Name      string          `xml:"name,attr"`
	Classname string          `xml:"classname,attr"`
	File      string          `xml:"file,attr,omitempty"`
	Line      int             `xml:"line,attr,omitempty"`
	Time      string          `xml:"time,attr"`
	Props     *junitPropsList `xml:"properties,omitempty"`
	Failure   *junitProblem   `xml:"failure,omitempty"`
	Error     *junitProblem   `xml:"error,omitempty"`
	Skipped   *junitSkipped   `xml:"skipped,omitempty"`
	SystemOut string          `xml:"system-out,omitempty"`
}

type junitPropsList struct {
	Props []junitProp `xml:"property"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr,omitempty"`
	Text    string `xml:",chardata"` // the reason again: GitLab shows this, not the message
}

func seconds(d interface{ Seconds() float64 }) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// junitXML renders rep. The scenarios the tags left out are not in it; those
// left out for a reason of the target or the run (@local against a
// deployment, read-only, @slow, a step's finding) are skipped test cases.
func junitXML(rep *Report) ([]byte, error) {
	doc := junitSuites{Name: "event-service-conformance", junitCounts: junitCounts{Time: seconds(rep.Duration)}}
	if rep.Outcome == OutcomeNotStarted || rep.Outcome == OutcomeIncomplete || (rep.Outcome == OutcomeThrottled && rep.Error != "" && len(rep.Ran()) == 0) {
		s := junitSuite{Name: "conformance run", junitCounts: junitCounts{Tests: 1, Errors: 1, Time: seconds(rep.Duration)}, Timestamp: rep.Started.Format("2006-01-02T15:04:05"), Props: suiteProps(rep)}
		name := map[string]string{
			OutcomeIncomplete: "the run did not finish", OutcomeNotStarted: "the run could not start", OutcomeThrottled: "throttled by the target",
		}[rep.Outcome]
		s.Cases = []junitCase{{Name: name, Classname: "conformance run", Time: seconds(rep.Duration),
			Error: &junitProblem{Message: Visible(firstLine(rep.Error)), Type: rep.Outcome, Text: Visible(rep.Error)}}}
		doc.Suites = append(doc.Suites, s)
		doc.Tests, doc.Errors = 1, 1
		return marshalXML(doc)
	}
	index := map[string]int{}
	built := suiteProps(rep)
	if nc := notCheckedSuite(rep, built); nc != nil {
		doc.Suites = append(doc.Suites, *nc)
	}
	for _, sc := range rep.Scenarios {
		if !sc.Run && (sc.Reason == selection.ReasonTags || sc.Reason == selection.ReasonRef || sc.Reason == selection.ReasonFiltered) {
			continue
		}
		i, ok := index[sc.Feature]
		if !ok {
			i = len(doc.Suites)
			index[sc.Feature] = i
			doc.Suites = append(doc.Suites, junitSuite{Name: sc.Feature, Timestamp: rep.Started.Format("2006-01-02T15:04:05"), Props: built})
		}
		s := &doc.Suites[i]
		c := junitCase{Name: sc.Name, Classname: sc.Feature, File: "features/" + sc.File, Line: sc.Line, Time: seconds(sc.Duration)}
		props := []junitProp{{Name: "verdict", Value: sc.Verdict}, {Name: "tags", Value: strings.Join(sc.Tags, " ")}}
		for _, id := range sc.Rules {
			props = append(props, junitProp{Name: "rule", Value: id})
		}
		for _, id := range sc.Blamed() {
			props = append(props, junitProp{Name: "failed rule", Value: id})
		}
		if sc.Attempts > 1 {
			props = append(props, junitProp{Name: "attempts", Value: fmt.Sprint(sc.Attempts)})
		}
		c.Props = &junitPropsList{Props: props}
		switch sc.Verdict {
		case Failed:
			c.Failure = &junitProblem{Message: blameText(sc) + ": " + Visible(firstLine(sc.Failure.Message)), Type: Visible(sc.Failure.Step), Text: failureText(sc)}
			s.Failures++
		case SetupFailed:
			c.Error = &junitProblem{Message: "setup failed: " + Visible(firstLine(sc.Failure.Message)), Type: Visible(sc.Failure.Step), Text: failureText(sc)}
			s.Errors++
		case NotRun:
			why := (&Console{}).why(sc)
			c.Skipped = &junitSkipped{Message: why, Text: why}
			s.Skipped++
		case ExpectedFailure:
			expected := "expected failure (baseline: " + Visible(sc.Expectation) + ")"
			c.Skipped = &junitSkipped{Message: expected, Text: expected}
			c.SystemOut = failureText(sc)
			s.Skipped++
		case Flaky:
			c.SystemOut = fmt.Sprintf("flaky: passed on attempt %d after failing:\n%s", sc.Attempts, failureText(sc))
		}
		s.Tests++
		s.Cases = append(s.Cases, c)
	}
	for i := range doc.Suites {
		s := &doc.Suites[i]
		var total float64
		for _, c := range s.Cases {
			var f float64
			fmt.Sscanf(c.Time, "%g", &f)
			total += f
		}
		s.Time = fmt.Sprintf("%.3f", total)
		doc.add(s.junitCounts)
	}
	if rep.Outcome == OutcomeThrottled {
		doc.Suites = append(doc.Suites, junitSuite{Name: "conformance run", junitCounts: junitCounts{Tests: 1, Errors: 1}, Props: built, Cases: []junitCase{{
			Name: "throttled by the target", Classname: "conformance run",
			Error: &junitProblem{Message: Visible(firstLine(rep.Error)), Type: OutcomeThrottled, Text: Visible(rep.Error)},
		}}})
		doc.Tests++
		doc.Errors++
	}
	return marshalXML(doc)
}

// notCheckedSuite is the test suite of the rules of the specification
// rep did not check: a test case per group, named by its rules and what
// checks them, skipped, or failed when -fail-on-not-run fails the run on
// it; nil when rep checked them all.
func notCheckedSuite(rep *Report, props *junitPropsList) *junitSuite {
	groups := rep.NotChecked()
	if len(groups) == 0 {
		return nil
	}
	n := notCheckedCount(groups)
	s := &junitSuite{Name: fmt.Sprintf("NOT CHECKED: %d rule%s of the specification", n, plural(n)), junitCounts: junitCounts{Time: seconds(time.Duration(0))},
		Timestamp: rep.Started.Format("2006-01-02T15:04:05"), Props: props}
	for _, g := range groups {
		c := junitCase{Name: idList(g.Rules, false) + " — " + g.How, Classname: "NOT CHECKED", Time: seconds(time.Duration(0)),
			Props: &junitPropsList{Props: []junitProp{{Name: "not checked", Value: g.Why}}}}
		for _, id := range g.Rules {
			c.Props.Props = append(c.Props.Props, junitProp{Name: "rule", Value: id})
		}
		text := fmt.Sprintf("%d rule%s of the specification not checked (%s): %s\n%s", len(g.Rules), plural(len(g.Rules)), g.Why, strings.Join(g.Rules, ", "), g.How)
		if rep.FailOnNotRun && !g.Beyond {
			c.Failure = &junitProblem{Message: "not checked, and -fail-on-not-run fails the run on it: " + g.How, Type: "not checked",
				Text: text + "\n-fail-on-not-run (CONFORMANCE_FAIL_ON_NOT_RUN) fails the run on the rules another run could check."}
			s.Failures++
		} else {
			c.Skipped = &junitSkipped{Message: g.How, Text: text}
			s.Skipped++
		}
		s.Tests++
		s.Cases = append(s.Cases, c)
	}
	return s
}

// suiteProps are the properties of every test suite: the version,
// revision and build date of the suite that ran, the rules of the
// specification it did not check, and each origin other than the
// target's that the run went to without credentials.
func suiteProps(rep *Report) *junitPropsList {
	props := []junitProp{
		{Name: "suite version", Value: rep.Version.Version},
		{Name: "suite revision", Value: rep.Version.Revision},
		{Name: "suite date", Value: rep.Version.Date},
	}
	if groups := rep.NotChecked(); len(groups) > 0 {
		props = append(props, junitProp{Name: "not checked", Value: notCheckedText(groups, true)})
	}
	for _, f := range foreignTexts(rep) {
		props = append(props, junitProp{Name: "foreign origin", Value: f})
	}
	return &junitPropsList{Props: props}
}

// failureText is a failed scenario's steps up to the failing one, and the
// failure, safe for a terminal (Visible): a CI job may print it.
func failureText(sc *ScenarioResult) string {
	if sc.Failure == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintln(&b, blameText(sc))
	for _, st := range sc.Steps {
		mark := "✓"
		switch st.Status {
		case "failed", "undefined", "pending", "ambiguous":
			mark = "✗"
		case "skipped", "":
			mark = "-"
		}
		fmt.Fprintf(&b, "%s %s %s (%s:%d)\n", mark, st.Keyword, st.Text, sc.File, st.Line)
		if mark == "✗" {
			break
		}
	}
	b.WriteString("\n")
	b.WriteString(sc.Failure.Text())
	return Visible(b.String())
}

// Ran returns the scenarios that ran, at least once.
func (r *Report) Ran() []*ScenarioResult {
	var out []*ScenarioResult
	for _, s := range r.Scenarios {
		if s.Attempts > 0 {
			out = append(out, s)
		}
	}
	return out
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

func marshalXML(v any) ([]byte, error) {
	b, err := xml.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("junit report: %w", err)
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}
