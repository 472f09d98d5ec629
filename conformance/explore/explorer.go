package explore

import (
	"context"

	"eventsvc/conformance/report"
	"eventsvc/conformance/target"
)

// Explorer explores the target of a run of the scenarios after them, as
// the binary's default run does: the runner (package suite) builds
// it from the Options it is given (suite.Options.Explore), with
// their budget, seed, concurrency and output, and gives it the target it
// checked with its preflight. It writes no report and prints no summary:
// the run reports its sequences with its scenarios, once.
type Explorer struct {
	// Options are the exploration's budget; the run gives the target,
	// and Replay and ReportDir are left aside.
	Options Options
}

// Explore explores t, read-only when t is or the options are, and
// checking the reference server's choices too against an in-process one;
// it tells ended of each sequence as it ends. It returns the sequences
// as an unwritten report (explore): their places explore:N, each finding
// with its replay file, its reproduction not yet named, the rules with
// the exploration's checks, the seed in its Selection; the report's
// Outcome says whether the target throttled the run or stopped
// answering. Its error is ErrThrottled or ErrSetup when it could not
// start.
func (e Explorer) Explore(ctx context.Context, t target.Target, ended func(*report.ScenarioResult)) (*report.Report, error) {
	o := e.Options.withDefaults()
	o.Target, o.Replay, o.ReportDir = t, nil, ""
	o.ReadOnly = o.ReadOnly || t.ReadOnly
	o.Ref = o.Ref || !t.Remote()
	o.checked = true
	return explore(ctx, o, nil, ended)
}
