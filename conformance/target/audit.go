package target

import (
	"net/http"
	"time"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/cutoff"
	"eventsvc/conformance/repro"
	"eventsvc/internal/redact"
)

// NewAudit returns the registry's audit of a run against t: every
// exchange of every runner checked against the rules that govern it,
// judged by t's credentials and refresh lifetime, on t's clock when it
// has one; every link followed once through transport (bounded as t's
// answers are) by workers at once. ref takes the target for the
// reference server (audit.Options.Ref).
func (t Target) NewAudit(transport http.RoundTripper, redactor *redact.Redactor, ref bool, workers int) *audit.Audit {
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
		Ref:             ref,
		Contract:        t.Contract,
		Redactor:        redactor,
		Origins:         t.Origins,
		DeadLinks:       t.DeadLinks,
		Transport:       cutoff.Limits{MaxAnswer: audit.Limit(t.MaxAnswer), Timeout: t.Timeout}.Transport(transport),
		Follow:          true,
		Workers:         workers,
	})
}

// OwnConnections is a transport with network's settings (TLS, proxy)
// and connections of its own, so that the audit can close those it left
// idle to an in-process server about to stop without closing the
// runners'. A transport it cannot copy is used as it is.
func OwnConnections(network http.RoundTripper) http.RoundTripper {
	switch t := network.(type) {
	case nil:
		return http.DefaultTransport.(*http.Transport).Clone()
	case *http.Transport:
		return t.Clone()
	}
	return network
}

// Script returns what writes the replay script of an audit's finding
// against t: its title, its exchanges, and the accounts whose tokens it
// holds (repro.ScriptOf), every credential masked by redactor.
func (t Target) Script(redactor *redact.Redactor) func(title string, log []repro.Exchange, holders map[string]string) string {
	c := t.Credentials
	return func(title string, log []repro.Exchange, holders map[string]string) string {
		s := repro.Script{Title: title, Base: t.BaseURL, Vars: c.Vars(), ClientID: c.ClientID, ClientSecret: c.ClientSecret, BasicAsIs: c.BasicAsIs, Redactor: redactor, Log: log}
		return repro.ScriptOf(s, c.Username, c.OtherUsername, holders)
	}
}
