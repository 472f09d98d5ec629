package steps

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"eventsvc/conformance/target"
)

// The steps that let a token's lifetime pass, from its issue: the access
// token's (as announced with it, up to Lifetimes.Access), the refresh
// token's (the first one the scenario was given), or half of it; nearly
// is Margin before its end, passed Margin after.
var (
	accessLifetime  = regexp.MustCompile(`^the lifetime announced with the access token has (nearly )?passed$`)
	refreshLifetime = regexp.MustCompile(`^(half )?the (?:first )?refresh token's lifetime has (nearly )?passed$`)
)

// Due says when a step that lets a token's lifetime pass ends, counted
// from the issue of the scenario's first tokens, with tokens that live as
// long as l says (the specification's when l is zero): upTo is true when it may end sooner, the target
// announcing a shorter access token lifetime. ok is false for any other
// step.
func Due(l target.Lifetimes, text string) (after time.Duration, upTo, ok bool) {
	l = l.OrSpec()
	if m := accessLifetime.FindStringSubmatch(text); m != nil {
		return l.Around(l.Access, m[1] != ""), true, true
	}
	if m := refreshLifetime.FindStringSubmatch(text); m != nil {
		if m[1] != "" {
			return l.Refresh / 2, false, true
		}
		return l.Around(l.Refresh, m[2] != ""), false, true
	}
	return 0, false, false
}

// The steps that let time pass: in-process by moving the server's clock
// (@local), against a reference server with a control API by moving its
// clock through it, against a deployment in real time (@slow).
func (s *scenario) registerClockSteps(sc stepRegistry) {
	sc.Step(`^(\d+) (?:more )?seconds? pass(?:es)?$`, s.timePasses)
	sc.Step(accessLifetime.String(), s.accessLifetimePasses)
	sc.Step(refreshLifetime.String(), s.refreshLifetimePasses)
}

// now is the time of the target's clock as the scenario keeps it: the
// run's clock (Target.Clock), plus what the scenario moved the target's
// clock by; in-process, where the server's clock moves only when told,
// the scenario's start plus that.
func (s *scenario) now() time.Time {
	if s.instance != nil {
		return s.began.Add(s.advanced)
	}
	return s.clock().Now().Add(s.advanced)
}

// clock is the run's clock: Target.Clock, or the machine's.
func (s *scenario) clock() target.Clock {
	if s.target.Clock != nil {
		return s.target.Clock
	}
	return target.SystemClock{}
}

// accessLifetimePasses lets the user's access token's lifetime pass,
// nearly or wholly, from its issue: the expires_in announced with it, up
// to Lifetimes.Access, or that when it announced none.
func (s *scenario) accessLifetimePasses(ctx context.Context, nearly string) error {
	l := s.target.Lifetimes.OrSpec()
	h := s.tokens.user
	if h.access == "" {
		return fmt.Errorf("the scenario holds no access token to watch")
	}
	lifetime := l.Access
	if announced := time.Duration(h.expiresIn) * time.Second; announced > 0 && announced < lifetime {
		lifetime = announced
	}
	return s.waitUntil(ctx, h.issuedAt.Add(l.Around(lifetime, nearly != "")))
}

// refreshLifetimePasses lets the lifetime of the user's first refresh
// token pass, nearly or wholly, or half of it, from its issue.
func (s *scenario) refreshLifetimePasses(ctx context.Context, half, nearly string) error {
	l := s.target.Lifetimes.OrSpec()
	h := s.tokens.user
	if h.first.refresh == "" {
		return fmt.Errorf("the scenario holds no refresh token to watch")
	}
	d := l.Around(l.Refresh, nearly != "")
	if half != "" {
		d = l.Refresh / 2
	}
	return s.waitUntil(ctx, h.first.issued.Add(d))
}

// waitUntil lets time pass until t of the target's clock (now).
func (s *scenario) waitUntil(ctx context.Context, t time.Time) error {
	return s.wait(ctx, t.Sub(s.now()))
}

// wait lets d pass: in-process by moving the server's clock, through the
// control API when the target has one, against a remote target in real
// time, on the run's clock.
func (s *scenario) wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	if s.scope != nil && (s.instance != nil || s.target.ControlURL != "") {
		s.scope.Advance(d) // the audit's tokens age with the target's clock
	}
	switch {
	case s.instance != nil:
		s.instance.Advance(d)
	case s.target.ControlURL != "":
		if err := s.advanceClock(d); err != nil {
			return err
		}
	default:
		if err := s.clock().Sleep(ctx, d); err != nil {
			return fmt.Errorf("the wait of %s was cut short: %w", d.Round(time.Second), err)
		}
		return nil
	}
	s.target.Pool.Forget() // the run's tokens age with the clock moved
	s.advanced += d
	return nil
}

// timePasses moves the server's clock by n seconds: the in-process
// server's, or a reference server's through its control API.
func (s *scenario) timePasses(ctx context.Context, n int) error {
	if s.instance == nil && s.target.ControlURL == "" {
		return fmt.Errorf("moving the clock needs the in-process reference server (tag @local), or a reference server's control API (-control-url)")
	}
	return s.wait(ctx, time.Duration(n)*time.Second)
}
