package eventsvctest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"eventsvc/eventsvctest"
	"eventsvc/server/clock"
)

// get sends GET srv.URL+path with an optional access token.
func get(t *testing.T, srv *eventsvctest.Server, path, token string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return send(t, req)
}

// create sends body to POST /api/events with the access token.
func create(t *testing.T, srv *eventsvctest.Server, token, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/api/events", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	return send(t, req)
}

// send does req and decodes its answer, a JSON object.
func send(t *testing.T, req *http.Request) (int, map[string]any) {
	t.Helper()
	status, body, _, raw := exchange(t, req)
	if body == nil {
		t.Fatalf("%s %s: the answer %q is not a JSON object", req.Method, req.URL.Path, raw)
	}
	return status, body
}

// exchange does req and returns its answer: the status, the body decoded
// when it is a JSON object (else nil), the headers and the body as sent.
func exchange(t *testing.T, req *http.Request) (int, map[string]any, http.Header, []byte) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if json.Unmarshal(b, &body) != nil {
		body = nil
	}
	return resp.StatusCode, body, resp.Header, b
}

func TestNewServerHasTheDocumentedDefaults(t *testing.T) {
	before := time.Now()
	srv := eventsvctest.NewServer(t, eventsvctest.Options{})
	for _, u := range []string{srv.URL, srv.ControlURL} {
		if !strings.HasPrefix(u, "http://127.0.0.1:") || strings.HasSuffix(u, "/") {
			t.Errorf("URL %q, want http://127.0.0.1:PORT", u)
		}
	}
	if srv.URL == srv.ControlURL {
		t.Fatalf("the public and control APIs share %s", srv.URL)
	}
	s := srv.State(t)
	if !s.Conforms || s.Lifetimes.AccessSeconds != 600 || s.Lifetimes.RefreshSeconds != 3600 {
		t.Errorf("state %+v: want the specification's lifetimes, 600 s and 3600 s, conforming", s)
	}
	if s.Events != eventsvctest.DemoEvents || s.LiveTokens != 0 || s.Faults != 0 || s.Journal.Entries != 0 || s.Journal.Capacity != 500 {
		t.Errorf("state %+v: want %d demo events, no token, fault or journal entry, a journal of 500", s, eventsvctest.DemoEvents)
	}
	if s.Clock.MovedSeconds != 0 || s.Clock.Now.Before(before.Add(-time.Second)) || s.Clock.Now.After(time.Now().Add(time.Second)) {
		t.Errorf("clock %+v: want the machine's time, not moved", s.Clock)
	}
	for _, a := range [][2]string{{eventsvctest.User, eventsvctest.UserPassword}, {eventsvctest.Admin, eventsvctest.AdminPassword}} {
		status, body := login(t, srv, a[0], a[1])
		if status != http.StatusOK || body["expires_in"] != float64(600) || body["access_token"] == nil {
			t.Errorf("login of %s = %d, expires_in %v; want 200 and 600", a[0], status, body["expires_in"])
		}
	}
	if status, body := login(t, srv, eventsvctest.User, "wrong"); status != http.StatusBadRequest {
		t.Errorf("login with a wrong password = %d %v, want 400", status, body)
	}
	if status, body := get(t, srv, "/api/events", ""); status != http.StatusOK || body["page"].(map[string]any)["totalElements"] != float64(eventsvctest.DemoEvents) {
		t.Errorf("GET /api/events = %d %v", status, body["page"])
	}
}

// seedEvent is a valid event for the tests.
var seedEvent = eventsvctest.Event{
	Name: "Go meetup", Description: "Talks and pizza",
	BeginEnrollmentDateTime: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC),
	CloseEnrollmentDateTime: time.Date(2026, 11, 10, 17, 0, 0, 0, time.UTC),
	BeginEventDateTime:      time.Date(2026, 11, 20, 18, 0, 0, 0, time.UTC),
	EndEventDateTime:        time.Date(2026, 11, 20, 21, 0, 0, 0, time.UTC),
	Location:                "Room 101", BasePrice: 10, MaxPrice: 20, LimitOfEnrollment: 30,
	Manager: "user@email.com", Status: "PUBLISHED",
}

