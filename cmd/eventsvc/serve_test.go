package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"eventsvc/server/servertest"
)

// served is one `eventsvc serve` run by a test, on loopback ports.
type served struct {
	base    string // the public address
	control string // the control API's address, when -control was given
	metrics string // the metrics listener's address, when -metrics was given
	out     *servertest.Log
	errs    *servertest.Log

	signal  chan os.Signal // where stop sends SIGTERM
	done    chan int       // the exit code of run
	stopped sync.Once
	code    int // the exit code stop saw, -1 when serve did not stop
}

var (
	listeningOn = regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)
	controlOn   = regexp.MustCompile(`Control API on (http://127\.0\.0\.1:\d+)`)
	metricsOn   = regexp.MustCompile(`metrics: (http://127\.0\.0\.1:\d+)/metrics`)
)

// startServe runs `eventsvc serve -addr 127.0.0.1:0 -quiet ARGS…` until the
// test ends, and returns once the banner tells its address (and the control
// API's and the metrics', when args ask for them).
func startServe(t *testing.T, args ...string) *served {
	t.Helper()
	return launchServe(t, append([]string{"-quiet"}, args...)...)
}

// launchServe runs `eventsvc serve -addr 127.0.0.1:0 ARGS…` until the test
// ends or stop is called, and returns once the banner tells its addresses.
func launchServe(t *testing.T, args ...string) *served {
	t.Helper()
	s := &served{out: &servertest.Log{}, errs: &servertest.Log{}, signal: make(chan os.Signal, 1), done: make(chan int, 1)}
	full := append([]string{"serve", "-addr", "127.0.0.1:0"}, args...)
	go func() { s.done <- run(full, nil, s.out, s.errs, s.signal) }()
	t.Cleanup(func() {
		if s.stop() < 0 {
			t.Error("serve did not stop on SIGTERM")
		}
	})
	wantControl, wantMetrics := slices.Contains(args, "-control"), slices.Contains(args, "-metrics")
	ready := func() bool {
		return s.base != "" && (!wantControl || s.control != "") && (!wantMetrics || s.metrics != "")
	}
	for deadline := time.Now().Add(30 * time.Second); !ready() && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := listeningOn.FindStringSubmatch(s.out.String()); m != nil {
			s.base = m[1]
		}
		if m := controlOn.FindStringSubmatch(s.out.String()); m != nil {
			s.control = m[1]
		}
		if m := metricsOn.FindStringSubmatch(s.out.String()); m != nil {
			s.metrics = m[1]
		}
		select {
		case code := <-s.done:
			s.stopped.Do(func() { s.code = code }) // nothing left to stop
			t.Fatalf("serve %v exited with %d: %s%s", args, code, s.out.String(), s.errs.String())
		default:
		}
	}
	if !ready() {
		t.Fatalf("serve %v: no address in the banner: %q (stderr %q)", args, s.out.String(), s.errs.String())
	}
	time.Sleep(50 * time.Millisecond) // the rest of the banner
	return s
}

// stop sends serve SIGTERM and returns its exit code, or -1 when it has
// not stopped within 15 seconds; called again, it returns the same.
func (s *served) stop() int {
	s.stopped.Do(func() {
		s.signal <- syscall.SIGTERM
		select {
		case s.code = <-s.done:
		case <-time.After(15 * time.Second):
			s.code = -1
		}
	})
	return s.code
}

// stopOK stops serve and fails the test unless it exits with exitOK.
func (s *served) stopOK(t *testing.T) {
	t.Helper()
	switch code := s.stop(); code {
	case exitOK:
	case -1:
		t.Error("serve did not stop on SIGTERM")
	default:
		t.Errorf("exit %d after SIGTERM, stderr %q", code, s.errs.String())
	}
}

// passwordGrant asks s for the demo user's tokens and returns the token
// response.
func passwordGrant(t *testing.T, base string) map[string]any {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/oauth/token", strings.NewReader(url.Values{
		"grant_type": {"password"}, "username": {"user@email.com"}, "password": {"user"},
	}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("myApp", "pass")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("password grant: status %d, %v", resp.StatusCode, err)
	}
	return body
}

func TestServeAnnouncesOtherLifetimesAsNotConforming(t *testing.T) {
	s := startServe(t, "-access-ttl", "30s", "-refresh-ttl", "2m")
	banner := s.out.String()
	for _, want := range []string{"access tokens 30 s, refresh tokens 120 s", "does not conform", "CLI-5", "CLI-6"} {
		if !strings.Contains(banner, want) {
			t.Errorf("the banner does not say %q: %s", want, banner)
		}
	}
	if got := passwordGrant(t, s.base)["expires_in"]; got != float64(30) {
		t.Fatalf("expires_in = %v, want 30", got)
	}
}

