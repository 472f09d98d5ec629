package eventsvctest_test

import (
	"net/http"
	"strings"
	"testing"

	"eventsvc/eventsvctest"
)

func TestTheJournalIsReadCountedAndCleared(t *testing.T) {
	srv := eventsvctest.NewServer(t, eventsvctest.Options{})
	_, tokens := login(t, srv, eventsvctest.User, eventsvctest.UserPassword)
	get(t, srv, "/api", "")
	get(t, srv, "/api/events", "")
	get(t, srv, "/api/events/1", "")
	get(t, srv, "/api/events/999", "")
	id := srv.AddFault(t, eventsvctest.Fault{Method: "GET", Path: "/api", Times: 1, Answer: eventsvctest.Answer{Status: 503}})
	if status, _ := get(t, srv, "/api", ""); status != http.StatusServiceUnavailable {
		t.Fatalf("GET /api with the fault = %d", status)
	}

	for _, tt := range []struct {
		filter eventsvctest.JournalFilter
		want   int
	}{
		{eventsvctest.JournalFilter{}, 6},
		{eventsvctest.JournalFilter{Method: "GET"}, 5},
		{eventsvctest.JournalFilter{Method: "post", Path: "/oauth/token"}, 1},
		{eventsvctest.JournalFilter{Path: "/api/events/*"}, 2},
		{eventsvctest.JournalFilter{Path: "/api/**"}, 5},
		{eventsvctest.JournalFilter{Status: "404"}, 1},
		{eventsvctest.JournalFilter{Status: "2xx"}, 4},
		{eventsvctest.JournalFilter{Fault: id}, 1},
		{eventsvctest.JournalFilter{Fault: eventsvctest.AnyFault}, 1},
		{eventsvctest.JournalFilter{Fault: eventsvctest.NoFault}, 5},
		{eventsvctest.JournalFilter{SinceID: 4}, 2},
		{eventsvctest.JournalFilter{GrantType: "password"}, 1},
		{eventsvctest.JournalFilter{GrantType: "refresh_token"}, 0},
		{eventsvctest.JournalFilter{GrantType: "password", Status: "4xx"}, 0},
	} {
		if got := srv.JournalCount(t, tt.filter); got != tt.want {
			t.Errorf("JournalCount(%+v) = %d, want %d", tt.filter, got, tt.want)
		}
		if got := len(srv.Journal(t, tt.filter)); got != tt.want {
			t.Errorf("len(Journal(%+v)) = %d, want %d", tt.filter, got, tt.want)
		}
	}
	last := srv.Journal(t, eventsvctest.JournalFilter{Limit: 2})
	if len(last) != 2 || last[0].Path != "/api/events/999" || last[1].Fault != id || last[1].Status != 503 {
		t.Fatalf("the last two entries: %+v", last)
	}
	first := srv.Journal(t, eventsvctest.JournalFilter{Path: "/oauth/token"})[0]
	secret := tokens["access_token"].(string)
	if strings.Contains(first.Response.Body, secret) || strings.Contains(first.Request.Body, eventsvctest.UserPassword+"&") ||
		!strings.Contains(first.Request.Body, "grant_type=password") || !strings.HasPrefix(first.Curl, "curl ") {
		t.Fatalf("the token request's entry is not masked, or has no curl line: %+v", first)
	}
	if since := srv.Journal(t, eventsvctest.JournalFilter{Since: last[1].Time}); len(since) == 0 || since[len(since)-1].ID != last[1].ID {
		t.Fatalf("Journal(since %v) = %+v, want it to end with entry %d", last[1].Time, since, last[1].ID)
	}
	if n := srv.ClearJournal(t); n != 6 {
		t.Fatalf("ClearJournal = %d, want 6", n)
	}
	if n := srv.JournalCount(t, eventsvctest.JournalFilter{}); n != 0 {
		t.Fatalf("%d entries after ClearJournal", n)
	}
}
