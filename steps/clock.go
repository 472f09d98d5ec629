package steps

import (
	"fmt"
	"time"

	"github.com/cucumber/godog"
)

// slowMargin is added to a real-time wait against a remote target, for the
// clocks of two machines and the time requests take.
const slowMargin = 2 * time.Second

// The steps that let time pass: in-process by moving the server's clock
// (@local), against a reference server with a control API by moving its
// clock through it, against a deployment in real time (@slow).
func (s *scenario) registerClockSteps(sc *godog.ScenarioContext) {
	sc.Step(`^(\d+) (?:more )?seconds? pass(?:es)?$`, s.timePasses)
	sc.Step(`^the lifetime announced with the access token has passed$`, func() error { return s.wait(time.Duration(s.tokens.user.expiresIn) * time.Second) })
	sc.Step(`^(\d+) seconds have passed since the token was issued$`, s.waitSinceIssue)
}

// wait lets d pass: in-process by moving the server's clock, through the
// control API when the target has one, against a remote target in real
// time, plus slowMargin.
func (s *scenario) wait(d time.Duration) error {
	d = max(d, 0)
	s.target.Pool.forget() // its tokens age too
	if s.scope != nil && (s.instance != nil || s.target.ControlURL != "") {
		s.scope.Advance(d)
	}
	if s.instance != nil {
		s.instance.Advance(d)
		return nil
	}
	if s.target.ControlURL != "" {
		return s.advanceClock(d)
	}
	time.Sleep(d + slowMargin)
	return nil
}

// waitSinceIssue lets n seconds pass since the user's last token was
// issued. The in-process server's clock moves only when told to, so there
// the whole span passes; in real time, what has already passed is counted.
func (s *scenario) waitSinceIssue(n int) error {
	d := time.Duration(n) * time.Second
	if s.instance == nil {
		d -= time.Since(s.tokens.user.issuedAt)
	}
	return s.wait(d)
}

// timePasses moves the server's clock by n seconds: the in-process
// server's, or a reference server's through its control API.
func (s *scenario) timePasses(n int) error {
	if s.instance == nil && s.target.ControlURL == "" {
		return fmt.Errorf("moving the clock needs the in-process reference server (tag @local), or a reference server's control API (-control-url)")
	}
	return s.wait(time.Duration(n) * time.Second)
}
