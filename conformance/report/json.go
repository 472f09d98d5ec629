package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"time"

	"eventsvc/conformance/selection"
)

// JSONReport is the name of the machine-readable report, and
// ReportSchemaVersion the version of its shape: conformance.schema.json
// describes it, and a change that breaks a reader raises it.
const (
	JSONReport          = "conformance.json"
	ReportSchemaVersion = 4
)

// ReportSchema is conformance.schema.json, the JSON Schema of
// conformance.json.
//
//go:embed conformance.schema.json
var ReportSchema []byte

// Document is conformance.json, as a Go program reads it; its fields are
// described by conformance.schema.json.
type Document struct {
	SchemaVersion int `json:"schemaVersion"`
	// Headline is the run's verdict in one line (Report.Headline): what a
	// tool shows first. A run that passed but left rules of the
	// specification unchecked says "PASSED, but 4 spec rules NOT
	// CHECKED: …".
	Headline string `json:"headline"`
	// NotChecked are the rules of the specification the run did not
	// check, grouped by why (Report.NotChecked).
	NotChecked   []DocumentNotChecked `json:"notChecked"`
	Suite        DocumentSuite        `json:"suite"`
	Target       string               `json:"target"`
	RunID        string               `json:"runId"`
	Tags         string               `json:"tags"`
	Selection    string               `json:"selection"`
	ReadOnly     bool                 `json:"readOnly"`
	Concurrency  int                  `json:"concurrency"`
	Retries      int                  `json:"retries"`
	Started      string               `json:"started"`
	DurationMs   int64                `json:"durationMs"`
	Outcome      string               `json:"outcome"`
	Error        string               `json:"error,omitempty"`
	FailedLogins int                  `json:"failedLogins"`
	Waits        int                  `json:"waits"`
	WaitedMs     int64                `json:"waitedMs"`
	Counts       map[string]int       `json:"counts"`
	// ForeignOrigins are the origins other than the target's that the
	// run sent requests to, without credentials (Report.Foreign).
	ForeignOrigins []DocumentForeign `json:"foreignOrigins"`
	// Varied is what an exploration varied (Report.Varied): every
	// operator of the mutator's catalogue, sent or not and why; empty
	// when the run did not explore.
	Varied []Varied `json:"varied"`
	// Settings are what the user set, flag by flag (Report.Settings).
	Settings  []Setting             `json:"settings"`
	Baseline  []DocumentExpectation `json:"baseline"`
	Rules     []DocumentRule        `json:"rules"`
	Scenarios []DocumentScenario    `json:"scenarios"`
}

// DocumentNotChecked is a group of rules of the specification a run did
// not check (NotCheckedGroup).
type DocumentNotChecked struct {
	Why    string   `json:"why"`
	Rules  []string `json:"rules"`
	How    string   `json:"how"`
	Beyond bool     `json:"beyond"`
}

// DocumentSuite is the suite that wrote a Document: its name, and the
// version, revision and build date of its build (package version).
type DocumentSuite struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Revision string `json:"revision"`
	Date     string `json:"date"`
}

// DocumentForeign is an origin other than the target's that a run sent
// requests to, without credentials.
type DocumentForeign struct {
	Origin   string   `json:"origin"`
	Requests int      `json:"requests"`
	Via      []string `json:"via"`
}

// DocumentExpectation is a baseline entry of a Document, with what became of it.
type DocumentExpectation struct {
	Rule     string `json:"rule,omitempty"`
	Scenario string `json:"scenario,omitempty"`
	Reason   string `json:"reason"`
	Status   string `json:"status"`
}

// DocumentRule is the verdict on one rule in a Document.
type DocumentRule struct {
	ID          string         `json:"id"`
	Kind        string         `json:"kind"`
	Verdict     string         `json:"verdict"`
	Selected    bool           `json:"selected"`
	NotRun      []string       `json:"notRunReasons,omitempty"`
	Expectation string         `json:"expectedFailure,omitempty"`
	Stale       bool           `json:"stale,omitempty"`
	Counts      map[string]int `json:"counts"`
	Scenarios   []string       `json:"scenarios"`
	// Checks is how many answers the audit of a run, or an exploration,
	// checked against the rule.
	Checks int `json:"checks,omitempty"`
}

// DocumentScenario is one scenario of a Document.
type DocumentScenario struct {
	Name         string           `json:"name"`
	Feature      string           `json:"feature"`
	Place        string           `json:"place"`
	Tags         []string         `json:"tags"`
	Rules        []string         `json:"rules"`
	Verdict      string           `json:"verdict"`
	NotRunReason string           `json:"notRunReason,omitempty"`
	NotRunDetail string           `json:"notRunDetail,omitempty"`
	Expectation  string           `json:"expectedFailure,omitempty"`
	Blamed       []string         `json:"failedRules,omitempty"`
	Attempts     int              `json:"attempts"`
	DurationMs   int64            `json:"durationMs"`
	Failure      *DocumentFailure `json:"failure,omitempty"`
}

