package steps

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/target"
)

// spellingCases are addresses the API may give and how each spelling
// writes them, query included.
var spellingCases = []struct {
	path     string
	phrase   string
	spelling string
}{
	{"/api/events", "with a trailing slash", "/api/events/"},
	{"/api/events/7", "with a trailing slash", "/api/events/7/"},
	{"/api/events/", "with a trailing slash", "/api/events"},
	{"/api/events", "with a doubled slash", "/api//events"},
	{"/api/events/7", "with a doubled slash", "/api//events/7"},
	{"/events", "with a doubled slash", "//events"},
	{"/api/events", "with a letter percent-encoded", "/%61pi/events"},
	{"/v1/Events/3", "with a letter percent-encoded", "/%76" + "1/Events/3"},
	{"/1/Events", "with a letter percent-encoded", "/1/%45vents"},
	{"/api/events", `with a "." segment`, "/api/./events"},
	{"/api/events/7", `with a "." segment`, "/api/./events/7"},
	{"/events", `with a "." segment`, "/./events"},
	{"/api/events", `with a ".." segment`, "/api/x/../events"},
	{"/api/events/7", `with a ".." segment`, "/api/x/../events/7"},
	{"/api/events", "in upper case", "/API/EVENTS"},
	{"/api/events/ev-0001", "in upper case", "/API/EVENTS/EV-0001"},
	{"/api/caf%c3%a9", "in upper case", "/API/CAF%C3%A9"},
	{"/api/events?page=1&size=5", "with a trailing slash", "/api/events/?page=1&size=5"},
	{"/api/events?sort=name", "in upper case", "/API/EVENTS?sort=name"},
}

func TestEachSpellingWritesTheAddressAsItsPhraseSays(t *testing.T) {
	for _, tt := range spellingCases {
		got, err := spell("http://example.test:8080"+tt.path, tt.phrase)
		if want := "http://example.test:8080" + tt.spelling; err != nil || got != want {
			t.Errorf("spell(%q, %q) = %q, %v; want %q", tt.path, tt.phrase, got, err, want)
		}
	}
}

func TestASpellingThatCannotChangeTheAddressIsAnError(t *testing.T) {
	for _, tt := range []struct{ address, phrase string }{
		{"http://example.test/1/2", "in upper case"},
		{"http://example.test/1/2", "with a letter percent-encoded"},
		{"http://example.test/api/events", "with its letters reversed"},
	} {
		if got, err := spell(tt.address, tt.phrase); err == nil {
			t.Errorf("spell(%q, %q) = %q, want an error", tt.address, tt.phrase, got)
		}
	}
}

// TestSpellingsGoOnTheWireAsWritten sends every spelling through a
// scenario's client to a server that writes down the request line's
// target: neither the client nor httpexpect cleans the dot segments, merges
// the slashes or decodes the letter.
func TestSpellingsGoOnTheWireAsWritten(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.RequestURI)
		mu.Unlock()
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	s := &scenario{target: target.Target{BaseURL: srv.URL}}
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range spellingCases {
		address, err := spell(srv.URL+tt.path, tt.phrase)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.send(s.at("POST", address)); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		got := seen[len(seen)-1]
		mu.Unlock()
		if got != tt.spelling {
			t.Errorf("%s %s: the server was sent %q, want %q", tt.path, tt.phrase, got, tt.spelling)
		}
	}
	if len(seen) != len(spellingCases) {
		t.Errorf("the server saw %d requests, want %d: %s", len(seen), len(spellingCases), strings.Join(seen, " "))
	}
}

// statusServer answers every request with the status its query names,
// and to a GET a JSON event with the name its query names.
func statusServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status, _ := strconv.Atoi(r.URL.Query().Get("status"))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"name": %q}`, r.URL.Query().Get("name"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestAWriteIsRefusedByAnyAnswerButASuccess(t *testing.T) {
	srv := statusServer(t)
	s := &scenario{target: target.Target{BaseURL: srv.URL}}
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	for status, refused := range map[int]bool{200: false, 201: false, 204: false, 301: true, 303: true, 308: true, 400: true, 401: true, 403: true, 404: true, 405: true, 500: true} {
		if err := s.when(s.at("POST", srv.URL+"/api/events/?status="+strconv.Itoa(status))); err != nil {
			t.Fatal(err)
		}
		if err := s.writeRefused(); (err == nil) != refused {
			t.Errorf("a write answered %d: %v; want it refused: %v", status, err, refused)
		}
	}
}

func TestAnEventIsStillThereOnlyWhenItReadsBackWithItsName(t *testing.T) {
	srv := statusServer(t)
	for _, tt := range []struct {
		query, wants string
		rules        []string
	}{
		{"status=200&name=Mine", "", nil},
		{"status=200&name=Taken+over", "renamed it", nil},
		{"status=404", "deleted it", nil},
		{"status=410", "deleted it", nil},
		{"status=401", "status 401", audit.EventOpenWithoutCredentials.Rules()},
	} {
		s := &scenario{target: target.Target{BaseURL: srv.URL}}
		if err := s.start(); err != nil {
			t.Fatal(err)
		}
		s.events.address, s.events.name = srv.URL+"/api/events/1?"+tt.query, "Mine"
		err := s.eventStillThere()
		var re *ruleError
		switch {
		case tt.wants == "" && err != nil:
			t.Errorf("%s: %v, want no failure", tt.query, err)
		case tt.wants != "" && (err == nil || !strings.Contains(err.Error(), tt.wants)):
			t.Errorf("%s: %v, want a failure that says %q", tt.query, err, tt.wants)
		case tt.rules != nil && (!errors.As(err, &re) || !slices.Equal(re.BrokenRules(), tt.rules)):
			t.Errorf("%s: %v blames %v, want %v", tt.query, err, re, tt.rules)
		}
	}
}
