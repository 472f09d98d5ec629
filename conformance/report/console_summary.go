package report

// The console's summary of a run: its failures in full, a verdict for
// every rule, and the closing line.

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"eventsvc/conformance/selection"
)

// Summary prints the suite's version, the failures in full, a verdict per
// selected rule, and the closing line.
func (c *Console) Summary(rep *Report) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(c.w, "\nSuite %s\n", rep.Version)
	c.notChecked(rep.NotChecked())
	var failed []*ScenarioResult
	for _, s := range rep.Scenarios {
		if s.Failure != nil && (s.Verdict == Failed || s.Verdict == SetupFailed || s.Verdict == Flaky || s.Verdict == ExpectedFailure) {
			failed = append(failed, s)
		}
	}
	if len(failed) > 0 && c.format == FormatCompact {
		fmt.Fprintf(c.w, "\n%s\n", c.paint(bold, "Failures:"))
		number := map[string]int{} // of each failure told, by place
		for i, s := range failed {
			number[s.Place()] = i + 1
		}
		for i, s := range failed {
			fmt.Fprintf(c.w, "\n%d) %s %s  %s", i+1, c.verdictLabel(s.Verdict, 0), Visible(s.Name), c.paint(grey, Visible(s.Place())))
			if n := number[s.Failure.SameAs]; n != 0 && failed[n-1].Failure.SameAs == "" {
				fmt.Fprintf(c.w, "%s\n", c.paint(grey, fmt.Sprintf(" — told in full in %d)", n)))
				continue
			}
			fmt.Fprintln(c.w)
			fmt.Fprintf(c.w, "   %s\n", blameText(s))
			if line := causeText(s.Failure); line != "" {
				fmt.Fprintf(c.w, "   %s\n", Visible(line))
			}
			if s.Expectation != "" {
				fmt.Fprintf(c.w, "   expected by the baseline (%s): %s\n", Visible(s.Name), Visible(s.Expectation))
			}
			for _, st := range s.Steps {
				text := Visible(st.Keyword + " " + st.Text)
				if st.Status == "failed" || st.Status == "undefined" || st.Status == "pending" || st.Status == "ambiguous" {
					fmt.Fprintf(c.w, "   %s %s  %s\n", c.paint(red, text), "", c.paint(grey, Visible(fmt.Sprintf("%s:%d", s.File, st.Line))))
					break
				}
				fmt.Fprintf(c.w, "   %s\n", c.paint(grey, text))
			}
			fmt.Fprintln(c.w, indent(Visible(s.Failure.Text()), "     "))
			if len(s.Failure.Exchanges) > 1 {
				fmt.Fprintf(c.w, "   %s\n", c.paint(grey, "the scenario's requests:"))
				for i, x := range s.Failure.Exchanges {
					line := fmt.Sprintf("%d. %s", i+1, Visible(exchangeLine(x)))
					if i+1 == s.Failure.FailingExchange {
						line += "  (the failing exchange)"
					}
					fmt.Fprintf(c.w, "   %s\n", c.paint(grey, line))
				}
			}
			if s.Failure.ScriptFile != "" && c.ReportDir != "" {
				fmt.Fprintf(c.w, "   Reproduce: sh %s\n", filepath.Join(c.ReportDir, filepath.FromSlash(s.Failure.ScriptFile)))
			}
			if s.Failure.ReplayFile != "" && c.ReportDir != "" {
				fmt.Fprintf(c.w, "   Replay: conformance explore -replay %s\n", filepath.Join(c.ReportDir, filepath.FromSlash(s.Failure.ReplayFile)))
			}
		}
	}

	counts := rep.Counts()
	fmt.Fprintf(c.w, "\nRules: %s\n", countsText(counts))
	others := map[string]int{}
	for _, r := range rep.Rules {
		if !r.Selected {
			for _, why := range r.Reasons {
				others[why]++
			}
			continue
		}
		detail := ""
		switch r.Verdict {
		case NotRun:
			detail = Visible(reasonsText(r.Reasons, firstDetail(r)))
		default:
			detail = ruleCounts(r)
		}
		if r.Expectation != "" {
			detail += "; baseline: " + Visible(r.Expectation)
		}
		if r.Stale {
			detail += c.paint(red, " — STALE: the baseline expects it to fail; remove the entry")
		}
		fmt.Fprintf(c.w, "  %-8s %s %s\n", r.ID, c.verdictLabel(r.Verdict, 18), detail)
	}
	unselected := 0
	for _, r := range rep.Rules {
		if !r.Selected {
			unselected++
		}
	}
	if unselected > 0 {
		var parts []string
		for _, why := range []string{selection.ReasonRef, selection.ReasonLocal, selection.ReasonClock, selection.ReasonSlow, selection.ReasonReadOnly, selection.ReasonTags, selection.ReasonFiltered, selection.ReasonNotExplored} {
			if others[why] > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", why, others[why]))
			}
		}
		if others[selection.ReasonNotExplored] == unselected {
			fmt.Fprintf(c.w, "  %d other rules are not explored: the scenarios check them\n", unselected)
		} else {
			fmt.Fprintf(c.w, "  %d other rules not selected (%s)\n", unselected, strings.Join(parts, ", "))
		}
	}
	if rep.Waits > 0 {
		fmt.Fprintf(c.w, "The target asked the run to slow down %d time%s (429 with a short Retry-After); it waited %s in all.\n",
			rep.Waits, plural(rep.Waits), rep.Waited.Round(100*time.Millisecond))
	}
	if len(rep.Foreign) > 0 {
		fmt.Fprintln(c.w, c.paint(yellow, foreignHeading))
		for _, f := range foreignTexts(rep) {
			fmt.Fprintf(c.w, "  %s\n", f)
		}
	}
	if line := variedText(rep.Varied); line != "" {
		fmt.Fprintln(c.w, Visible(line))
	}
	fmt.Fprintln(c.w, c.closing(rep))
}

