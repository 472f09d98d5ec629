package steps

import (
	"context"
	"fmt"

	"github.com/cucumber/godog"

	"eventsvc/conformance/repro"
)

// Reproduction is how to see a scenario's failure again: the requests it
// sent up to the failure, with their answers, masked, and a shell script
// that sends them again with curl.
type Reproduction struct {
	// Exchanges are the scenario's requests and answers, masked, in the
	// order it sent them, up to the failure: when the failure is about an
	// exchange, up to and including that one (LastFails), and those sent
	// after it (the probes a check sends to tell which rule is broken)
	// are left out.
	Exchanges []string
	// LastFails says that the last of Exchanges is the one the failure is
	// about; false when it is about none.
	LastFails bool
	// Script is a POSIX shell script that sends the same requests with
	// curl to $BASE_URL (the target, unless set): the run's credentials
	// are read from the CONFORMANCE_* variables, as the run reads them;
	// the tokens are taken from the answers as the scenario took them; the
	// values the suite made up (an invalid token, a wrong secret) are
	// written as they are. It holds no secret, and its output masks the
	// tokens of the answers.
	Script string
}

// reproKey is the context key of a failed step's Reproduction.
type reproKey struct{}

// ReproductionOf returns the reproduction of the scenario's requests that
// a failed step left in ctx, its after-step hooks' context.
func ReproductionOf(ctx context.Context) (Reproduction, bool) {
	r, ok := ctx.Value(reproKey{}).(Reproduction)
	return r, ok
}

// registerReproduction leaves the scenario's reproduction in the context
// of every step that fails, or during which an answer was cut.
func (s *scenario) registerReproduction(sc stepRegistry) {
	sc.StepContext().After(func(ctx context.Context, _ *godog.Step, status godog.StepResultStatus, err error) (context.Context, error) {
		cut := CutOf(ctx)
		if (status == godog.StepFailed || cut != nil) && s.rec != nil {
			if err == nil {
				err = cut
			}
			ctx = context.WithValue(ctx, reproKey{}, s.reproduction(err))
		}
		return ctx, nil
	})
}

// reproduction writes the scenario's exchanges up to the failure err as a
// Reproduction: up to and including the exchange err is about, or all of
// them when it is about none.
func (s *scenario) reproduction(err error) Reproduction {
	log := s.rec.exchanges()
	var r Reproduction
	if at, ok := failingExchange(err); ok && at >= 0 && at < len(log) {
		log, r.LastFails = log[:at+1], true
	}
	for _, x := range log {
		r.Exchanges = append(r.Exchanges, x.Transcript)
	}
	c := s.creds
	r.Script = repro.Script{
		Title: fmt.Sprintf("%q (%s)", s.name, s.place), LastFails: r.LastFails, Redactor: s.redactor,
		Base: s.base, Vars: append(c.Vars(), s.nearMisses...), ClientID: c.ClientID, ClientSecret: c.ClientSecret, BasicAsIs: c.BasicAsIs,
		Shared: []repro.Shared{
			{Token: s.tokens.of("user").access, Name: "ACCESS_USER", UserVar: "CONFORMANCE_USERNAME", PassVar: "CONFORMANCE_PASSWORD", What: "user's"},
			{Token: s.tokens.of("other").access, Name: "ACCESS_OTHER", UserVar: "CONFORMANCE_OTHER_USERNAME", PassVar: "CONFORMANCE_OTHER_PASSWORD", What: "other user's"},
		},
		Log: log,
	}.String()
	return r
}
