package suite

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"eventsvc/conformance/inprocess"
	"eventsvc/conformance/othersvc"
	"eventsvc/conformance/report"
	"eventsvc/conformance/report/reporttest"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
	"eventsvc/server"
	"eventsvc/server/clock"
	"eventsvc/server/config"
	"eventsvc/server/control"
	"eventsvc/server/event"
	"eventsvc/server/oauth"
	"eventsvc/server/servertest"

	"golang.org/x/crypto/bcrypt"
)

// agingClock is a test's clock for the @slow scenarios: Sleep moves its
// time, and the target's clock with it, at once, so that an hour passes
// in no time for the one scenario that waits on it.
type agingClock struct {
	mu  sync.Mutex
	now time.Time
	age func(time.Duration) // moves the target's clock
}

func (c *agingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *agingClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	c.age(d)
	return ctx.Err()
}

// TestEachLifetimeIsCheckedWhenItFallsDue runs each @slow scenario of a
// run with -slow alone against a deployment whose clock moves with the
// run's, so that each lifetime falls due at once: the specification's
// lifetimes (600 s, the expires_in a target announces when shorter, and
// 3600 s) hold on the reference server, the second implementation, and
// its variant that rotates refresh tokens; a refresh that slides the
// refresh token's expiry fails LIM-2, access tokens that never expire
// fail LIM-1.
func TestEachLifetimeIsCheckedWhenItFallsDue(t *testing.T) {
	plan, _, err := plan(Options{Tags: "@slow", Slow: true, Target: target.Target{BaseURL: "http://127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	var places []string
	for _, p := range plan {
		if p.Run {
			places = append(places, p.Place())
		}
	}
	if len(places) != 4 {
		t.Fatalf("the @slow scenarios are %v, want 4", places)
	}
	other := func(c othersvc.Config) func(t *testing.T) target.Target {
		return func(t *testing.T) target.Target {
			c.Clock = &othersvc.Clock{}
			srv := othersvc.Start(t, c)
			return target.Target{BaseURL: srv.URL, Credentials: othersvc.Creds, EventBody: []byte(othersvc.EventBody), Clock: &agingClock{now: time.Now(), age: c.Clock.Add}}
		}
	}
	tests := []struct {
		name   string
		target func(t *testing.T) target.Target
		failed []string
	}{
		{"the reference server", func(t *testing.T) target.Target {
			inst, err := inprocess.Launcher{Credentials: target.DemoCredentials}.Launch(target.ServerConfig{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { inst.Close() })
			return target.Target{BaseURL: inst.BaseURL(), Credentials: target.DemoCredentials, Clock: &agingClock{now: time.Now(), age: inst.Advance}}
		}, nil},
		{"a second implementation, whose access tokens live 300 s", other(othersvc.Config{}), nil},
		{"one that rotates refresh tokens", other(othersvc.Config{Choices: othersvc.Choices{Rotate: true}}), nil},
		{"one whose refresh slides the refresh token's expiry", other(othersvc.Config{Flaws: othersvc.Flaws{RefreshSlidesExpiry: true}}), []string{"LIM-2"}},
		{"one whose access tokens never expire", other(othersvc.Config{Flaws: othersvc.Flaws{AccessNeverExpires: true}}), []string{"LIM-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := tt.target(t)
			target.RunID = "lifetimes"
			var failed []string
			for _, place := range places {
				var out bytes.Buffer
				rep, err := Run(Options{Target: target, Tags: "@slow", Slow: true, Scenarios: []string{place}, Output: &out, NoSummary: true})
				if err != nil && !errors.Is(err, ErrFailed) {
					t.Fatalf("%s: %v\n%s", place, err, out.String())
				}
				for _, r := range rep.Rules {
					switch {
					case r.Verdict == report.Failed:
						failed = append(failed, r.ID)
						for _, s := range r.Scenarios {
							if s.Verdict == report.Failed && (s.Failure == nil || len(s.Failure.Exchanges) == 0 || s.Failure.Script == "") {
								t.Errorf("%s fails without its exchanges and script: %+v", r.ID, s.Failure)
							}
						}
					case r.Selected && r.Verdict != report.Passed:
						t.Errorf("%s: %s %s\n%s", place, r.ID, r.Verdict, out.String())
					}
				}
			}
			if !slices.Equal(failed, tt.failed) {
				t.Errorf("failed %v, want %v", failed, tt.failed)
			}
		})
	}
}

// shortLived serves a reference server whose tokens live 4 s and 8 s, and
// returns its address and the lifetimes a run checks against it, a
// second before and after their end.
func shortLived(t *testing.T) (string, target.Lifetimes) {
	t.Helper()
	srv := servertest.New(t, server.New(server.Options{Config: servertest.DemoConfig(t),
		Lifetimes: oauth.Lifetimes{Access: 4 * time.Second, Refresh: 8 * time.Second}}))
	return srv.URL, target.Lifetimes{Access: 4 * time.Second, Refresh: 8 * time.Second, Margin: time.Second}
}

// onLine passes what is written to w, and calls do once, when a write
// holds mark.
type onLine struct {
	w    *bytes.Buffer
	mark string
	do   func()
	once sync.Once
}

func (o *onLine) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(o.mark)) {
		o.once.Do(o.do)
	}
	return o.w.Write(p)
}

// TestTheLifetimesAreWatchedBesideTheRestOfTheRun: with -slow, the
// default selection against a deployment starts the @slow scenarios
// before the others, says when each lifetime is checked and a line as
// each is, and waits for them beside the rest: against a reference server
// whose tokens live 4 s and 8 s, the whole run takes about the longest
// lifetime, not the sum of the waits, and its reports hold their verdicts
// like any scenario's.
func TestTheLifetimesAreWatchedBesideTheRestOfTheRun(t *testing.T) {
	base, lifetimes := shortLived(t)
	dir := t.TempDir()
	var out bytes.Buffer
	rep, err := Run(Options{
		Target: target.Target{BaseURL: base, Credentials: target.DemoCredentials, RunID: "watch", Lifetimes: lifetimes},
		Tags:   selection.DefaultTags(true, false, true), DefaultTags: true, Slow: true,
		Concurrency: 4, ReportDir: dir, Output: &out,
	})
	text := out.String()
	if err != nil {
		t.Fatalf("Run = %v\n%s", err, text)
	}
	var waited time.Duration
	for _, s := range rep.Scenarios {
		if slices.Contains(s.Tags, "@slow") {
			waited += s.Duration
			if s.Verdict != report.Passed {
				t.Errorf("%s: %s", s.Name, s.Verdict)
			}
		}
	}
	// 3 + 5 + 7 + 9 s one after another; at once, 9 s and what the
	// others take beside them. How long the others take depends on the
	// machine: when they take less than the waits, so does the run; when
	// they take longer, the first lifetime is checked after some of them
	// ended and before the last did.
	firstChecked := regexp.MustCompile(`(?m)^  \d\d:\d\d:\d\d  (CLI-5|LIM-1|CLI-6|LIM-2) +checked: `).FindStringIndex(text)
	firstOther, lastOther := -1, -1
	for _, m := range regexp.MustCompile(`(?m)^(PASSED|FAILED) +(\S+\.feature):\d+`).FindAllStringSubmatchIndex(text, -1) {
		if text[m[4]:m[5]] != "token_validity.feature" {
			if firstOther < 0 {
				firstOther = m[0]
			}
			lastOther = m[0]
		}
	}
	beside := rep.Duration < waited || firstChecked != nil && firstOther < firstChecked[0] && firstChecked[0] < lastOther
	if waited < 20*time.Second || !beside {
		t.Errorf("the @slow scenarios waited %s in all, the run took %s, the first lifetime was checked at %v of the output, the other scenarios ended between %d and %d: want them at once, beside the rest\n%s", waited, rep.Duration, firstChecked, firstOther, lastOther, text)
	}
	for _, id := range []string{"CLI-5", "CLI-6", "LIM-1", "LIM-2"} {
		if r := ruleNamed(rep, id); r.Verdict != report.Passed {
			t.Errorf("%s: %s, want passed", id, r.Verdict)
		}
	}
	if groups := rep.NotChecked(); len(groups) != 1 || groups[0].Why != report.WhyLocal {
		t.Errorf("not checked: %+v, want the configuration rules alone", groups)
	}
	watched := strings.Index(text, "Token lifetimes (-slow): watched beside the run")
	if watched < 0 || watched > strings.Index(text, "PASSED   ") {
		t.Errorf("the run does not say first that it watches the lifetimes:\n%s", text)
	}
	schedule := regexp.MustCompile(`(?m)^  (by|  ) \d\d:\d\d:\d\d  (CLI-5|LIM-1|CLI-6|LIM-2) .* token_validity\.feature:\d+$`)
	if n := len(schedule.FindAllString(text, -1)); n != 5 {
		t.Errorf("the schedule has %d checks, want 5:\n%s", n, text)
	}
	checked := regexp.MustCompile(`(?m)^  \d\d:\d\d:\d\d  (CLI-5|LIM-1|CLI-6|LIM-2) +checked: .* — PASSED  token_validity\.feature:\d+$`)
	if n := len(checked.FindAllString(text, -1)); n != 5 {
		t.Errorf("%d lines say a lifetime was checked, want 5:\n%s", n, text)
	}
	doc := reporttest.Read(t, dir)
	for _, s := range doc.Scenarios {
		if strings.HasPrefix(s.Place, "token_validity.feature") && slices.Contains(s.Tags, "@slow") && s.Verdict != report.Passed {
			t.Errorf("conformance.json: %s %s", s.Place, s.Verdict)
		}
	}
}

// TestATargetThatStopsMidWatchEndsTheRunAtOnce: a target that stops
// answering, or throttles the run, while the lifetimes are watched ends
// the run as it ends any (exit 4 or 3), at once, not when the last
// lifetime falls due; the checks not made are not run, for that reason.
func TestATargetThatStopsMidWatchEndsTheRunAtOnce(t *testing.T) {
	base, lifetimes := shortLived(t)
	to, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		answer func(http.ResponseWriter)
		want   error
		reason string
	}{
		{"stops answering", func(w http.ResponseWriter) { w.WriteHeader(http.StatusBadGateway) }, ErrUnreachable, selection.ReasonUnreachable},
		{"throttles", func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
		}, ErrThrottled, selection.ReasonThrottle},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stopped atomic.Bool
			proxy := httputil.NewSingleHostReverseProxy(to)
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if stopped.Load() {
					tt.answer(w)
					return
				}
				proxy.ServeHTTP(w, r)
			}))
			defer front.Close()
			// Once the watch has begun, and before its first check, at 3 s.
			var out bytes.Buffer
			stop := &onLine{w: &out, mark: "Token lifetimes (-slow): watched", do: func() {
				time.AfterFunc(time.Second, func() { stopped.Store(true) })
			}}
			rep, err := Run(Options{
				Target: target.Target{BaseURL: front.URL, Credentials: target.DemoCredentials, RunID: "stops", Lifetimes: lifetimes},
				Tags:   "@slow", Slow: true, Output: stop,
			})
			if !errors.Is(err, tt.want) {
				t.Fatalf("Run = %v, want %v\n%s", err, tt.want, out.String())
			}
			if rep.Duration > 6*time.Second {
				t.Errorf("the run took %s: it waited for the lifetimes after the target stopped it", rep.Duration)
			}
			for _, s := range rep.Scenarios {
				if s.Run && (s.Verdict != report.NotRun || s.Reason != tt.reason) {
					t.Errorf("%s: %s (%s), want not run: %s", s.Name, s.Verdict, s.Reason, tt.reason)
				}
			}
		})
	}
}