func TestOptionsChangeTheStart(t *testing.T) {
	t.Run("lifetimes", func(t *testing.T) {
		srv := eventsvctest.NewServer(t, eventsvctest.Options{AccessTTL: 30 * time.Second, RefreshTTL: 90 * time.Second})
		s := srv.State(t)
		if s.Conforms || s.Lifetimes.AccessSeconds != 30 || s.Lifetimes.RefreshSeconds != 90 {
			t.Errorf("state %+v: want 30 s and 90 s, not conforming", s)
		}
		if status, body := login(t, srv, eventsvctest.User, eventsvctest.UserPassword); status != http.StatusOK || body["expires_in"] != float64(30) {
			t.Errorf("login = %d, expires_in %v, want 30", status, body["expires_in"])
		}
	})
	t.Run("events", func(t *testing.T) {
		srv := eventsvctest.NewServer(t, eventsvctest.Options{Events: []eventsvctest.Event{seedEvent}})
		status, e := get(t, srv, "/api/events/1", "")
		if status != http.StatusOK || e["name"] != "Go meetup" || e["eventStatus"] != "PUBLISHED" || e["beginEventDateTime"] != "2026-11-20T18:00:00" ||
			e["manager"].(map[string]any)["id"] != float64(2) || e["location"] != "Room 101" || e["maxPrice"] != float64(20) {
			t.Fatalf("GET /api/events/1 = %d %v", status, e)
		}
		if n := srv.State(t).Events; n != 1 {
			t.Fatalf("%d events, want the one seeded", n)
		}
		srv.SeedEvents(t, []eventsvctest.Event{seedEvent, seedEvent})
		if n := srv.Reset(t).Events; n != 1 {
			t.Fatalf("%d events after a reset, want the one the server started with", n)
		}
	})
	t.Run("no demo events", func(t *testing.T) {
		srv := eventsvctest.NewServer(t, eventsvctest.Options{NoDemoEvents: true})
		if n := srv.State(t).Events; n != 0 {
			t.Fatalf("%d events, want none", n)
		}
		if n := srv.Reset(t).Events; n != 0 {
			t.Fatalf("%d events after a reset, want none", n)
		}
	})
	t.Run("clock", func(t *testing.T) {
		t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
		srv := eventsvctest.NewServer(t, eventsvctest.Options{Clock: clock.NewManual(t0)})
		if now := srv.State(t).Clock.Now; !now.Equal(t0) {
			t.Fatalf("the clock reads %v, want %v", now, t0)
		}
		_, e := get(t, srv, "/api/events/1", "")
		if begin, _ := e["beginEnrollmentDateTime"].(string); !strings.HasPrefix(begin, "2030-01-02") {
			t.Fatalf("the first demo event begins enrolment at %q, want on the clock's day 2030-01-02", begin)
		}
	})
}

// TestCleanupStopsBothListeners: once the test that started the server
// ends, neither of its ports takes a connection.
func TestCleanupStopsBothListeners(t *testing.T) {
	var addrs []string
	t.Run("serve", func(t *testing.T) {
		srv := eventsvctest.NewServer(t, eventsvctest.Options{})
		srv.State(t) // a kept-alive connection to the control API
		if status, _ := get(t, srv, "/api", ""); status != http.StatusOK {
			t.Fatalf("GET /api = %d", status)
		}
		addrs = append(addrs, strings.TrimPrefix(srv.URL, "http://"), strings.TrimPrefix(srv.ControlURL, "http://"))
	})
	for _, a := range addrs {
		if c, err := net.DialTimeout("tcp", a, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still takes connections after the test ended", a)
		}
	}
}

