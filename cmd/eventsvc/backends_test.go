package main

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"eventsvc/server/backendtest"
	"eventsvc/server/servertest"
)

// TestServeRefusesBackendsItCannotReach: a -redis or -database that does
// not answer, or does not parse, stops serve with a message naming the
// flag, and never its password.
func TestServeRefusesBackendsItCannotReach(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"-backend-timeout", "0s"}, exitUsage, "-backend-timeout"},
		{[]string{"-backend-timeout", "31s"}, exitUsage, "-backend-timeout"},
		{[]string{"-redis", "redis://:hunter2@127.0.0.1:1/0", "-backend-timeout", "300ms"}, exitError, "-redis redis://:xxxxx@127.0.0.1:1/0: redis (tokens) unavailable"},
		{[]string{"-redis", "http://hunter2@example"}, exitError, "-redis"},
		{[]string{"-database", "postgres://u:hunter2@127.0.0.1:1/db", "-backend-timeout", "300ms"}, exitError, "-database postgres://u:xxxxx@127.0.0.1:1/db"},
	} {
		code, stderr := runSafely(t, append([]string{"serve", "-addr", "127.0.0.1:0"}, tt.args...))
		if code != tt.code || !strings.Contains(stderr, tt.says) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d saying %q", tt.args, code, stderr, tt.code, tt.says)
		}
		if strings.Contains(stderr, "hunter2") {
			t.Errorf("%q: stderr shows the password: %q", tt.args, stderr)
		}
	}
}

// serveUntilStopped starts serve with args and returns its base URL, its
// standard output so far, and a function that stops it.
func serveUntilStopped(t *testing.T, args ...string) (string, string, func()) {
	t.Helper()
	out, errs := &servertest.Log{}, &servertest.Log{}
	stop := make(chan os.Signal, 1)
	done := make(chan int, 1)
	go func() {
		done <- run(append([]string{"serve", "-addr", "127.0.0.1:0"}, args...), nil, out, errs, stop)
	}()
	addr := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := addr.FindStringSubmatch(out.String()); m != nil {
			time.Sleep(50 * time.Millisecond) // the rest of the banner
			return m[1], out.String(), func() {
				stop <- syscall.SIGTERM
				if code := <-done; code != exitOK {
					t.Errorf("exit %d, stderr %q", code, errs.String())
				}
			}
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d: %s", code, errs.String())
		default:
		}
	}
	t.Fatalf("serve did not start: %q %q", out.String(), errs.String())
	return "", "", nil
}

func totalEvents(t *testing.T, base string) int {
	t.Helper()
	resp, err := http.Get(base + "/api/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Page struct{ TotalElements int } `json:"page"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("list: %d, %v", resp.StatusCode, err)
	}
	return body.Page.TotalElements
}

// TestServeKeepsStateInRedisAndPostgreSQL: with -redis and -database the
// banner says where the state is, the demo events are created on the
// first start only, and the events and tokens outlive a restart.
func TestServeKeepsStateInRedisAndPostgreSQL(t *testing.T) {
	rs, pg := backendtest.Redis(t), backendtest.Postgres(t)
	args := []string{"-redis", rs.URL, "-database", pg.Database(t), "-demo-events", "5", "-quiet"}
	base, banner, stop := serveUntilStopped(t, args...)
	for _, want := range []string{"5 demo events", "tokens, revocations and lockouts in Redis redis://127.0.0.1:", "events in PostgreSQL postgres://postgres@127.0.0.1:"} {
		if !strings.Contains(banner, want) {
			t.Errorf("the banner does not say %q: %q", want, banner)
		}
	}
	if n := totalEvents(t, base); n != 5 {
		t.Fatalf("%d events, want 5", n)
	}
	form := "grant_type=password&username=user%40email.com&password=user"
	req, _ := http.NewRequest("POST", base+"/oauth/token", strings.NewReader(form))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("myApp", "pass")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		AccessToken string `json:"access_token"`
	}
	json.NewDecoder(resp.Body).Decode(&tr)
	resp.Body.Close()
	stop()

	base, banner, stop = serveUntilStopped(t, args...)
	defer stop()
	if strings.Contains(banner, "demo events") {
		t.Errorf("the second start seeds the demo events again: %q", banner)
	}
	if n := totalEvents(t, base); n != 5 {
		t.Fatalf("after a restart: %d events, want 5", n)
	}
	req, _ = http.NewRequest("GET", base+"/api/events", nil)
	req.Header.Set("Authorization", "Bearer "+tr.AccessToken)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var list map[string]any
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if links, _ := list["_links"].(map[string]any); links["create-new-event"] == nil {
		t.Errorf("a token issued before the restart is not honoured after it: %d", resp.StatusCode)
	}
}
