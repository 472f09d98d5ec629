package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"slices"
	"strings"
	"time"

	"eventsvc/docs"
)

// HTMLReport is the name of the report a person reads: one self-contained
// page, without script and without anything fetched from elsewhere.
const HTMLReport = "conformance.html"

//go:embed report.html.tmpl
var htmlTemplate string

var reportPage = template.Must(template.New("report").Funcs(template.FuncMap{
	"class": func(s string) string { return strings.ReplaceAll(s, " ", "-") },
	"inc":   func(i int) int { return i + 1 },
	// variedLine is the line that counts what an exploration varied.
	"variedLine": variedText,
	"join":       strings.Join,
	// markdown writes a rule's statement as text: its `code` as code.
	"markdown": func(s string) template.HTML {
		parts := strings.Split(s, "`")
		var b strings.Builder
		for i, p := range parts {
			if i%2 == 1 {
				b.WriteString("<code>" + template.HTMLEscapeString(p) + "</code>")
			} else {
				b.WriteString(template.HTMLEscapeString(p))
			}
		}
		return template.HTML(b.String())
	},
}).Parse(htmlTemplate))

type htmlCount struct {
	Verdict string
	N       int
}

type htmlRule struct {
	*RuleResult
	Text      string // the rule's statement, from the catalogue
	Why       string
	Scenarios []htmlScenario
}

type htmlScenario struct {
	*ScenarioResult
	Why string
}

// htmlFailure is a failure as the report shows it first: its scenario,
// what it blames and the statements of those rules, the failing step, the
// scenario's exchanges with their JSON bodies laid out, and the script that
// replays them.
type htmlFailure struct {
	*ScenarioResult
	Blame     string
	Rules     []htmlRuleText
	Exchanges []string
	// Failing is the number, from 1, of the exchange the failure is
	// about, marked as such (0: none); Open is the one shown open: that
	// one, or else the last.
	Failing, Open int
}

type htmlRuleText struct{ ID, Text string }

// verdictOrder puts a report's rules in the order a reader acts on them:
// failed first, not run last but for those the tags left out.
var verdictOrder = []string{Failed, ExpectedFailure, Flaky, NotRun, Passed}

// reportHTML renders conformance.html: the failures first, each with its
// rules' statements, exchanges and reproduction; then every rule, failed
// first, with its statement and scenarios; the rules the tags did not
// select come last, each with its reason. Rule ids link to the rule's
// section in the page itself, whatever the target serves.
func reportHTML(rep *Report) ([]byte, error) {
	catalogue, err := docs.RuleCatalogue()
	if err != nil {
		return nil, err
	}
	text := func(id string) string {
		if r, ok := catalogue.Rule(id); ok {
			return r.Text
		}
		return ""
	}
	data := struct {
		*Report
		Started, Duration string
		Counts            []htmlCount
		Failures          []htmlFailure
		Rules             []htmlRule
		// Title is the page's title: the outcome, and the rules not
		// checked when it passed.
		Title      string
		NotChecked []NotCheckedGroup
		// NotCheckedCount is how many rules NotChecked holds.
		NotCheckedCount  int
		Selected         string
		Elsewhere        []string // the origins other than the target's the run went to
		ElsewhereHeading string
	}{Report: rep, Elsewhere: foreignTexts(rep), ElsewhereHeading: foreignHeading, Started: rep.Started.UTC().Format("2006-01-02 15:04:05 UTC"), Duration: rep.Duration.Round(100 * time.Millisecond).String(), Selected: selectedText(rep)}
	counts := rep.Counts()
	for _, v := range []string{Passed, Failed, ExpectedFailure, Flaky, NotRun} {
		if counts[v] > 0 || v == Passed || v == Failed {
			data.Counts = append(data.Counts, htmlCount{v, counts[v]})
		}
	}
	data.NotChecked = rep.NotChecked()
	data.NotCheckedCount = notCheckedCount(data.NotChecked)
	data.Title = rep.Outcome
	if n := data.NotCheckedCount; n > 0 && rep.Outcome == OutcomePassed {
		data.Title = fmt.Sprintf("%s, but %d spec rule%s not checked", rep.Outcome, n, plural(n))
	}
	for _, s := range rep.Scenarios {
		if s.Failure == nil || s.Verdict == NotRun || s.Verdict == Passed {
			continue
		}
		f := htmlFailure{ScenarioResult: s, Blame: blameText(s)}
		for _, id := range s.Blamed() {
			f.Rules = append(f.Rules, htmlRuleText{id, text(id)})
		}
		for _, x := range s.Failure.Exchanges {
			f.Exchanges = append(f.Exchanges, prettyExchange(x))
		}
		f.Failing = s.Failure.FailingExchange
		if len(f.Exchanges) == 0 && s.Failure.Exchange != "" {
			f.Exchanges, f.Failing = []string{prettyExchange(s.Failure.Exchange)}, 1
		}
		f.Open = f.Failing
		if f.Open == 0 {
			f.Open = len(f.Exchanges)
		}
		data.Failures = append(data.Failures, f)
	}
	slices.SortStableFunc(data.Failures, func(a, b htmlFailure) int {
		return slices.Index(verdictOrder, a.Verdict) - slices.Index(verdictOrder, b.Verdict)
	})
	var unselected []htmlRule
	for _, r := range rep.Rules {
		hr := htmlRule{RuleResult: r, Text: text(r.ID)}
		if r.Verdict == NotRun {
			hr.Why = reasonsText(r.Reasons, firstDetail(r))
		}
		for _, s := range r.Scenarios {
			hs := htmlScenario{ScenarioResult: s}
			if s.Verdict == NotRun {
				hs.Why = (&Console{}).why(s)
			}
			hr.Scenarios = append(hr.Scenarios, hs)
		}
		if r.Selected {
			data.Rules = append(data.Rules, hr)
		} else {
			unselected = append(unselected, hr)
		}
	}
	slices.SortStableFunc(data.Rules, func(a, b htmlRule) int {
		return slices.Index(verdictOrder, a.Verdict) - slices.Index(verdictOrder, b.Verdict)
	})
	data.Rules = append(data.Rules, unselected...)
	var b bytes.Buffer
	if err := reportPage.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("html report: %w", err)
	}
	return b.Bytes(), nil
}