// TestTheControlAPIRefusesWhatABrowserSends: the control API NewServer
// starts is the guarded one of `eventsvc serve -control`: a page's Origin,
// a foreign Host and a write not sent as JSON are refused, and change
// nothing.
func TestTheControlAPIRefusesWhatABrowserSends(t *testing.T) {
	srv := eventsvctest.NewServer(t, eventsvctest.Options{})
	before := srv.State(t)
	for _, tt := range []struct {
		name   string
		header map[string]string
		host   string
		status int
	}{
		{"origin", map[string]string{"Origin": "http://evil.example", "Content-Type": "application/json"}, "", http.StatusForbidden},
		{"foreign host", map[string]string{"Content-Type": "application/json"}, "evil.example", http.StatusForbidden},
		{"not JSON", map[string]string{"Content-Type": "text/plain"}, "", http.StatusUnsupportedMediaType},
	} {
		req, err := http.NewRequest(http.MethodPost, srv.ControlURL+"/clock", strings.NewReader(`{"advance": "1h"}`))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range tt.header {
			req.Header.Set(k, v)
		}
		if tt.host != "" {
			req.Host = tt.host
		}
		if status, body := send(t, req); status != tt.status || body["error_description"] == nil {
			t.Errorf("%s: %d %v, want %d with a description", tt.name, status, body, tt.status)
		}
	}
	if after := srv.State(t); after.Clock.MovedSeconds != before.Clock.MovedSeconds {
		t.Fatalf("refused requests moved the clock: %+v", after.Clock)
	}
}

func TestOptionsNewServerCannotUseFailTheTest(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts eventsvctest.Options
		want string
	}{
		{"a lifetime in part of a second", eventsvctest.Options{AccessTTL: 1500 * time.Millisecond}, "the access token lifetime 1.5s must be a whole number of seconds"},
		{"an invalid event", eventsvctest.Options{Events: []eventsvctest.Event{{Name: "No dates"}}}, "Options.Events: event 0 of the seed"},
		{"an unknown manager", eventsvctest.Options{Events: []eventsvctest.Event{func() eventsvctest.Event { e := seedEvent; e.Manager = "nobody@example.org"; return e }()}},
			`no account has the email "nobody@example.org"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := failure(t, func(tb testing.TB) { eventsvctest.NewServer(tb, tt.opts) }); !strings.Contains(got, tt.want) {
				t.Fatalf("NewServer failed with %q, want it to say %q", got, tt.want)
			}
		})
	}
}

// cleanupRecorder is a testing.TB that keeps its cleanups for the test to
// run, fails when told, and records what is logged.
type cleanupRecorder struct {
	testing.TB
	failed   bool
	cleanups []func()
	logs     []string
}

func (r *cleanupRecorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *cleanupRecorder) Failed() bool     { return r.failed }
func (r *cleanupRecorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *cleanupRecorder) Errorf(format string, args ...any) { r.TB.Errorf(format, args...) }

// end runs the cleanups, last first, as testing does.
func (r *cleanupRecorder) end() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// TestTheLogIsWrittenOnlyWhenTheTestFails: the requests, the control
// API's writes and failures reach the test's log once the test has
// failed, and never a password or a token.
func TestTheLogIsWrittenOnlyWhenTheTestFails(t *testing.T) {
	for _, failed := range []bool{false, true} {
		r := &cleanupRecorder{TB: t, failed: failed}
		srv := eventsvctest.NewServer(r, eventsvctest.Options{})
		_, tokens := login(t, srv, eventsvctest.User, eventsvctest.UserPassword)
		get(t, srv, "/api", tokens["access_token"].(string))
		srv.AdvanceClock(t, time.Minute)
		r.end()
		log := strings.Join(r.logs, "\n")
		if !failed {
			if log != "" {
				t.Errorf("a test that passed got the server's log: %s", log)
			}
			continue
		}
		for _, want := range []string{"msg=request method=POST path=/oauth/token status=200", "msg=request method=GET path=/api status=200", "msg=control method=POST path=/clock status=200"} {
			if !strings.Contains(log, want) {
				t.Errorf("the log of a failed test lacks %q:\n%s", want, log)
			}
		}
		for _, secret := range []string{tokens["access_token"].(string), tokens["refresh_token"].(string), "password="} {
			if strings.Contains(log, secret) {
				t.Errorf("the log shows a secret:\n%s", log)
			}
		}
	}
}
