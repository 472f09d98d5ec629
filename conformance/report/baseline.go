package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"eventsvc/conformance/selection"
	"eventsvc/docs"
)

// Baseline is a file of expected failures: the known, accepted deviations
// of a deployment, each with its reason. A failure it expects does not fail
// the run; an entry that now passes does, as stale, so that the baseline
// does not come to hide a regression.
//
//	{"expectedFailures": [
//	  {"rule": "AUTH-6", "reason": "TICKET-12: non-managers get 401"},
//	  {"scenario": "Another user may not update the event", "reason": "…"}
//	]}
//
// A scenario is named by its name (every example row of an outline), by
// an example row's name as the reports show it, or by "file:line".
type Baseline struct {
	Entries []Expectation `json:"expectedFailures"`
}

// Expectation is one entry of a Baseline.
type Expectation struct {
	Rule     string `json:"rule,omitempty"`
	Scenario string `json:"scenario,omitempty"`
	Reason   string `json:"reason"`
}

// What became of a baseline entry (Report.Baseline).
const (
	EntryExpected = "expected failure" // what it names failed
	EntryStale    = "stale"            // what it names ran and passed
	EntryNotRun   = "not run"          // what it names did not run
)

// BaselineStatus is a baseline entry and what became of it.
type BaselineStatus struct {
	Expectation
	Status string
}

func (e Expectation) String() string {
	if e.Rule != "" {
		return "rule " + e.Rule
	}
	return fmt.Sprintf("scenario %q", e.Scenario)
}

// ReadBaseline reads an expected-failures file. It refuses (ErrUsage) a
// file that is not one, an entry without a reason, and an entry naming both
// or neither of a rule and a scenario.
func ReadBaseline(path string) (*Baseline, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, Usage("expected failures: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var bl Baseline
	if err := dec.Decode(&bl); err != nil {
		return nil, Usage("expected failures %s: %v (want {\"expectedFailures\": [{\"rule\": \"AUTH-6\", \"reason\": \"…\"}]})", path, err)
	}
	for i, e := range bl.Entries {
		switch {
		case (e.Rule == "") == (e.Scenario == ""):
			return nil, Usage("expected failures %s: entry %d names %s: give a rule or a scenario", path, i+1, map[bool]string{true: "neither a rule nor a scenario", false: "both a rule and a scenario"}[e.Rule == ""])
		case strings.TrimSpace(e.Reason) == "":
			return nil, Usage("expected failures %s: entry %d (%s) has no reason: say why the failure is accepted", path, i+1, e)
		}
	}
	return &bl, nil
}

// Check refuses an entry that names no rule of the catalogue or no
// scenario of the features.
func (bl *Baseline) Check(catalogue *docs.Catalogue, plan []*selection.Planned) error {
	for _, e := range bl.Entries {
		if e.Rule != "" {
			if _, ok := catalogue.Rule(e.Rule); !ok {
				return Usage("expected failures: %s is not a rule of docs/rules.md", e)
			}
			continue
		}
		if !slices.ContainsFunc(plan, e.names) {
			return Usage("expected failures: %s names no scenario of the features (give its name or file:line, as the reports show them)", e)
		}
	}
	return nil
}

// names reports whether e names the scenario p.
func (e Expectation) names(p *selection.Planned) bool {
	if e.Rule != "" {
		return slices.Contains(p.Rules, e.Rule)
	}
	return e.Scenario == p.Name || e.Scenario == p.PickleName || e.Scenario == p.Place()
}

// Covers returns the entry that expects s to fail, if any: one naming
// the scenario, or a rule its failure blames (an entry for one rule does
// not excuse a failure of another rule of the same scenario).
func (bl *Baseline) Covers(s *ScenarioResult) (Expectation, bool) {
	if bl == nil {
		return Expectation{}, false
	}
	for _, e := range bl.Entries {
		switch {
		case e.Rule != "" && slices.Contains(s.Blamed(), e.Rule):
			return e, true
		case e.Rule == "" && e.names(s.Planned):
			return e, true
		}
	}
	return Expectation{}, false
}

// Apply turns the failures the baseline expects into expected failures,
// and tells what became of each entry. It returns the stale entries.
func (bl *Baseline) Apply(scenarios []*ScenarioResult) []BaselineStatus {
	if bl == nil {
		return nil
	}
	for _, s := range scenarios {
		if e, ok := bl.Covers(s); ok {
			s.Expectation = e.Reason
			if s.Verdict == Failed {
				s.Verdict = ExpectedFailure
			}
		}
	}
	var out []BaselineStatus
	for _, e := range bl.Entries {
		status := EntryNotRun
		passed, failed := 0, 0
		for _, s := range scenarios {
			if !e.names(s.Planned) {
				continue
			}
			v := s.Verdict
			if e.Rule != "" {
				v = s.VerdictFor(e.Rule)
			}
			switch v {
			case ExpectedFailure:
				failed++
			case Passed, Flaky:
				passed++
			}
		}
		switch {
		case failed > 0:
			status = EntryExpected
		case passed > 0:
			status = EntryStale
		}
		out = append(out, BaselineStatus{Expectation: e, Status: status})
	}
	return out
}
