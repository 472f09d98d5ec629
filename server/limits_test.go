package server

import (
	"net/http"
	"strings"
	"testing"
)

// eventBody is a valid event body with the given name.
func eventBody(name string) string {
	return `{"name":"` + name + `","description":"d","beginEnrollmentDateTime":"2026-11-01T10:00:00","closeEnrollmentDateTime":"2026-11-02T10:00:00","beginEventDateTime":"2026-11-03T10:00:00","endEventDateTime":"2026-11-04T10:00:00"}`
}

// TestPageSizeIsAtMostMaxPageSize: a page holds at most 100 events, so that
// an anonymous caller cannot ask for pages of any size; 101 is bad paging.
func TestPageSizeIsAtMostMaxPageSize(t *testing.T) {
	addr := listen(t)
	for size, want := range map[string]int{"100": 200, "101": 400, "1000": 400} {
		resp, body := rawRequest(t, addr, "GET", "/api/events?size="+size, nil, "")
		if resp.StatusCode != want {
			t.Errorf("size=%s: %d %s, want %d", size, resp.StatusCode, body, want)
		}
		if want == 400 && !strings.Contains(body, "size must be from 1 to 100") {
			t.Errorf("size=%s: body %s does not say the range", size, body)
		}
	}
}

// TestTextsLongerThanTheirColumnAreRefused: a name of 256 characters is
// refused with 400 and creates nothing.
func TestTextsLongerThanTheirColumnAreRefused(t *testing.T) {
	addr := listen(t)
	h := map[string]string{"Authorization": "Bearer " + tokenFor(t, addr, "user@email.com", "user"), "Content-Type": "application/json"}
	resp, body := rawRequest(t, addr, "POST", "/api/events", h, eventBody(strings.Repeat("n", 256)))
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `"code":"Size"`) || !strings.Contains(body, "at most 255 characters") {
		t.Fatalf("a 256-character name: %d %s", resp.StatusCode, body)
	}
	if _, body := rawRequest(t, addr, "GET", "/api/events", nil, ""); !strings.Contains(body, `"totalElements":0`) {
		t.Fatalf("an event was created: %s", body)
	}
}

// TestEachUserManagesAtMostMaxEventsPerUser: past the cap, a create gets
// 403 with a body that says why, and creates nothing; another user still
// creates, and the capped user still updates.
func TestEachUserManagesAtMostMaxEventsPerUser(t *testing.T) {
	addr, _ := listenWith(t, Options{MaxEventsPerUser: 3})
	user := map[string]string{"Authorization": "Bearer " + tokenFor(t, addr, "user@email.com", "user"), "Content-Type": "application/json"}
	admin := map[string]string{"Authorization": "Bearer " + tokenFor(t, addr, "admin@email.com", "admin"), "Content-Type": "application/json"}
	for i := 0; i < 3; i++ {
		if resp, body := rawRequest(t, addr, "POST", "/api/events", user, eventBody("e")); resp.StatusCode != http.StatusCreated {
			t.Fatalf("event %d: %d %s", i+1, resp.StatusCode, body)
		}
	}
	resp, body := rawRequest(t, addr, "POST", "/api/events", user, eventBody("one too many"))
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, `"error":"too_many_events"`) || !strings.Contains(body, "at most 3 events") {
		t.Fatalf("a fourth event: %d %s", resp.StatusCode, body)
	}
	if resp, body := rawRequest(t, addr, "POST", "/api/events", admin, eventBody("admin's")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("another user: %d %s", resp.StatusCode, body)
	}
	if resp, body := rawRequest(t, addr, "PUT", "/api/events/1", user, eventBody("renamed")); resp.StatusCode != http.StatusOK {
		t.Fatalf("an update at the cap: %d %s", resp.StatusCode, body)
	}
	if _, body := rawRequest(t, addr, "GET", "/api/events", nil, ""); !strings.Contains(body, `"totalElements":4`) {
		t.Fatalf("want 4 events: %s", body)
	}
}
