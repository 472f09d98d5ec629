package report

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Cucumber JSON, the format Cucumber report tools read: a feature per
// file, an element per scenario that ran, each step with its status,
// duration in nanoseconds and, on failure, the masked message, led by the
// rules the failure blames. The format has no field for the tool that
// wrote it, nor for the run: each feature's description, which report
// tools show under its name, begins with the run's headline (Headline) and
// names the suite's build and the origins other than the target's the run
// went to without credentials. The rules of the specification the run did
// not check come first, as a feature of a scenario per group.
type cucumberFeatureDoc struct {
	URI         string           `json:"uri"`
	ID          string           `json:"id"`
	Keyword     string           `json:"keyword"`
	Name        string           `json:"name"`
	Description string           `json:"description"`
	Line        int              `json:"line"`
	Elements    []cucumberScenar `json:"elements"`
}

type cucumberScenar struct {
	ID      string         `json:"id"`
	Keyword string         `json:"keyword"`
	Name    string         `json:"name"`
	Line    int            `json:"line"`
	Type    string         `json:"type"`
	Tags    []cucumberTag  `json:"tags"`
	Steps   []cucumberStep `json:"steps"`
}

type cucumberTag struct {
	Name string `json:"name"`
}

type cucumberStep struct {
	Keyword string         `json:"keyword"`
	Name    string         `json:"name"`
	Line    int            `json:"line"`
	Result  cucumberResult `json:"result"`
}

type cucumberResult struct {
	Status   string `json:"status"`
	Duration int64  `json:"duration,omitempty"`
	Error    string `json:"error_message,omitempty"`
}

// cucumberNotChecked is the feature of the rules of the specification rep
// did not check: a scenario per group, named by its rules and what checks
// them, its one step skipped, or failed when -fail-on-not-run fails the
// run on it.
func cucumberNotChecked(rep *Report, groups []NotCheckedGroup, description string) cucumberFeatureDoc {
	n := notCheckedCount(groups)
	name := fmt.Sprintf("NOT CHECKED: %d rule%s of the specification", n, plural(n))
	f := cucumberFeatureDoc{URI: "not-checked", ID: "not-checked", Keyword: "Feature", Name: name, Description: description, Line: 1}
	for i, g := range groups {
		el := cucumberScenar{ID: "not-checked;" + cucumberID(g.Why), Keyword: "Scenario", Name: idList(g.Rules, false) + " — " + g.How,
			Line: i + 1, Type: "scenario", Tags: []cucumberTag{}}
		for _, id := range g.Rules {
			el.Tags = append(el.Tags, cucumberTag{Name: "@" + id})
		}
		step := cucumberStep{Keyword: "* ", Name: "not checked: " + g.How, Line: i + 1, Result: cucumberResult{Status: "skipped"}}
		if rep.FailOnNotRun && !g.Beyond {
			step.Result = cucumberResult{Status: "failed", Error: "not checked, and -fail-on-not-run fails the run on it: " + strings.Join(g.Rules, ", ")}
		}
		el.Steps = []cucumberStep{step}
		f.Elements = append(f.Elements, el)
	}
	return f
}

var slug = regexp.MustCompile(`[^a-z0-9]+`)

func cucumberID(s string) string {
	return strings.Trim(slug.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// cucumberJSON renders the scenarios of rep that ran.
func cucumberJSON(rep *Report) ([]byte, error) {
	out := []cucumberFeatureDoc{}
	index := map[string]int{}
	description := Visible(rep.Headline()) + ". Checked by the Event Service conformance suite " + rep.Version.String()
	if f := foreignTexts(rep); len(f) > 0 {
		description += ". " + foreignHeading + " " + strings.Join(f, "; ")
	}
	if groups := rep.NotChecked(); len(groups) > 0 && len(rep.Ran()) > 0 {
		out = append(out, cucumberNotChecked(rep, groups, description))
	}
	for _, sc := range rep.Scenarios {
		if sc.Attempts == 0 {
			continue
		}
		i, ok := index[sc.File]
		if !ok {
			i = len(out)
			index[sc.File] = i
			out = append(out, cucumberFeatureDoc{URI: sc.File, ID: cucumberID(sc.Feature), Keyword: "Feature", Name: sc.Feature,
				Description: description, Line: 1, Elements: []cucumberScenar{}})
		}
		el := cucumberScenar{ID: cucumberID(sc.Feature) + ";" + cucumberID(sc.Name), Keyword: "Scenario", Name: sc.Name, Line: sc.Line, Type: "scenario", Tags: []cucumberTag{}, Steps: []cucumberStep{}}
		for _, t := range sc.Tags {
			el.Tags = append(el.Tags, cucumberTag{Name: t})
		}
		for _, st := range sc.Steps {
			status := st.Status
			if status == "" {
				status = "skipped"
			}
			cs := cucumberStep{Keyword: st.Keyword + " ", Name: st.Text, Line: st.Line, Result: cucumberResult{Status: status, Duration: st.Duration.Nanoseconds()}}
			if status != "passed" && status != "skipped" {
				cs.Result.Error = st.Error
				// The failing step says which rules it fails, as the
				// other reports do.
				if f := sc.Failure; f != nil && f.Line == st.Line && (sc.Verdict == Failed || sc.Verdict == SetupFailed) {
					cs.Result.Error = blameText(sc) + "\n\n" + st.Error
				}
			}
			el.Steps = append(el.Steps, cs)
		}
		out[i].Elements = append(out[i].Elements, el)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("cucumber report: %w", err)
	}
	return append(EscapeJSON(b), '\n'), nil
}
