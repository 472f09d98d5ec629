package conformance

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"strings"
	"time"
)

// HTMLReport is the name of the report a person reads: one self-contained
// page, without script and without anything fetched from elsewhere.
const HTMLReport = "conformance.html"

//go:embed report.html.tmpl
var htmlTemplate string

var reportPage = template.Must(template.New("report").Funcs(template.FuncMap{
	"class": func(s string) string { return strings.ReplaceAll(s, " ", "-") },
}).Parse(htmlTemplate))

// DocsURL is where the rules are documented, each under its id: the
// documentation page the reference server serves (make run).
const DocsURL = "http://localhost:8080/docs/index.html"

type htmlCount struct {
	Verdict string
	N       int
}

type htmlRule struct {
	*RuleResult
	Why       string
	Scenarios []htmlScenario
}

type htmlScenario struct {
	*ScenarioResult
	Why string
}

// reportHTML renders conformance.html. The rules the tags did not select
// come last, each with its reason.
func reportHTML(rep *Report) ([]byte, error) {
	docs := DocsURL
	if strings.HasPrefix(rep.Target, "http") {
		docs = rep.Target + "/docs/index.html"
	}
	data := struct {
		*Report
		Started, Duration string
		Counts            []htmlCount
		Rules             []htmlRule
		Ran               int
		DocsURL           string
	}{Report: rep, Started: rep.Started.UTC().Format("2006-01-02 15:04:05 UTC"), Duration: rep.Duration.Round(100 * time.Millisecond).String(), DocsURL: docs}
	counts := rep.Counts()
	for _, v := range []string{Passed, Failed, ExpectedFailure, Flaky, NotRun} {
		if counts[v] > 0 || v == Passed || v == Failed {
			data.Counts = append(data.Counts, htmlCount{v, counts[v]})
		}
	}
	for _, s := range rep.Scenarios {
		if s.Attempts > 0 {
			data.Ran++
		}
	}
	var unselected []htmlRule
	for _, r := range rep.Rules {
		hr := htmlRule{RuleResult: r}
		if r.Verdict == NotRun {
			hr.Why = reasonsText(r.Reasons, firstDetail(r))
		}
		for _, s := range r.Scenarios {
			hs := htmlScenario{ScenarioResult: s}
			if s.Verdict == NotRun {
				hs.Why = (&console{}).why(s)
			}
			hr.Scenarios = append(hr.Scenarios, hs)
		}
		if r.Selected {
			data.Rules = append(data.Rules, hr)
		} else {
			unselected = append(unselected, hr)
		}
	}
	data.Rules = append(data.Rules, unselected...)
	var b bytes.Buffer
	if err := reportPage.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("html report: %w", err)
	}
	return b.Bytes(), nil
}
