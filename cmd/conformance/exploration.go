package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"eventsvc/conformance/explore"
	"eventsvc/conformance/report"
	"eventsvc/suite"
)

// defaultExplore is how long the run explores after its scenarios, by
// default.
const defaultExplore = time.Minute

// short writes a duration as people write it: 1m rather than 1m0s, 2h
// rather than 2h0m0s.
func short(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// budget reads the exploration's budget, as conformance explore and the
// run that explores after its scenarios read it, into o: its seed, and
// how many actions, events and failed logins it may take. No event to
// create makes it read-only; no failed login leaves them all out.
func budget(env func(string) (string, bool), o *explore.Options) error {
	numbers := []struct {
		variable string
		lo, hi   int
		into     *int
	}{
		{"CONFORMANCE_MAX_ACTIONS", 1, 1_000_000, &o.MaxActions},
		{"CONFORMANCE_MAX_EVENTS", 0, 100_000, &o.MaxEvents},
		{"CONFORMANCE_FAILED_LOGINS", 0, 100, &o.FailedLogins},
	}
	for _, n := range numbers {
		v, _ := env(n.variable)
		if v == "" {
			continue
		}
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || i < n.lo || i > n.hi {
			return fmt.Errorf("%s %q: want a whole number from %d to %d", n.variable, v, n.lo, n.hi)
		}
		*n.into = i
	}
	if o.MaxEvents == 0 && isSet(env, "CONFORMANCE_MAX_EVENTS") {
		o.ReadOnly = true // no event may be created: reads only
	}
	if o.FailedLogins == 0 && isSet(env, "CONFORMANCE_FAILED_LOGINS") {
		o.FailedLogins = -1 // none
	}
	if v, _ := env("CONFORMANCE_SEED"); v != "" {
		seed, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil || seed == 0 {
			return fmt.Errorf("CONFORMANCE_SEED %q: want a whole number from 1", v)
		}
		o.Seed = seed
	}
	return nil
}

// exploration reads the exploration that follows the scenarios: its time
// (CONFORMANCE_EXPLORE, -explore), its budget, and a seed drawn when none
// is given, so that the start of the run can say it. A run of the
// scenarios -run or -rerun-failed names (focused, the flag) explores
// only when asked to. It returns nil for none, with why.
func exploration(env func(string) (string, bool), focused string) (*explore.Options, string, error) {
	o := &explore.Options{MaxTime: defaultExplore}
	v, _ := env("CONFORMANCE_EXPLORE")
	if v = strings.TrimSpace(v); v != "" {
		d, err := suite.ParseDuration("CONFORMANCE_EXPLORE", v, "none")
		if err != nil {
			return nil, "", err
		}
		o.MaxTime = d
	}
	if err := budget(env, o); err != nil {
		return nil, "", report.Usage("%w", err)
	}
	switch {
	case o.MaxTime == 0:
		return nil, "none (-explore 0)", nil
	case v == "" && focused != "":
		return nil, fmt.Sprintf("none: %s runs the scenarios it names alone; -explore %s explores after them", focused, short(defaultExplore)), nil
	}
	if o.Seed == 0 {
		o.Seed = uint64(time.Now().UnixNano())
	}
	return o, "", nil
}

// explorationLine says, at the start of a run, how it explores after its
// scenarios: for how long, with which seed, within which budget.
func explorationLine(o *explore.Options, readOnly bool) string {
	orDefault := func(n, d int) int {
		if n == 0 {
			return d
		}
		return max(n, 0)
	}
	events := orDefault(o.MaxEvents, explore.DefaultMaxEvents)
	if readOnly || o.ReadOnly {
		events = 0
	}
	return fmt.Sprintf("after the scenarios, generated sequences of actions for at most %s with seed %d (-seed replays them), at most %d actions, %d events, %d failed logins; -explore 0 leaves it out",
		short(o.MaxTime), o.Seed, orDefault(o.MaxActions, explore.DefaultMaxActions), events, failedLoginsOf(o))
}

// failedLoginsOf is how many token requests with wrong credentials an
// exploration of o may send.
func failedLoginsOf(o *explore.Options) int {
	if o.FailedLogins == 0 {
		return explore.DefaultFailedLogins
	}
	return max(o.FailedLogins, 0)
}
