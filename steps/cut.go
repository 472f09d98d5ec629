package steps

import (
	"context"

	"github.com/cucumber/godog"
)

// An answer the suite could not read whole is never taken for the part
// of it that came: the request's send fails with a readError. An answer
// cut by a bound of the run (cutoff.CutError: longer than Target.MaxAnswer,
// or not over within Target.Timeout) also fails the step it came in,
// whatever the step made of the failure (a probe's answer may be one it
// only looks at), and the runner reports it as a finding of its own kind
// (CutOf), which blames no rule.

// readError is an answer that could not be read whole: cut by a bound of
// the run (a *cutoff.CutError inside), or broken off. Its text is masked,
// and ends with the exchange as far as it came.
type readError struct {
	text string
	err  error
}

func (e *readError) Error() string { return e.text }
func (e *readError) Unwrap() error { return e.err }

// cutKey is the context key of a step's cut answer.
type cutKey struct{}

// CutOf returns the first answer that a bound of the run cut during the
// step whose after-step hooks' context is ctx: an error that wraps the
// *cutoff.CutError, whose text is masked and ends with the exchange. It
// returns nil when no answer of the step was cut.
func CutOf(ctx context.Context) error {
	err, _ := ctx.Value(cutKey{}).(error)
	return err
}

// registerCuts fails every step during which an answer was cut, and
// leaves the cut in the step's context for the runner (CutOf).
func (s *scenario) registerCuts(sc stepRegistry) {
	sc.StepContext().After(func(ctx context.Context, _ *godog.Step, _ godog.StepResultStatus, err error) (context.Context, error) {
		return s.afterStep(ctx, err)
	})
}

// afterStep is the hook of registerCuts for a step that ended with err.
func (s *scenario) afterStep(ctx context.Context, err error) (context.Context, error) {
	if s.rec == nil {
		return ctx, nil
	}
	cut := s.rec.takeCut()
	if cut == nil {
		return ctx, nil
	}
	ctx = context.WithValue(ctx, cutKey{}, cut)
	if err != nil {
		return ctx, nil // failed already: the runner tells the cut from the context
	}
	return ctx, cut
}
