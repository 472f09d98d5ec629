package steps

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"eventsvc/conformance/target"
)

// TestCreationsAtTheSameMomentMeetAndAreWrittenDownEachWithItsAnswer: the
// creations of a step sent at the same moment are at the target together,
// each on a connection closed after its answer (closeAfter), and the
// scenario's log holds each with its own answer, where its exchange says
// it is.
func TestCreationsAtTheSameMomentMeetAndAreWrittenDownEachWithItsAnswer(t *testing.T) {
	var mu sync.Mutex
	inFlight, most, n, kept := 0, 0, 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/oauth/token":
			fmt.Fprint(w, `{"access_token":"at-0123456789abcdef","token_type":"bearer","expires_in":600,"refresh_token":"rt-0123456789abcdef","scope":"read write"}`)
		case r.URL.Path == "/api":
			fmt.Fprint(w, `{"_links":{"events":{"href":"/api/events"}}}`)
		case r.URL.Path == "/api/events" && r.Method == http.MethodGet:
			fmt.Fprint(w, `{"_links":{"self":{"href":"/api/events"},"create-new-event":{"href":"/api/events"}}}`)
		case r.URL.Path == "/api/events" && r.Method == http.MethodPost:
			var body map[string]any
			b, _ := io.ReadAll(r.Body)
			json.Unmarshal(b, &body)
			mu.Lock()
			inFlight++
			most = max(most, inFlight)
			n++
			id := n
			kept += map[bool]int{true: 0, false: 1}[r.Close]
			mu.Unlock()
			time.Sleep(50 * time.Millisecond)
			mu.Lock()
			inFlight--
			mu.Unlock()
			w.Header().Set("Location", fmt.Sprintf("/api/events/%d", id))
			w.WriteHeader(http.StatusCreated)
			json.NewEncoder(w).Encode(map[string]any{"id": id, "name": body["name"]})
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	creds := target.Credentials{ClientID: "app", ClientSecret: "app-secret", Username: "ann@example.org", Password: "ann-password", OtherUsername: "bob@example.org", OtherPass: "bob-password"}
	s := &scenario{target: target.Target{BaseURL: srv.URL, Credentials: creds, RunID: "lanes"}, creds: creds}
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	if err := s.createAtTheSameMoment(3); err != nil {
		t.Fatal(err)
	}
	if most != 6 {
		t.Errorf("at most %d creations were at the target at once, want the 6 sent at the same moment", most)
	}
	if kept != 0 {
		t.Errorf("%d creations sent at once kept their connection open after their answer, where a connection dialled for another could be left unused", kept)
	}
	log := s.rec.exchanges()
	for _, c := range s.sameMoment {
		x := log[c.x.at]
		name := c.body["name"].(string)
		if x.Method != http.MethodPost || !strings.Contains(string(x.Body), name) || !strings.Contains(string(x.RespBody), name) || !strings.Contains(x.Transcript, name) {
			t.Errorf("exchange %d of the log is not the creation of %q with its answer:\n%s", c.x.at, name, x.Transcript)
		}
		if !strings.Contains(c.x.body, name) {
			t.Errorf("the answer to the creation of %q reads %s", name, c.x.body)
		}
	}
	if err := s.eachMadeItsOwn(); err != nil {
		t.Errorf("six creations given six addresses: %v", err)
	}
}