// DocumentFailure is how a scenario of a Document failed.
type DocumentFailure struct {
	Step     string   `json:"step"`
	Line     int      `json:"line"`
	Message  string   `json:"message"`
	Exchange string   `json:"exchange,omitempty"`
	Rules    []string `json:"rules,omitempty"`
	Setup    bool     `json:"setup,omitempty"`
	// Exchanges are the scenario's requests up to the failure, masked.
	Exchanges []string `json:"exchanges,omitempty"`
	// FailingExchange is the number, from 1, of the exchange the failure
	// is about, the last of Exchanges; 0 (left out) for none.
	FailingExchange int `json:"failingExchange,omitempty"`
	// Reproduction is the script that replays them, under the report
	// folder.
	Reproduction string `json:"reproduction,omitempty"`
	// ServerError is, of an exploration, an answer of 5xx: it blames no
	// rule.
	ServerError bool `json:"serverError,omitempty"`
	// AnswerCut is an answer cut by a bound of the run, on its size or
	// its time: it blames no rule.
	AnswerCut bool `json:"answerCut,omitempty"`
	// Replay is, of an exploration, the file conformance explore -replay
	// runs again, under the report folder.
	Replay string `json:"replay,omitempty"`
}

// reportJSON renders conformance.json.
func reportJSON(rep *Report) ([]byte, error) {
	doc := Document{
		SchemaVersion: ReportSchemaVersion, Headline: rep.Headline(), NotChecked: []DocumentNotChecked{},
		Suite: DocumentSuite{Name: "event-service-conformance",
			Version: rep.Version.Version, Revision: rep.Version.Revision, Date: rep.Version.Date},
		Target: rep.Target, RunID: rep.RunID, Tags: rep.Tags, Selection: rep.Selection, ReadOnly: rep.ReadOnly,
		Concurrency: max(rep.Concurrency, 1), Retries: rep.Retries,
		Started: rep.Started.UTC().Format(time.RFC3339), DurationMs: rep.Duration.Milliseconds(),
		Outcome: rep.Outcome, Error: rep.Error, FailedLogins: rep.FailedLogins,
		Waits: rep.Waits, WaitedMs: rep.Waited.Milliseconds(),
		Counts: map[string]int{}, Baseline: []DocumentExpectation{}, Rules: []DocumentRule{}, Scenarios: []DocumentScenario{},
		ForeignOrigins: []DocumentForeign{}, Varied: append([]Varied{}, rep.Varied...), Settings: append([]Setting{}, rep.Settings...),
	}
	for _, g := range rep.NotChecked() {
		doc.NotChecked = append(doc.NotChecked, DocumentNotChecked{Why: g.Why, Rules: g.Rules, How: g.How, Beyond: g.Beyond})
	}
	for _, f := range rep.Foreign {
		via := f.Via
		if via == nil {
			via = []string{}
		}
		doc.ForeignOrigins = append(doc.ForeignOrigins, DocumentForeign{Origin: f.Origin, Requests: f.Requests, Via: via})
	}
	for _, v := range []string{Passed, Failed, ExpectedFailure, Flaky, NotRun} {
		doc.Counts[v] = 0
	}
	for v, n := range rep.Counts() {
		doc.Counts[v] = n
	}
	for _, e := range rep.Baseline {
		doc.Baseline = append(doc.Baseline, DocumentExpectation{Rule: e.Rule, Scenario: e.Scenario, Reason: e.Reason, Status: e.Status})
	}
	for _, r := range rep.Rules {
		jr := DocumentRule{ID: r.ID, Kind: r.Kind, Verdict: r.Verdict, Selected: r.Selected, NotRun: r.Reasons,
			Expectation: r.Expectation, Stale: r.Stale, Counts: map[string]int{}, Scenarios: []string{}, Checks: r.Checks}
		for v, n := range r.Counts {
			jr.Counts[v] = n
		}
		for _, s := range r.Scenarios {
			jr.Scenarios = append(jr.Scenarios, s.Place())
		}
		doc.Rules = append(doc.Rules, jr)
	}
	for _, s := range rep.Scenarios {
		js := DocumentScenario{Name: s.Name, Feature: s.Feature, Place: s.Place(), Tags: s.Tags, Rules: s.Rules, Verdict: s.Verdict,
			Expectation: s.Expectation, Attempts: s.Attempts, DurationMs: s.Duration.Milliseconds()}
		if js.Tags == nil {
			js.Tags = []string{}
		}
		if js.Rules == nil {
			js.Rules = []string{}
		}
		if s.Verdict == NotRun {
			js.NotRunReason, js.NotRunDetail = s.Reason, s.Detail
			if js.NotRunReason == "" {
				js.NotRunReason = selection.ReasonNoStart
			}
		}
		if f := s.Failure; f != nil && s.Verdict != NotRun {
			js.Failure = &DocumentFailure{Step: f.Step, Line: f.Line, Message: f.Message, Exchange: f.Exchange, Rules: f.Rules, Setup: f.Setup,
				Exchanges: f.Exchanges, FailingExchange: f.FailingExchange, Reproduction: f.ScriptFile, ServerError: f.ServerError, AnswerCut: f.AnswerCut, Replay: f.ReplayFile}
			js.Blamed = s.Blamed()
		}
		doc.Scenarios = append(doc.Scenarios, js)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("conformance report: %w", err)
	}
	return EscapeJSON(b.Bytes()), nil
}
