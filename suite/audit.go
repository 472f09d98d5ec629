package suite

import (
	"slices"
	"strings"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
)

// auditWorkers is how many links the audit of a run follows at once:
// four times as many as scenarios run at once (at least 8, at most 64).
// Following is waiting for answers, and a page of the list a scenario
// reads gives the audit a link to follow for each event it lists, read
// by the scenario's caller; at most 64, so that a run at a high
// -concurrency does not flood the target.
func auditWorkers(concurrency int) int { return min(max(8, 4*concurrency), 64) }

// auditResults reports what the audit of a run against t found that no
// step took and no failed scenario of scenarios blames already, and how
// many answers it checked against each rule, masked by t's redactor.
func auditResults(a *audit.Audit, plan []*selection.Planned, scenarios []*report.ScenarioResult, t target.Target) ([]*report.ScenarioResult, map[string]int) {
	told := func(f *audit.Finding) bool {
		p := f.Place
		for _, s := range scenarios {
			if s.Name == p.Name && (s.File == p.File || strings.HasSuffix(p.File, "/"+s.File)) && slices.Contains(s.Blamed(), f.Rule) {
				return true
			}
		}
		return f.AtDeadLink(t.DeadLinks)
	}
	return report.Audited(a, plan, t.Script(t.Redactor), told)
}