func TestServeConformsByDefault(t *testing.T) {
	s := startServe(t)
	if strings.Contains(s.out.String(), "does not conform") {
		t.Errorf("the banner says the default lifetimes do not conform: %s", s.out.String())
	}
	if got := passwordGrant(t, s.base)["expires_in"]; got != float64(600) {
		t.Fatalf("expires_in = %v, want 600", got)
	}
}

func TestServeRefusesLifetimesExpiresInCannotTell(t *testing.T) {
	for _, args := range [][]string{
		{"-access-ttl", "0s"},
		{"-access-ttl", "-5s"},
		{"-refresh-ttl", "1500ms"},
		{"-access-ttl", "soon"},
	} {
		out, errs := &servertest.Log{}, &servertest.Log{}
		code := run(append([]string{"serve", "-addr", "127.0.0.1:0"}, args...), nil, out, errs, nil)
		if code != exitUsage {
			t.Errorf("serve %v: exit %d, want %d", args, code, exitUsage)
		}
		if !strings.Contains(errs.String(), "ttl") && !strings.Contains(errs.String(), "lifetime") {
			t.Errorf("serve %v: stderr %q does not say what was wrong", args, errs.String())
		}
	}
}

func TestServeRefusesAControlAPIOffLoopbackWithoutAToken(t *testing.T) {
	t.Setenv(controlTokenEnv, "")
	out, errs := &servertest.Log{}, &servertest.Log{}
	code := run([]string{"serve", "-addr", "127.0.0.1:0", "-control", "0.0.0.0:0"}, nil, out, errs, nil)
	if code != exitError || !strings.Contains(errs.String(), "loopback") || !strings.Contains(errs.String(), "-control-token") {
		t.Fatalf("exit %d, stderr %q: want a refusal that names -control-token", code, errs.String())
	}
}

func TestServeStartsWithTheEventsOfASeedFile(t *testing.T) {
	path := t.TempDir() + "/seed.json"
	seed := `[{"name": "From the seed", "description": "d", "beginEnrollmentDateTime": "2026-11-01T09:00:00",
	  "closeEnrollmentDateTime": "2026-11-10T17:00:00", "beginEventDateTime": "2026-11-20T18:00:00",
	  "endEventDateTime": "2026-11-20T20:00:00", "manager": "admin@email.com"}]`
	if err := os.WriteFile(path, []byte(seed), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, "-seed", path)
	if !strings.Contains(s.out.String(), "1 event from "+path) {
		t.Errorf("the banner does not tell the seed: %s", s.out.String())
	}
	resp, err := http.Get(s.base + "/api/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Embedded struct {
			EventList []struct{ Name string } `json:"eventList"`
		} `json:"_embedded"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if len(body.Embedded.EventList) != 1 || body.Embedded.EventList[0].Name != "From the seed" {
		t.Fatalf("events %+v, want the seed's one", body.Embedded.EventList)
	}
}

func TestServeRefusesAnInvalidSeedSayingWhy(t *testing.T) {
	path := t.TempDir() + "/seed.json"
	if err := os.WriteFile(path, []byte(`[{"name": ""}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs := &servertest.Log{}, &servertest.Log{}
	code := run([]string{"serve", "-addr", "127.0.0.1:0", "-seed", path}, nil, out, errs, nil)
	if code != exitError || !strings.Contains(errs.String(), "event 0 of the seed") || !strings.Contains(errs.String(), "name") {
		t.Fatalf("exit %d, stderr %q", code, errs.String())
	}
}

func TestServeControlAPIWithATokenRequiresIt(t *testing.T) {
	t.Setenv(controlTokenEnv, "from-the-environment")
	s := startServe(t, "-control", "127.0.0.1:0")
	if !strings.Contains(s.out.String(), "requires its bearer token") {
		t.Errorf("the banner does not say the control API needs a token: %s", s.out.String())
	}
	resp, err := http.Post(s.control+"/reset", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("reset without the token = %d, want 401", resp.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodPost, s.control+"/reset", nil)
	req.Header.Set("Authorization", "Bearer from-the-environment")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("reset with the token = %d, want 200", resp.StatusCode)
	}
	if !strings.Contains(s.errs.String(), "msg=control method=POST path=/reset status=200") {
		t.Fatalf("the reset is not logged: %s", s.errs.String())
	}
	if strings.Contains(s.errs.String()+s.out.String(), "from-the-environment") {
		t.Fatal("the token shows in the output")
	}
}
