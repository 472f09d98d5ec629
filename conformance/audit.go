package conformance

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/cutoff"
	"eventsvc/conformance/report"
	"eventsvc/conformance/repro"
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
	c := t.Credentials
	var now func() time.Time
	if t.Clock != nil {
		now = t.Clock.Now // a test's clock, that moves the target's
	}
	return audit.New(audit.Options{
		Now:             now,
		ClientID:        c.ClientID,
		ClientSecret:    c.ClientSecret,
		Logins:          map[string]string{c.Username: c.Password, c.OtherUsername: c.OtherPass},
		RefreshLifetime: t.Lifetimes.Refresh,
		Ref:             !t.Remote(), // in-process, the reference server
		Redactor:        redactor,
		Origins:         t.Origins,
		DeadLinks:       t.DeadLinks,
		Transport:       cutoff.Limits{MaxAnswer: audit.Limit(t.MaxAnswer), Timeout: t.Timeout}.Transport(transport),
		Follow:          true,
		Workers:         min(max(8, 4*concurrency), 64),
	})
}

// ownConnections is a transport with network's settings (TLS, proxy)
// and connections of its own, so that the audit can close those it left
// idle to an in-process server about to stop without closing the
// scenarios'. A transport it cannot copy is used as it is.
func ownConnections(network http.RoundTripper) http.RoundTripper {
	switch t := network.(type) {
	case nil:
		return http.DefaultTransport.(*http.Transport).Clone()
	case *http.Transport:
		return t.Clone()
	}
	return network
}

// auditResults reports what the audit of a run against t found that no
// step took and no failed scenario of scenarios blames already, and how
// many answers it checked against each rule.
func auditResults(a *audit.Audit, plan []*selection.Planned, scenarios []*report.ScenarioResult, t target.Target, redactor *redact.Redactor) ([]*report.ScenarioResult, map[string]int) {
	c := t.Credentials
	script := func(title string, log []repro.Exchange, holders map[string]string) string {
		s := repro.Script{Title: title, Base: t.BaseURL, Vars: c.Vars(), ClientID: c.ClientID, ClientSecret: c.ClientSecret, BasicAsIs: c.BasicAsIs, Redactor: redactor, Log: log}
		return repro.ScriptOf(s, c.Username, c.OtherUsername, holders)
	}
	told := func(f *audit.Finding) bool {
		p := f.Place
		for _, s := range scenarios {
			if s.Name == p.Name && (s.File == p.File || strings.HasSuffix(p.File, "/"+s.File)) && slices.Contains(s.Blamed(), f.Rule) {
				return true
			}
		}
		return f.AtDeadLink(t.DeadLinks)
	}
	return report.Audited(a, plan, script, told)
}
