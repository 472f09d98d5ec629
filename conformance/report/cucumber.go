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
// tools show under its name, names the suite's build and the origins other
// than the target's the run went to without credentials.
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

var slug = regexp.MustCompile(`[^a-z0-9]+`)

func cucumberID(s string) string {
	return strings.Trim(slug.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// cucumberJSON renders the scenarios of rep that ran.
func cucumberJSON(rep *Report) ([]byte, error) {
	out := []cucumberFeatureDoc{}
	index := map[string]int{}
	description := "Checked by the Event Service conformance suite " + rep.Version.String()
	if f := foreignTexts(rep); len(f) > 0 {
		description += ". " + foreignHeading + " " + strings.Join(f, "; ")
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