// selectedText counts the scenarios the run selected by what became of
// them, "65 selected: 28 passed, 0 failed, 37 not run (29 throttled, 8
// target)": a run the target stopped tells those that ran from those it
// did not run. The sequences of an exploration are counted apart: "65
// selected: …; 12 sequences: 12 passed, 0 failed".
func selectedText(rep *Report) string {
	selected, counts, reasons := 0, map[string]int{}, map[string]int{}
	sequences, explored := 0, map[string]int{}
	var why []string
	for _, s := range rep.Scenarios {
		switch {
		case s.Sequence():
			sequences++
			explored[s.Verdict]++
			continue
		case !s.Run:
			continue
		}
		selected++
		counts[s.Verdict]++
		if s.Verdict == NotRun {
			if reasons[s.Reason] == 0 {
				why = append(why, s.Reason)
			}
			reasons[s.Reason]++
		}
	}
	var texts []string
	if selected > 0 || sequences == 0 {
		var parts []string
		for _, v := range []string{Passed, Failed, SetupFailed, ExpectedFailure, Flaky, NotRun} {
			if counts[v] > 0 || v == Passed || v == Failed || v == NotRun {
				parts = append(parts, fmt.Sprintf("%d %s", counts[v], v))
			}
		}
		text := fmt.Sprintf("%d selected: %s", selected, strings.Join(parts, ", "))
		if len(why) > 0 {
			for i, r := range why {
				why[i] = fmt.Sprintf("%d %s", reasons[r], r)
			}
			text += " (" + strings.Join(why, ", ") + ")"
		}
		texts = append(texts, text)
	}
	if sequences > 0 {
		var parts []string
		for _, v := range []string{Passed, Failed, ExpectedFailure, NotRun} {
			if explored[v] > 0 || v == Passed || v == Failed {
				parts = append(parts, fmt.Sprintf("%d %s", explored[v], v))
			}
		}
		texts = append(texts, fmt.Sprintf("%d sequence%s: %s", sequences, plural(sequences), strings.Join(parts, ", ")))
	}
	return strings.Join(texts, "; ")
}

// prettyExchange is a masked exchange with its JSON bodies laid out, one
// property a line, so that a body of 10 KB is read rather than scrolled.
func prettyExchange(transcript string) string {
	lines := strings.Split(transcript, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		out = append(out, lines[i])
		if strings.TrimSpace(lines[i]) != "" || i == 0 {
			continue
		}
		// A blank line ends the header fields: the body follows, up to the
		// next section (a line that is not indented).
		j := i + 1
		for j < len(lines) && strings.HasPrefix(lines[j], "    ") {
			j++
		}
		body := strings.TrimSpace(strings.Join(lines[i+1:j], "\n"))
		var laid bytes.Buffer
		if json.Indent(&laid, []byte(body), "    ", "  ") == nil && body != "" {
			out = append(out, "    "+laid.String())
			i = j - 1
		}
	}
	return strings.Join(out, "\n")
}