func (c *Console) unit() string {
	if c.Unit == "" {
		return "scenario"
	}
	return c.Unit
}

// closing is the last line of a run: its headline (Report.Headline),
// the rules that were flaky, and how many scenarios ran in how long.
func (c *Console) closing(rep *Report) string {
	took := rep.Duration.Round(100 * time.Millisecond)
	ran := c.ranText(rep)
	flaky := ""
	if ids := rulesWith(rep, Flaky); len(ids) > 0 {
		flaky = fmt.Sprintf("; flaky (failed, then passed on a retry): %s", strings.Join(ids, ", "))
	}
	headline := Visible(rep.Headline())
	switch rep.Outcome {
	case OutcomeThrottled, OutcomeUnreachable:
		return c.paint(yellow, headline)
	case OutcomeFailed:
		return c.paint(red, fmt.Sprintf("%s%s; %s in %s%s", headline, flaky, ran, took, unsentText(rep.Varied)))
	}
	colour := green
	if len(rep.NotChecked()) > 0 {
		colour = yellow // not all green
	}
	return c.paint(colour, fmt.Sprintf("%s%s; %s in %s%s", headline, flaky, ran, took, unsentText(rep.Varied)))
}

// notChecked prints the rules of the specification the run did not
// check, a line per group: the summary's first verdict.
func (c *Console) notChecked(groups []NotCheckedGroup) {
	if len(groups) == 0 {
		return
	}
	n := notCheckedCount(groups)
	fmt.Fprintf(c.w, "\n%s\n", c.paint(yellow, fmt.Sprintf("NOT CHECKED: %d rule%s of the specification", n, plural(n))))
	for _, g := range groups {
		fmt.Fprintf(c.w, "  %s — %s\n", idList(g.Rules, false), g.How)
	}
}

