// Package explore runs generated, stateful sequences of actions against a
// target and checks every answer against the rules of the specification
// that apply to it: the faults no scenario was written for, those that
// depend on data (a name in another script, a page size, a boundary date)
// or on a sequence (refresh, then update; update, then update again).
//
// A sequence is a list of actions a client could take with what the
// answers offer it (Action), drawn from a seed. A model of what a correct
// target holds (its events, who manages each, what each token may do,
// what was last written) is the oracle. A failing sequence is shrunk to a
// short one with the simplest data, and reported as the scenario runner
// reports a failed scenario: the rule it breaks, the exchanges, a curl
// script, and a replay file that `conformance explore -replay` runs again.
package explore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/origin"
	"eventsvc/conformance/report"
	"eventsvc/conformance/repro"
	"eventsvc/conformance/target"
	"eventsvc/internal/redact"
	"eventsvc/internal/version"
)

// Errors of Run, as those of suite.Run: the binary's exit status
// follows from them.
var (
	// ErrFailed: a sequence found an answer that breaks a rule, a
	// server error, or an answer cut.
	ErrFailed = report.ErrFailed
	// ErrThrottled: the target answered 429 Too Many Requests.
	ErrThrottled = report.ErrThrottled
	// ErrUnreachable: the target stopped answering.
	ErrUnreachable = report.ErrUnreachable
	// ErrSetup: the exploration could not start (a *SetupError).
	ErrSetup = errors.New("explore")
)

// Defaults of Options.
const (
	DefaultMaxActions     = 400
	DefaultMaxTime        = 2 * time.Minute
	DefaultMaxEvents      = 200
	DefaultSequenceLength = 20
	DefaultFailedLogins   = 4
	DefaultShrinkTrials   = 150
)

// Options configure an exploration.
type Options struct {
	// Target is what it explores: a deployment (BaseURL), or, with a
	// Launcher, one in-process reference server for the whole run.
	Target target.Target
	// Seed draws every sequence; 0 draws one from the clock. The same
	// seed, run alone (Concurrency 1) against a target in the same state,
	// explores the same sequences.
	Seed uint64
	// MaxActions bounds the actions of all sequences; MaxTime the run's
	// time. Zero: the defaults.
	MaxActions int
	MaxTime    time.Duration
	// Concurrency is how many sequences run at once. Default 1.
	Concurrency int
	// SequenceLength is how many actions a sequence runs at most.
	SequenceLength int
	// MaxEvents bounds the events the run creates, shrinking included.
	MaxEvents int
	// FailedLogins bounds the token requests with wrong credentials the
	// run sends, below the target's lockout.
	FailedLogins int
	// ShrinkTrials bounds the replays that shrink one failing sequence.
	ShrinkTrials int
	// ReadOnly creates and changes nothing: reads only.
	ReadOnly bool
	// Ref also checks the reference server's choices: every answer against
	// the OpenAPI document (Target.Contract).
	Ref bool
	// Replay, when set, runs these actions once, as one sequence, instead
	// of generating sequences.
	Replay *Replay
	// ReportDir receives the reports; "" writes none.
	ReportDir string
	// Output receives the progress report. Default: os.Stdout.
	Output io.Writer
	// Color colours the output, for a terminal.
	Color bool
	// Settings are what the user set, as the reports show them
	// (report.Setting).
	Settings []report.Setting

	// checked says that the target passed the preflight of a run of the
	// scenarios (Explorer), which the exploration does not send again.
	checked bool
}