// TestWithAControlAPITheSlowScenariosMoveItsClockApartFromTheRest: with
// -slow and a control API, nothing is watched in real time: the @slow
// scenarios move the server's clock, as the @clock ones do, and so run
// one at a time after the others, even with -concurrency, where no token
// of another scenario ages with the clock they move.
func TestWithAControlAPITheSlowScenariosMoveItsClockApartFromTheRest(t *testing.T) {
	base, ctl := startWithControl(t, "")
	var out bytes.Buffer
	rep, err := Run(Options{
		Target: target.Target{BaseURL: base, ControlURL: ctl, Credentials: target.DemoCredentials, RunID: "control-slow"},
		Tags:   "@spec and (@slow or @clock or @SVC-1 or @TOK-8)", Slow: true, Concurrency: 4, Output: &out,
	})
	if err != nil {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), "Token lifetimes (-slow)") || rep.Duration > time.Minute {
		t.Errorf("with a control API the run watched the lifetimes in real time (%s):\n%s", rep.Duration, out.String())
	}
	for _, id := range []string{"CLI-5", "CLI-6", "LIM-1", "LIM-2"} {
		if r := ruleNamed(rep, id); r.Verdict != report.Passed || r.Counts[report.Passed] < 2 {
			t.Errorf("%s: %s %v, want passed by its @clock and @slow scenarios", id, r.Verdict, r.Counts)
		}
	}
}