// NotCheckedAhead prints, before a run's first scenario, the rules of the
// specification its selection leaves unchecked whatever the scenarios
// find (PlannedNotChecked): the first verdict of the run.
func (c *Console) NotCheckedAhead(groups []NotCheckedGroup) {
	if len(groups) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := notCheckedCount(groups)
	fmt.Fprintf(c.w, "%s\n\n", c.paint(yellow, fmt.Sprintf("%d spec rule%s NOT CHECKED by this selection, whatever the scenarios find: %s", n, plural(n), notCheckedList(groups, false))))
}

// ranText counts the scenarios and the sequences that ran: "47
// scenarios", "12 sequences", "47 scenarios and 12 sequences".
func (c *Console) ranText(rep *Report) string {
	scenarios, sequences := 0, 0
	for _, s := range rep.Scenarios {
		switch {
		case s.Verdict == NotRun:
		case s.Sequence():
			sequences++
		default:
			scenarios++
		}
	}
	var parts []string
	if scenarios > 0 || sequences == 0 {
		parts = append(parts, fmt.Sprintf("%d %s%s", scenarios, c.unit(), plural(scenarios)))
	}
	if sequences > 0 {
		parts = append(parts, fmt.Sprintf("%d sequence%s", sequences, plural(sequences)))
	}
	return strings.Join(parts, " and ")
}

// rulesWith returns the ids of the rules with verdict v.
func rulesWith(rep *Report, v string) []string {
	var ids []string
	for _, r := range rep.Rules {
		if r.Verdict == v {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// countsText is "37 passed, 2 failed, …", verdicts with none left out
// but for passed, failed and not run.
func countsText(counts map[string]int) string {
	var parts []string
	for _, v := range []string{Passed, Failed, ExpectedFailure, Flaky, NotRun} {
		if counts[v] > 0 || v == Passed || v == Failed {
			parts = append(parts, fmt.Sprintf("%d %s", counts[v], v))
		}
	}
	return strings.Join(parts, ", ")
}

// ruleCounts says what became of the scenarios of a rule and, apart, of
// its sequences, with the checks of it an exploration made: "2 scenarios:
// 2 passed; 14 checks in 5 sequences: 5 passed"; without sequences, the
// checks of the answers the audit made: "2 scenarios: 2 not run; 48
// checks of the answers, none failed".
func ruleCounts(r *RuleResult) string {
	scenarios, sequences := map[string]int{}, map[string]int{}
	for _, s := range r.Scenarios {
		if s.Sequence() {
			sequences[s.VerdictFor(r.ID)]++
		} else {
			scenarios[s.VerdictFor(r.ID)]++
		}
	}
	var parts []string
	if len(scenarios) > 0 || len(sequences) == 0 {
		parts = append(parts, verdictCounts(scenarios, "scenario"))
	}
	switch {
	case len(sequences) > 0:
		text := verdictCounts(sequences, "sequence")
		if r.Checks > 0 {
			text = fmt.Sprintf("%d check%s in %s", r.Checks, plural(r.Checks), text)
		}
		parts = append(parts, text)
	case r.Checks > 0:
		// The audit's checks of every answer: what passed when no
		// scenario of the rule did.
		parts = append(parts, fmt.Sprintf("%d check%s of the answers, none failed", r.Checks, plural(r.Checks)))
	}
	return strings.Join(parts, "; ")
}

// verdictCounts is "5 scenarios: 3 passed, 2 not run": how many units
// there are, and how many of them have each verdict.
func verdictCounts(counts map[string]int, unit string) string {
	var parts []string
	for _, v := range []string{Passed, Failed, ExpectedFailure, Flaky, NotRun} {
		if counts[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[v], v))
		}
	}
	n := 0
	for _, k := range counts {
		n += k
	}
	return fmt.Sprintf("%d %s%s: %s", n, unit, plural(n), strings.Join(parts, ", "))
}

// firstDetail is the first reason a step gave for not running one of r's
// scenarios.
func firstDetail(r *RuleResult) string {
	for _, s := range r.Scenarios {
		if s.Detail != "" {
			return s.Detail
		}
	}
	return ""
}
