package steps

import (
	"context"

	"eventsvc/conformance/audit"

	"github.com/cucumber/godog"
)

// contractTag marks the scenarios whose answers are checked against the
// Target's Contract: the reference server's choices, which the document
// describes.
const contractTag = "@ref"

// registerContract has the run's audit check every exchange of a @ref
// scenario against the target's Contract (audit.Scope.CheckContract,
// spec API-11), and fails each step with the first difference the audit
// found in the answers the step received. No feature file needs to ask
// for it.
func (s *scenario) registerContract(sc stepRegistry) {
	checked, from := false, 0
	sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
		checked = s.target.Contract != nil && hasTag(p, contractTag)
		if checked {
			if s.scope == nil {
				return ctx, errNoAudit
			}
			s.scope.CheckContract()
		}
		return ctx, nil
	})
	sc.StepContext().Before(func(ctx context.Context, _ *godog.Step) (context.Context, error) {
		from = s.rec.size()
		return ctx, nil
	})
	sc.StepContext().After(func(ctx context.Context, _ *godog.Step, _ godog.StepResultStatus, err error) (context.Context, error) {
		if !checked || err != nil {
			return ctx, nil
		}
		for at := from; at < s.rec.size(); at++ {
			if found, _ := s.scope.TakeOwn(at, audit.AsDocumented.Rules()...); len(found) > 0 {
				return ctx, s.findingFailure(found[0], at, s.redactor.String(found[0].Message))
			}
		}
		return ctx, nil
	})
}

func hasTag(p *godog.Scenario, tag string) bool {
	for _, t := range p.Tags {
		if t.Name == tag {
			return true
		}
	}
	return false
}
