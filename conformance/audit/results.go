package audit

import "eventsvc/conformance/repro"

// File is the place the audit's findings are reported at: "audit:3" is the
// third, as "reading.feature:24" is a scenario.
const File = "audit"

// ScriptFunc makes the reproduction script of a finding's exchanges,
// titled title; holders names the account of each access token they send
// (Finding.Holders).
type ScriptFunc func(title string, log []repro.Exchange, holders map[string]string) string