// startWithControl runs a reference server as `eventsvc serve -control`
// does, out of the suite's reach but for its control API: its own clock,
// which only the control API moves. It returns the two addresses.
func startWithControl(t *testing.T, token string) (base, ctl string) {
	t.Helper()
	file, err := inprocess.Launcher{Credentials: target.DemoCredentials}.ConfigFile(target.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.New(file)
	if err != nil {
		t.Fatal(err)
	}
	m := control.NewMock(clock.System{})
	events := event.NewMemory()
	opts := server.Options{Config: cfg, Events: events}
	m.Steer(&opts)
	srv := server.New(opts)
	c := m.Control(control.Options{Server: srv, Events: events, Accounts: cfg.Accounts, Clients: cfg.Clients, Cost: bcrypt.MinCost, Token: token})
	return servertest.New(t, srv).URL, servertest.New(t, c).URL
}

// TestTokenValidityAgainstAReferenceServerWithAControlAPI: with a control
// URL, the scenarios that move the clock run against a server out of
// process; without one, they cannot.
func TestTokenValidityAgainstAReferenceServerWithAControlAPI(t *testing.T) {
	const token = "control-token-of-the-test"
	base, ctl := startWithControl(t, token)
	run := func(controlURL string) (*report.Report, string, error) {
		var out bytes.Buffer
		rep, err := Run(Options{
			Target:    target.Target{BaseURL: base, ControlURL: controlURL, ControlToken: token, Credentials: target.DemoCredentials, RunID: "control"},
			Tags:      "@clock && @spec,@ref",
			Output:    &out,
			NoSummary: true,
		})
		return rep, out.String(), err
	}
	rep, out, err := run(ctl)
	if err != nil {
		t.Fatalf("with the control API: %v\n%s", err, out)
	}
	verdicts := map[string]int{}
	for _, s := range rep.Scenarios {
		if s.Verdict != report.NotRun {
			verdicts[s.Verdict]++
		}
	}
	if verdicts[report.Passed] != 5 || len(verdicts) != 1 {
		t.Fatalf("the five token validity scenarios did not all run and pass: %v\n%s", verdicts, out)
	}
	if strings.Contains(out, token) {
		t.Fatal("the output shows the control token")
	}
	_, out, err = run("")
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "CONTROL_URL") {
		t.Fatalf("without the control API, the run should stop saying the @clock scenarios need CONTROL_URL: %v\n%s", err, out)
	}
}
