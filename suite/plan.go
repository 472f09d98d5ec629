package suite

import (
	"fmt"
	"strings"

	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/docs"
	"eventsvc/features"
)

// Prepare checks what o asks for, once, and plans its run: it reads the
// features and selects the scenarios the run checks (Planned), refusing
// (ErrUsage) an output format it does not know, a tag expression that
// does not parse, that names a tag or rule that does not exist, or that
// selects nothing the target can run. Run runs a prepared o as it is; it
// prepares one that is not.
func Prepare(o Options) (Options, error) {
	if o.Format != "" && o.Format != report.FormatCompact && o.Format != report.FormatPretty {
		return o, report.Usage("-format %q: want %s or %s", o.Format, report.FormatCompact, report.FormatPretty)
	}
	plan, effective, err := plan(o)
	if err != nil {
		return o, err
	}
	o.plan, o.effective, o.prepared = plan, effective, true
	return o, nil
}

// Planned returns the scenarios a prepared run checks, each with whether
// its selection runs it, and the tag expression in effect.
func (o Options) Planned() ([]*selection.Planned, selection.TagExpr) { return o.plan, o.effective }

// plan reads the features and selects the scenarios a run with o checks,
// and returns the expression in effect.
func plan(o Options) ([]*selection.Planned, selection.TagExpr, error) {
	if o.Features == nil {
		o.Features = features.FS
	}
	catalogue, err := docs.RuleCatalogue()
	if err != nil {
		return nil, selection.TagExpr{}, err
	}
	set, err := features.Load(o.Features)
	if err != nil {
		return nil, selection.TagExpr{}, err
	}
	plan := selection.Plan(set)
	expr, err := selection.ParseTags(o.Tags)
	if err != nil {
		return nil, selection.TagExpr{}, report.Usage("%w", err)
	}
	if err := selection.CheckTags(expr, plan, catalogue); err != nil {
		return nil, selection.TagExpr{}, report.Usage("%w", err)
	}
	sel := selection.Selection{Tags: expr, Default: o.DefaultTags, Remote: o.Target.Remote(), Clock: o.Target.ControlURL != "", ReadOnly: o.ReadOnly, Slow: o.Slow}
	effective, err := selection.Select(plan, sel)
	if err != nil {
		return nil, selection.TagExpr{}, report.Usage("%w", err)
	}
	if err := selection.Only(plan, o.Scenarios); err != nil {
		return nil, selection.TagExpr{}, report.Usage("%w", err)
	}
	run, left := 0, map[string]int{}
	for _, p := range plan {
		if p.Run {
			run++
		} else if expr.Match(p.Tags) {
			left[p.Reason]++
		}
	}
	if run == 0 {
		what := fmt.Sprintf("the tags %q select no scenario", expr.String())
		if len(left) > 0 {
			var parts []string
			for _, r := range []string{selection.ReasonLocal, selection.ReasonClock, selection.ReasonSlow, selection.ReasonRef, selection.ReasonReadOnly} {
				if left[r] > 0 {
					parts = append(parts, fmt.Sprintf("%d %s (%s)", left[r], r, selection.ReasonText(r)))
				}
			}
			what = fmt.Sprintf("the tags %q select no scenario this run can check: %s", expr.String(), strings.Join(parts, ", "))
		}
		return nil, selection.TagExpr{}, report.Usage("%s", what)
	}
	return plan, effective, nil
}
