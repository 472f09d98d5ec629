package suite

import (
	"net/http"
	"slices"
	"strings"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
	"eventsvc/internal/redact"
)

// newAudit returns the audit of a run against t: every exchange of every
// scenario checked against the rules that govern it, every link followed
// once, through transport, by four times as many workers as scenarios run
// at once (at least 8, at most 64): following is waiting for answers, and
// a page of the list a scenario reads gives the audit a link to follow
// for each event it lists, read by the scenario's caller; at most 64, so
// that a run at a high -concurrency does not flood the target.
func newAudit(t target.Target, transport http.RoundTripper, redactor *redact.Redactor, concurrency int) *audit.Audit {
	return t.NewAudit(transport, redactor, !t.Remote(), min(max(8, 4*concurrency), 64)) // in-process, the reference server
}

// auditResults reports what the audit of a run against t found that no
// step took and no failed scenario of scenarios blames already, and how
// many answers it checked against each rule.
func auditResults(a *audit.Audit, plan []*selection.Planned, scenarios []*report.ScenarioResult, t target.Target, redactor *redact.Redactor) ([]*report.ScenarioResult, map[string]int) {
	told := func(f *audit.Finding) bool {
		p := f.Place
		for _, s := range scenarios {
			if s.Name == p.Name && (s.File == p.File || strings.HasSuffix(p.File, "/"+s.File)) && slices.Contains(s.Blamed(), f.Rule) {
				return true
			}
		}
		return f.AtDeadLink(t.DeadLinks)
	}
	return report.Audited(a, plan, t.Script(redactor), told)
}