// runner is one exploration.
type runner struct {
	o        Options
	target   target.Target
	client   *http.Client
	guard    *origin.Guard // the client's transport: credentials go to the target's origin only
	watch    *target.Watch
	redactor *redact.Redactor
	ref      bool // the target is the reference server, its OpenAPI document at hand
	// nearMisses are the near-misses of credentials the variants sent,
	// with the expressions of their variables (guarded by mu).
	nearMisses []repro.Var
	// derived are the values the variants sent made from tokens (guarded
	// by mu).
	derived []repro.Derived
	// familyTurn and drawnIn are where drawVariant is in the catalogue:
	// the family whose turn it is, and the variants drawn of each
	// family (guarded by mu).
	familyTurn int
	drawnIn    map[string]int
	// sent counts the variants sent, by operator (guarded by mu).
	sent map[string]int
	// kindsSent are the near-misses of the credentials sent, by kind
	// (mutate.CredentialNearMissKinds), and kindsBuilt those the run's
	// credentials have; headTried the places in the operator's order of
	// the head's that a sequence tried to send (nearMissHeadLeft).
	kindsSent, kindsBuilt map[string]bool
	headTried             map[int]bool
	// pass is the catalogue pass's variants not sent yet.
	pass *planned
	// nearMissDrawn counts the near-misses of credentials drawn.
	nearMissDrawn atomic.Int64
	readOnly      bool

	base   string // the target's address
	root   string // the API root
	events string // the list, as the root's "events" link gives it (API-1)
	create string // where events are created: the list's "create-new-event"
	madeUp string // the invalid token

	pool      map[string]tokens // the accounts' shared tokens
	body      map[string]any    // the target's accepted event body, named with mark
	mark      string            // the run's marks on every name it writes
	sizeParam string            // the query parameter of a page size, if the target has one

	actions      atomic.Int64
	created      atomic.Int64
	passEvents   atomic.Int64 // of created, those the catalogue pass's variants took
	failedLogins atomic.Int64

	// audit checks every exchange against every rule that governs it
	// (audited.go): scope is the setup's, scopes the sequences'.
	audit    *audit.Audit
	ownAudit bool // the exploration's own, which it reports
	scope    *audit.Scope
	scopes   []*audit.Scope

	mu      sync.Mutex
	checks  map[string]int   // by rule, over the run
	replays map[int][]Action // the actions of each finding, by sequence
	shrunk  map[string]int   // the sequence shrunk for each kind of finding
}

// tokens are an account's shared tokens.
type tokens struct{ access, refresh string }

// SetupError is an exploration that could not start, and why: its
// message is Err's, with "explore: " before it, and errors.Is(err,
// ErrSetup) holds of it.
type SetupError struct{ Err error }

func (e *SetupError) Error() string { return "explore: " + e.Err.Error() }

// Unwrap returns why the exploration could not start.
func (e *SetupError) Unwrap() error { return e.Err }

// Is reports whether target is ErrSetup.
func (e *SetupError) Is(target error) bool { return target == ErrSetup }

// Run explores the target and reports what it found, as suite.Run
// reports a run of the scenarios: a verdict per sequence and per rule,
// and the reports in ReportDir. The report is returned with every error
// but ErrSetup.
func Run(ctx context.Context, o Options) (*report.Report, error) {
	o = o.withDefaults()
	out := report.NewConsole(o.Output, report.FormatCompact, o.Color)
	out.ReportDir, out.Unit = o.ReportDir, "sequence"
	w := &report.Writer{Dir: o.ReportDir}
	rep, err := explore(ctx, o, w.Start, out.ScenarioEnded)
	switch {
	case errors.Is(err, ErrThrottled):
		if werr := w.Finish(rep); werr != nil {
			return rep, werr
		}
		return rep, err
	case errors.Is(err, ErrSetup):
		if werr := report.WriteNotStarted(o.ReportDir, rep, err); werr != nil {
			return nil, fmt.Errorf("%w (and the reports that say so could not be written: %v)", err, werr)
		}
		return nil, err
	case err != nil:
		return nil, err
	}
	report.NameReproductions(rep.Scenarios)
	out.Summary(rep)
	if err := w.Finish(rep); err != nil {
		return rep, err
	}
	return rep, rep.Err()
}

// withDefaults is o with a seed drawn from the clock and the defaults of
// the budgets it leaves at zero.
func (o Options) withDefaults() Options {
	if o.Output == nil {
		o.Output = os.Stdout
	}
	if o.Seed == 0 {
		o.Seed = uint64(time.Now().UnixNano())
	}
	o.MaxActions = orDefault(o.MaxActions, DefaultMaxActions)
	o.MaxTime = time.Duration(orDefault(int(o.MaxTime), int(DefaultMaxTime)))
	o.Concurrency = orDefault(o.Concurrency, 1)
	o.SequenceLength = orDefault(o.SequenceLength, DefaultSequenceLength)
	o.MaxEvents = orDefault(o.MaxEvents, DefaultMaxEvents)
	o.ShrinkTrials = orDefault(o.ShrinkTrials, DefaultShrinkTrials)
	if o.FailedLogins == 0 {
		o.FailedLogins = DefaultFailedLogins
	}
	return o
}

