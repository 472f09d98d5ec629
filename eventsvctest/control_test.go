package eventsvctest_test

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"eventsvc/eventsvctest"
)

// fatalRecorder is a testing.TB whose Fatal and Error record what they
// were told and, for Fatal, end the goroutine as testing.T does.
type fatalRecorder struct {
	testing.TB
	failures []string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
	runtime.Goexit()
}

func (r *fatalRecorder) Fatal(args ...any) {
	r.failures = append(r.failures, fmt.Sprint(args...))
	runtime.Goexit()
}

func (r *fatalRecorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

// failure runs call with a fatalRecorder, as a test's goroutine, and
// returns what it failed with ("" when it did not).
func failure(t *testing.T, call func(tb testing.TB)) string {
	t.Helper()
	r := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		call(r)
	}()
	<-done
	return strings.Join(r.failures, "\n")
}

// refusal is a call the control API refuses, and what the failure of the
// test that made it says.
type refusal struct {
	name string
	call func(tb testing.TB)
	want []string
}

// checkRefusals runs each refusal as a subtest of t: the failure must say
// each of its want, and never hidden, a secret sent (what names it; ""
// when none was sent).
func checkRefusals(t *testing.T, refusals []refusal, what, hidden string) {
	t.Helper()
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			got := failure(t, tt.call)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("the test failed with %q, want it to say %q", got, w)
				}
			}
			if hidden != "" && strings.Contains(got, hidden) {
				t.Errorf("the failure shows the %s: %q", what, got)
			}
		})
	}
}

// TestAnErrorOfTheControlAPIFailsTheTestWithItsDescription: a request the
// control API refuses fails the test that made it, with the status, the
// error and its description, and changes nothing.
func TestAnErrorOfTheControlAPIFailsTheTestWithItsDescription(t *testing.T) {
	srv := eventsvctest.NewServer(t, eventsvctest.Options{})
	before := srv.State(t)
	checkRefusals(t, []refusal{
		{"remove an unknown fault", func(tb testing.TB) { srv.RemoveFault(tb, 99) },
			[]string{"DELETE /faults/99", "404", "not_found", `no fault rule has id "99"`}},
		{"add a bad fault", func(tb testing.TB) {
			srv.AddFault(tb, eventsvctest.Fault{Path: "/api/**", Answer: eventsvctest.Answer{Latency: -2 * time.Second}, Fraction: 1.5})
		}, []string{"POST /faults", "400", "invalid_request", "latency -2s must not be negative", "fraction 1.5 must be above 0 and at most 1"}},
		{"revoke no token", func(tb testing.TB) { srv.RevokeTokens(tb, eventsvctest.TokenSelector{User: "nobody@example.org"}) },
			[]string{"POST /tokens/revoke", "404", "no live token"}},
		{"reset to no snapshot", func(tb testing.TB) { srv.ResetToSnapshot(tb) },
			[]string{"POST /reset", "409", "no_snapshot", "no snapshot was taken"}},
		{"seed an invalid event", func(tb testing.TB) { srv.SeedEvents(tb, []eventsvctest.Event{{Name: "No dates"}}) },
			[]string{"PUT /events", "400", "event 0 of the seed"}},
		{"a bad journal filter", func(tb testing.TB) { srv.JournalCount(tb, eventsvctest.JournalFilter{Status: "6xx"}) },
			[]string{"GET /journal/count", "400", `status "6xx" must be a status such as 404`}},
	}, "", "")
	if after := srv.State(t); after.Events != before.Events || after.Faults != 0 || after.LiveTokens != 0 || after.Clock.MovedSeconds != 0 {
		t.Fatalf("refused requests changed the state: %+v, was %+v", after, before)
	}
}

func TestAControlAPIThatIsGoneFailsTheTest(t *testing.T) {
	var srv *eventsvctest.Server
	t.Run("serve", func(t *testing.T) { srv = eventsvctest.NewServer(t, eventsvctest.Options{}) })
	got := failure(t, func(tb testing.TB) { srv.State(tb) })
	if !strings.Contains(got, "GET /") || !strings.Contains(got, "refused") {
		t.Fatalf("the test failed with %q, want a refused connection to GET /", got)
	}
}

func TestClockSnapshotAndReset(t *testing.T) {
	srv := eventsvctest.NewServer(t, eventsvctest.Options{})
	c := srv.AdvanceClock(t, 10*time.Minute)
	if c.MovedSeconds != 600 || c.Moved != "10m0s" {
		t.Fatalf("AdvanceClock(10m) = %+v", c)
	}
	if c := srv.Clock(t); c.MovedSeconds != 600 {
		t.Fatalf("Clock() = %+v, want moved 600 s", c)
	}
	if n := srv.SeedEvents(t, []eventsvctest.Event{seedEvent, seedEvent}); n != 2 {
		t.Fatalf("SeedEvents = %d, want 2", n)
	}
	if n := srv.Snapshot(t); n != 2 {
		t.Fatalf("Snapshot = %d, want 2", n)
	}
	srv.SeedEvents(t, []eventsvctest.Event{seedEvent})
	if s := srv.ResetToSnapshot(t); s.Events != 2 || s.Clock.MovedSeconds != 0 {
		t.Fatalf("ResetToSnapshot = %+v, want the 2 events kept and the clock back", s)
	}
	if status, _ := get(t, srv, "/api/events/2", ""); status != http.StatusOK {
		t.Fatalf("GET /api/events/2 after the reset to the snapshot = %d", status)
	}
	if s := srv.Reset(t); s.Events != eventsvctest.DemoEvents {
		t.Fatalf("Reset = %+v, want the %d demo events back", s, eventsvctest.DemoEvents)
	}
}
