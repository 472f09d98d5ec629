package conformance

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"eventsvc/docs"
	"eventsvc/features"
)

// Rule verdicts of a run.
const (
	Passed = "passed"
	Failed = "failed"
	NotRun = "not run"
)

// RuleResult is the verdict on one rule: failed when any of its scenarios
// failed, passed when at least one ran and none failed, not run when none
// was selected (by tags, -read-only, or because the target is remote).
type RuleResult struct {
	ID                      string
	Verdict                 string
	Passed, Failed, Skipped int // scenarios
}

// cucumberFeature is the part of godog's Cucumber JSON the summary reads.
type cucumberFeature struct {
	Elements []struct {
		Name string `json:"name"`
		Tags []struct {
			Name string `json:"name"`
		} `json:"tags"`
		Steps []struct {
			Result struct {
				Status string `json:"status"`
			} `json:"result"`
		} `json:"steps"`
	} `json:"elements"`
}

// Summarize reads a Cucumber JSON report and returns a verdict for every
// rule of the catalogue, in its order.
func Summarize(cucumberJSON string) ([]RuleResult, error) {
	b, err := os.ReadFile(cucumberJSON)
	if err != nil {
		return nil, fmt.Errorf("read the cucumber report: %w", err)
	}
	var report []cucumberFeature
	if err := json.Unmarshal(b, &report); err != nil {
		return nil, fmt.Errorf("read the cucumber report: %w", err)
	}
	catalogue, err := docs.RuleCatalogue()
	if err != nil {
		return nil, err
	}
	byRule := map[string]*RuleResult{}
	var order []string
	for _, r := range catalogue.Rules() {
		byRule[r.ID] = &RuleResult{ID: r.ID}
		order = append(order, r.ID)
	}
	for _, f := range report {
		for _, el := range f.Elements {
			status := Passed
			for _, st := range el.Steps {
				switch st.Result.Status {
				case "failed", "undefined", "pending", "ambiguous":
					status = Failed
				case "skipped":
					if status == Passed {
						status = "skipped"
					}
				}
			}
			if len(el.Steps) == 0 {
				// Not run: left out by go test -run, for one.
				status = "skipped"
			}
			var tags features.Tags
			for _, t := range el.Tags {
				tags = append(tags, t.Name)
			}
			for _, id := range tags.Rules() {
				r, ok := byRule[id]
				if !ok {
					continue
				}
				switch status {
				case Passed:
					r.Passed++
				case Failed:
					r.Failed++
				default:
					r.Skipped++
				}
			}
		}
	}
	out := make([]RuleResult, 0, len(order))
	for _, id := range order {
		r := byRule[id]
		switch {
		case r.Failed > 0:
			r.Verdict = Failed
		case r.Passed > 0:
			r.Verdict = Passed
		default:
			r.Verdict = NotRun
		}
		out = append(out, *r)
	}
	return out, nil
}

// WriteSummary prints one line per rule and a total.
func WriteSummary(w io.Writer, results []RuleResult) {
	count := map[string]int{}
	for _, r := range results {
		count[r.Verdict]++
	}
	fmt.Fprintf(w, "\nRules: %d passed, %d failed, %d not run\n", count[Passed], count[Failed], count[NotRun])
	for _, r := range results {
		detail := ""
		if r.Verdict != NotRun {
			detail = fmt.Sprintf("%d scenario%s passed", r.Passed, plural(r.Passed))
			if r.Failed > 0 {
				detail += fmt.Sprintf(", %d failed", r.Failed)
			}
		}
		fmt.Fprintf(w, "  %-8s %-8s %s\n", r.ID, strings.ToUpper(r.Verdict), detail)
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
