package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"eventsvc/conformance/selection"
)

// LifetimeCheck is a step of a @slow scenario that lets a token's
// lifetime pass, and when it ends: when the watch of token lifetimes
// (-slow) checks that token next.
type LifetimeCheck struct {
	At time.Time
	// UpTo is true when it may come sooner: the target announces a
	// shorter lifetime than the longest the specification allows.
	UpTo     bool
	Step     string
	Scenario *selection.Planned
}

// clockTime is a time of day as the console says it.
func clockTime(t time.Time) string { return t.Format("15:04:05") }

// LifetimesWatched prints, before the run's scenarios, that the token
// lifetimes are watched beside them from tokens taken at from, and when
// each is checked: a line per check, in the order they fall due.
func (c *Console) LifetimesWatched(from time.Time, checks []LifetimeCheck) {
	if len(checks) == 0 {
		return
	}
	checks = slices.Clone(checks)
	slices.SortStableFunc(checks, func(a, b LifetimeCheck) int { return a.At.Compare(b.At) })
	c.mu.Lock()
	defer c.mu.Unlock()
	last := checks[len(checks)-1].At
	fmt.Fprintf(c.w, "Token lifetimes (-slow): watched beside the run, from tokens taken at %s, each checked when it falls due; the run ends after the last, at about %s (in %s):\n",
		clockTime(from), clockTime(last), last.Sub(from).Round(time.Second))
	for _, ch := range checks {
		when := "   " + clockTime(ch.At)
		if ch.UpTo {
			when = "by " + clockTime(ch.At)
		}
		fmt.Fprintf(c.w, "  %s  %-6s %s  %s\n", when, strings.Join(ch.Scenario.Rules, ","), Visible(ch.Step), c.paint(grey, ch.Scenario.Place()))
	}
	fmt.Fprintln(c.w)
}

// LifetimeChecked prints that a step of a watched scenario checked a
// token at at, and how it went.
func (c *Console) LifetimeChecked(p *selection.Planned, step, status string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(c.w, "  %s  %-6s checked: %s — %s  %s\n", clockTime(at), strings.Join(p.Rules, ","), Visible(step),
		c.verdictLabel(status, 0), c.paint(grey, p.Place()))
}

// LifetimesWaiting prints that the watch of token lifetimes goes on, and
// when it checks a token next.
func (c *Console) LifetimesWaiting(next LifetimeCheck, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	when := "at " + clockTime(next.At)
	if next.UpTo {
		when = "by " + clockTime(next.At)
	}
	fmt.Fprintln(c.w, c.paint(grey, fmt.Sprintf("  … %s: still watching the token lifetimes; the next check %s (%s, %s)",
		clockTime(now), when, strings.Join(next.Scenario.Rules, ","), next.Scenario.Place())))
}
