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

// TestHeadersOf8KiBAreAcceptedAndLargerOnesGet431: browsers and proxies
// send header fields of 8 KiB (cookies, forwarded chains); past
// MaxHeaderBytes in all, 431 with a body (RFC 6585 §5).
func TestHeadersOf8KiBAreAcceptedAndLargerOnesGet431(t *testing.T) {
	addr := listen(t)
	for _, tt := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"one field of 8 KiB", map[string]string{"X-Long": strings.Repeat("b", 8<<10)}, http.StatusOK},
		{"fields of 8 KiB in all", map[string]string{"X-A": strings.Repeat("a", 2<<10), "X-B": strings.Repeat("b", 2<<10), "X-C": strings.Repeat("c", 2<<10), "X-D": strings.Repeat("d", 2<<10-100)}, http.StatusOK},
		{"past the limit", map[string]string{"X-Long": strings.Repeat("b", MaxHeaderBytes)}, http.StatusRequestHeaderFieldsTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := rawRequest(t, addr, "GET", "/api", tt.header, "")
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d: %.200s", resp.StatusCode, tt.want, body)
			}
			if tt.want != http.StatusOK && !strings.Contains(body, `"error":"invalid_request"`) {
				t.Errorf("the 431 has no error body: %.200s", body)
			}
		})
	}
}
