package audit

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"eventsvc/conformance/repro"
)

// TestAReadDuringAWriteNotYetObservedIsNotJudged: a read that shows an
// event as a write of another scenario wrote it, a write the audit has not
// observed yet since its answer is still on its way, is no finding while
// that write is under way (it went through the audit's Transport); once
// observed, the read is judged against it, and a read that shows neither
// write is a finding again.
func TestAReadDuringAWriteNotYetObservedIsNotJudged(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	a := New(Options{ClientID: "app"})
	s := a.Scope(srv.URL, Place{Name: "a test", File: "test.feature"})
	clock := time.Unix(1_800_000_000, 0)
	n := 0
	observe := func(method, path, reqHeader, reqBody string, status int, respHeader, respBody string) []*Finding {
		start := clock
		clock = clock.Add(10 * time.Millisecond)
		n++
		return s.Observe(Exchange{Exchange: repro.Exchange{Method: method, URL: srv.URL + path, Header: header(reqHeader), Body: []byte(reqBody),
			Status: status, RespHeader: header(respHeader), RespBody: []byte(respBody)}, Start: start, End: clock}, n-1)
	}
	observe("GET", "/api", "", "", 200, jsonType, `{"_links":{"events":{"href":"/api/events"}}}`)
	observe("POST", "/oauth/token", client, "grant_type=password&username=user&password=pw", 200, noStore,
		`{"access_token":"tok-user","token_type":"bearer","refresh_token":"ref-user","expires_in":599,"scope":"read write"}`)
	user := userJSON
	observe("POST", "/api/events", user, `{"name":"First"}`, 201, "Location: /api/events/7\n"+jsonType, eventDoc(`"id":7,"name":"First"`, ""))

	// Another scenario's update, sent through the audit's Transport, its
	// answer held back.
	sent := make(chan struct{})
	go func() {
		req, _ := http.NewRequest(http.MethodPut, srv.URL+"/api/events/7", strings.NewReader(`{"name":"Renamed"}`))
		req.Header.Set("Authorization", "Bearer tok-user")
		close(sent)
		if resp, err := a.Transport(nil).RoundTrip(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-sent
	for !a.writing.under(key(mustParse(t, srv.URL+"/api/events/7"))) {
		time.Sleep(time.Millisecond)
	}
	read := observe("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"Renamed"`, ""))
	if found, _ := s.TakeOwn(2 + 1); len(found) != 0 || len(read) == 0 {
		t.Fatalf("a read that shows the update under way: taken %v of %v found, want none taken", rulesOf(found), rulesOf(read))
	}
	close(release)
	observe("PUT", "/api/events/7", user, `{"name":"Renamed"}`, 204, "", "")
	if got := rulesOf(a.Unclaimed()); len(got) != 0 {
		t.Errorf("once the update is observed, the read it answered is %v, want no finding", got)
	}
	observe("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"Something else"`, ""))
	if got := rulesOf(a.Unclaimed()); strings.Join(got, " ") != "API-9" {
		t.Errorf("a read that shows neither write is %v, want API-9", got)
	}
}

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestAWriteWithoutAnAnswerMayHaveBeenTaken: a write that got no answer
// (the runner gave up, the connection was cut) may have been taken: a
// read of its event that shows it, or no event, is not judged.
func TestAWriteWithoutAnAnswerMayHaveBeenTaken(t *testing.T) {
	r, _ := withUser(t)
	want(t, "a creation", r.createFirst(""))
	want(t, "it reads back otherwise", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"Unanswered"`, "")), "API-6")
	failing := roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, errors.New("timeout") })
	req, _ := http.NewRequest(http.MethodPut, base+"/api/events/7", strings.NewReader(`{"name":"Unanswered"}`))
	if _, err := r.a.Transport(failing).RoundTrip(req); err == nil {
		t.Fatal("the failing transport answered")
	}
	want(t, "it reads back as the write that got no answer", r.send("GET", "/api/events/7", "", "", 200, jsonType, eventDoc(`"id":7,"name":"Unanswered"`, "")))
	want(t, "it is not there", r.send("GET", "/api/events/7", "", "", 404, "", ""))
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestAWriteUnderWayCountsForEverySpellingOfItsAddress: a write sent to
// an address spelt otherwise (case, a trailing slash, a dot segment, a
// path parameter, an encoded letter) is under way at the address a
// router may take it for.
func TestAWriteUnderWayCountsForEverySpellingOfItsAddress(t *testing.T) {
	var f inFlight
	f.sent("http://h:80/API/Events/./7;x/")
	for _, k := range []string{"http://h:80/api/events/7", "http://h:80/api/%65vents/7?page=1", "http://h:80/api/events/07", "http://h:80/api/events/+7",
		"http://h:80/api/events/7.json", "http://h:80/api/events/7%20", "http://h:80/api/events/7%09", "http://h:80/api/events//7"} {
		if !f.under(k) {
			t.Errorf("%s: no write under way", k)
		}
	}
	for _, k := range []string{"http://h:80/api/events/8", "http://h:80/api/events/7x", "http://h:80/api/events/70", "http://h:80/api/events/%2537"} {
		if f.under(k) {
			t.Errorf("%s, another event's address, is under way too", k)
		}
	}
	f.done("http://h:80/api/events/7")
	if f.any() {
		t.Error("the write observed at another spelling is still under way")
	}
}