// explore readies the exploration o asks for, tells started of it, runs
// its sequences, telling ended of each as it ends, and returns what it
// found as a report it writes nowhere: the sequences, each finding with
// its replay file (report.Failure.Replay), the rules with their checks.
// Its error is ErrThrottled, with the report, when the target throttled
// the setup, and ErrSetup, with a report saying what was set, when it
// could not start.
func explore(ctx context.Context, o Options, started func(*report.Report) error, ended func(*report.ScenarioResult)) (*report.Report, error) {
	rep := &report.Report{RunID: o.Target.RunID, Version: version.Get(), Tags: "explore", Selection: fmt.Sprintf("explore, seed %d", o.Seed),
		ReadOnly: o.ReadOnly, Started: time.Now().UTC(), Target: o.Target.BaseURL, Concurrency: o.Concurrency, FailedLogins: max(o.FailedLogins, 0), Settings: o.Settings}
	if rep.Target == "" {
		rep.Target = "in-process"
	}
	own := !o.Target.Opened() // an exploration alone: its session, and its audit, which it reports
	var err error
	if o.Target, err = target.Open(o.Target, target.Sharing{ReadOnly: o.ReadOnly, Workers: max(4, 2*o.Concurrency), Ref: o.Ref}); err != nil {
		return rep, &SetupError{Err: err}
	}
	origins := o.Target.Origins
	foreign := func() []origin.Foreign {
		return origin.Mask(origins.Foreign(), redact.New(o.Target.Credentials.Secrets()...).String)
	}
	r, stop, err := start(ctx, o, own)
	if err != nil && own {
		o.Target.Audit.Close()
	}
	var throttled *target.ThrottledError
	if errors.As(err, &throttled) {
		rep.Foreign = foreign()
		rep.Outcome, rep.Error, rep.Duration = report.OutcomeThrottled, throttled.Error(), time.Since(rep.Started)
		return rep, fmt.Errorf("%w: %s", ErrThrottled, throttled.Error())
	}
	if err != nil {
		rep.Foreign = foreign()
		return rep, &SetupError{Err: err}
	}
	defer stop()
	if started != nil {
		if err := started(rep); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(o.Output, "Exploring %s with seed %d: at most %d actions, %s, %d events, %d failed logins; %d at once\n\n",
		rep.Target, o.Seed, o.MaxActions, o.MaxTime, o.MaxEvents, max(o.FailedLogins, 0), o.Concurrency)

	results := r.explore(ctx, ended)
	r.releaseAudit()
	var checks map[string]int
	if r.ownAudit {
		r.audit.Close()
		var audited []*report.ScenarioResult
		audited, checks = r.auditResults(results)
		for _, res := range audited {
			ended(res)
		}
		results = append(results, audited...)
	}
	rep.Scenarios = results
	rep.Waits, rep.Waited = r.watch.SlowedDown()
	rep.Foreign = origin.Mask(origins.Foreign(), r.redactor.String)
	if err := r.nameReplays(results); err != nil {
		return nil, err
	}
	rep.Rules = r.ruleResults(results)
	report.AddChecks(rep.Rules, checks)
	rep.Varied = r.varied()
	rep.Duration = time.Since(rep.Started)
	rep.Outcome = report.OutcomePassed
	switch {
	case r.watch.Throttled() != nil:
		rep.Outcome, rep.Error = report.OutcomeThrottled, r.watch.Throttled().Error()
	case r.watch.Unreachable() != nil:
		rep.Outcome, rep.Error = report.OutcomeUnreachable, r.watch.Unreachable().Error()
	case rep.Findings() > 0:
		rep.Outcome = report.OutcomeFailed
	}
	return rep, nil
}

func orDefault(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

// explore runs sequences until a budget is spent, Concurrency at a time,
// telling ended of each as it ends, and returns them in order.
func (r *runner) explore(ctx context.Context, ended func(*report.ScenarioResult)) []*report.ScenarioResult {
	ctx, cancel := context.WithTimeout(ctx, r.o.MaxTime)
	defer cancel()
	if r.o.Replay != nil {
		res := r.runOne(ctx, 1, nil, r.o.Replay.Actions)
		if res == nil {
			return nil // a replay whose actions had nothing to do here
		}
		ended(res)
		return []*report.ScenarioResult{res}
	}
	var (
		mu      sync.Mutex
		results []*report.ScenarioResult
		next    atomic.Int64
		drawn   atomic.Int64
		wg      sync.WaitGroup
	)
	r.pass = r.plan()
	for w := 0; w < r.o.Concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r.goOn(ctx) {
				n := int(next.Add(1))
				planned := r.pass.take(r.o.SequenceLength)
				// A drawn sequence's draws are the seed's and its
				// place among the drawn ones', however long the pass.
				var rng *rand.Rand
				if planned != nil {
					rng = rand.New(rand.NewPCG(r.o.Seed, 1<<32+uint64(n)))
				} else {
					rng = rand.New(rand.NewPCG(r.o.Seed, uint64(drawn.Add(1))))
				}
				res := r.runOne(ctx, n, rng, planned)
				if res == nil && planned != nil {
					continue // none of its variants could be sent
				}
				if res == nil {
					return
				}
				ended(res)
				mu.Lock()
				results = append(results, res)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sortByLine(results)
	return results
}

// goOn reports whether the run has budget, time and a target left.
func (r *runner) goOn(ctx context.Context) bool {
	return ctx.Err() == nil && r.actions.Load() < int64(r.o.MaxActions) && !r.stopped()
}

// runOne runs sequence n: made of actions, those of a replay (rng nil)
// or of the catalogue pass, whose variants it did not send go back to
// the pass; or drawn from rng. A failing one, but a replay, is shrunk.
// It returns nil when the run had no budget left for a single action.
func (r *runner) runOne(ctx context.Context, n int, rng *rand.Rand, actions []Action) *report.ScenarioResult {
	started := time.Now()
	s := r.newSequence(ctx, n, rng)
	s.scope = r.sequenceScope(n, false)
	if actions != nil || rng == nil {
		// The catalogue pass's actions are a fixed cost of a run, as
		// shrinking is: MaxActions bounds the drawn ones.
		s.pass = rng != nil
		for i, a := range actions {
			if rng != nil && (ctx.Err() != nil || r.stopped()) {
				r.pass.giveBack(actions[i:])
				break
			}
			if !s.play(a) {
				if rng != nil && a.Kind == KindVariant {
					// Stopped at a variant: the ones after it go on in
					// the next sequence. Stopped at what the pass added
					// before them (a grant, a creation), they would stop
					// there again: they go unsent.
					r.pass.giveBack(actions[i+1:])
				}
				break
			}
		}
	} else {
		for i := 0; i < r.o.SequenceLength && r.goOn(ctx); i++ {
			r.actions.Add(1)
			if !s.play(s.next()) {
				break
			}
		}
	}
	if len(s.done) == 0 && s.found == nil && s.dead == nil {
		return nil
	}
	if s.scope != nil { // what the registry judged of its exchanges
		for rule, n := range s.scope.OwnChecks() {
			s.checks[rule] += n
		}
	}
	r.count(s.checks)
	original, first := len(s.done), 0
	if s.found != nil && rng != nil && !r.stopped() {
		// The first finding of each kind is shrunk; the others are
		// reported as they came, pointing to it.
		if first = r.claim(s.found, s.n); first == s.n {
			pass := s.pass
			s = r.shrink(ctx, s)
			s.pass = pass
		}
	}
	res := r.result(s, original, time.Since(started))
	if first != 0 && first != s.n {
		res.Name += fmt.Sprintf(" (another finding of %s; sequence %d shows it shrunk)", kindOf(s.found), first)
		res.Failure.SameAs = fmt.Sprintf("%s:%d", File, first)
	}
	return res
}

// claim returns the sequence that shows the fault of f's kind shrunk: n,
// when f is the first of its kind.
func (r *runner) claim(f *finding, n int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if first, ok := r.shrunk[kindOf(f)]; ok {
		return first
	}
	r.shrunk[kindOf(f)] = n
	return n
}

// kindOf is the kind of a finding: its rule, "server error" or "answer
// cut".
func kindOf(f *finding) string {
	switch {
	case f.serverError:
		return "server error"
	case f.cut:
		return "answer cut"
	}
	return f.rule
}

// stopped reports whether the target stopped answering, or throttled the
// run.
func (r *runner) stopped() bool { return r.watch.Throttled() != nil || r.watch.Unreachable() != nil }

// count adds a sequence's checks to the run's.
func (r *runner) count(checks map[string]int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, v := range checks {
		r.checks[k] += v
	}
}

// jsonObject reads a JSON object.
func jsonObject(raw []byte) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("the event body is not a JSON object: %v", err)
	}
	return m, nil
}
