package steps

import (
	"context"
	"net/url"

	"github.com/cucumber/godog"

	"eventsvc/conformance/deadlink"
)

// A step that failed on an exchange at a dead link of the target (an
// address one of its links or Locations offered where nothing of the API
// answers, Target.DeadLinks) checked nothing: the runner tells it as not
// checked, for that reason (DeadLinkOf), and the dead link as API-10,
// once for the run.

// deadLinkKey is the context key of a step's failure at a dead link.
type deadLinkKey struct{}

// DeadLinkOf returns, of the step whose after-step hooks' context is ctx,
// its failure as a *deadlink.Error when the exchange it failed on was at
// a dead link; nil otherwise.
func DeadLinkOf(ctx context.Context) *deadlink.Error {
	err, _ := ctx.Value(deadLinkKey{}).(*deadlink.Error)
	return err
}

// registerDeadLinks leaves in the context of a step that failed at a
// dead link that failure, as a *deadlink.Error (DeadLinkOf).
func (s *scenario) registerDeadLinks(sc stepRegistry) {
	sc.StepContext().After(func(ctx context.Context, _ *godog.Step, status godog.StepResultStatus, err error) (context.Context, error) {
		if err == nil || s.target.DeadLinks == nil || s.rec == nil {
			return ctx, nil
		}
		if link := s.deadLinkOf(err); link != nil {
			ctx = context.WithValue(ctx, deadLinkKey{}, &deadlink.Error{Link: link, Err: err})
		}
		return ctx, nil
	})
}

// deadLinkOf is the dead link the exchange err is about was sent to, if
// any.
func (s *scenario) deadLinkOf(err error) *deadlink.Link {
	at, ok := failingExchange(err)
	if !ok {
		return nil
	}
	log := s.rec.exchanges()
	if at < 0 || at >= len(log) {
		return nil
	}
	u, perr := url.Parse(log[at].URL)
	if perr != nil {
		return nil
	}
	return s.target.DeadLinks.Dead(u)
}
