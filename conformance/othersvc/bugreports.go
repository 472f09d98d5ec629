package othersvc

import (
	"slices"
)

// BugReport is a breakage of the second implementation written as the bug
// report of a real service reads: what its user saw, and the cause. Each
// is one fault that a correct reading of docs/spec/RULES.md forbids, in a
// server that is otherwise correct; shows does what the user did, against
// a server started with config, and returns nil when the user sees the
// fault. today records what caught it when it was written
// (TestMeasureCatches measures it again).
type BugReport struct {
	Name   string
	Report string   // what a user saw, and the cause
	Rules  []string // the @spec rules it breaks
	Config Config
	Shows  func(c *Client) error
	Today  Caught
}

// caught is what caught a breakage: the rules a default remote run of the
// scenarios failed, and those a default exploration with seed 7 failed,
// each as a space-separated list; "" when a run passed, "preflight" when
// the scenarios' preflight refused the target, "setup" when the
// exploration could not start, "finding" for a finding that blames no rule
// (a server error, an answer cut).
type Caught struct {
	Scenarios, Explorer string
}

// BugReports are every bug report, by family.
var BugReports = slices.Concat(issueReports, cacheReports, routerReports, serializerReports, columnReports, raceReports, lastReports, issuanceReports, numberReports)
