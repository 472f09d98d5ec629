package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"eventsvc/server/backendtest"
)

// TestServeRefusesBackendsItCannotReach: a -redis or -database that does
// not answer, or does not parse, stops serve with a message naming the
// flag, and never its password.
func TestServeRefusesBackendsItCannotReach(t *testing.T) {
	expectRefused(t, []refusal{
		{[]string{"-backend-timeout", "0s"}, exitUsage, "-backend-timeout"},
		{[]string{"-backend-timeout", "31s"}, exitUsage, "-backend-timeout"},
		{[]string{"-redis", "redis://:hunter2@127.0.0.1:1/0", "-backend-timeout", "300ms"}, exitError, "-redis redis://:xxxxx@127.0.0.1:1/0: redis (tokens) unavailable"},
		{[]string{"-redis", "http://hunter2@example"}, exitError, "-redis"},
		{[]string{"-database", "postgres://u:hunter2@127.0.0.1:1/db", "-backend-timeout", "300ms"}, exitError, "-database postgres://u:xxxxx@127.0.0.1:1/db"},
	}, func(r refusal, stderr string) {
		if strings.Contains(stderr, "hunter2") {
			t.Errorf("%q: stderr shows the password: %q", r.args, stderr)
		}
	})
}

// totalEvents returns the number of events the list at base counts.
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
	args := []string{"-redis", rs.URL, "-database", pg.Database(t), "-demo-events", "5"}
	s := startServe(t, args...)
	for _, want := range []string{"5 demo events", "tokens, revocations and lockouts in Redis redis://127.0.0.1:", "events in PostgreSQL postgres://postgres@127.0.0.1:"} {
		if !strings.Contains(s.out.String(), want) {
			t.Errorf("the banner does not say %q: %q", want, s.out.String())
		}
	}
	if n := totalEvents(t, s.base); n != 5 {
		t.Fatalf("%d events, want 5", n)
	}
	token, _ := passwordGrant(t, s.base)["access_token"].(string)
	s.stopOK(t)

	s = startServe(t, args...)
	defer s.stopOK(t)
	if strings.Contains(s.out.String(), "demo events") {
		t.Errorf("the second start seeds the demo events again: %q", s.out.String())
	}
	if n := totalEvents(t, s.base); n != 5 {
		t.Fatalf("after a restart: %d events, want 5", n)
	}
	req, _ := http.NewRequest("GET", s.base+"/api/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
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
