package audit

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"eventsvc/conformance/hal"
	"eventsvc/conformance/repro"
	"eventsvc/internal/redact"
)

// walkRig is an audit of a live site that a test walks through.
type walkRig struct {
	t     *testing.T
	srv   *httptest.Server
	scope *Scope
	n     int
}

func newWalkRig(t *testing.T, h http.Handler) *walkRig {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	a := New(Options{ClientID: "app", Redactor: redact.New()})
	return &walkRig{t: t, srv: srv, scope: a.Scope(srv.URL, Place{Name: "a walk", File: "test.feature"})}
}

// get reads path and observes it, returning its number and its body.
func (r *walkRig) get(path, auth string) (int, map[string]any) {
	r.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, path, nil)
	if !strings.HasPrefix(path, "http") {
		req, _ = http.NewRequest(http.MethodGet, r.srv.URL+path, nil)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	x := Exchange{Exchange: repro.Record(redact.New(), req, nil, resp, body), Start: start, End: time.Now()}
	at := r.n
	r.n++
	r.scope.Observe(x, at)
	o := newObserved(r.scope.a.world(r.scope.worldNow()), x)
	return at, o.doc
}

// observe feeds the audit an exchange the test writes, sent and read
// now: one the site never saw.
func (r *walkRig) observe(method, path, reqHeader, reqBody string, status int, respHeader, respBody string) {
	start := time.Now()
	x := Exchange{Exchange: repro.Exchange{Method: method, URL: r.srv.URL + path, Header: header(reqHeader), Body: []byte(reqBody),
		Status: status, RespHeader: header(respHeader), RespBody: []byte(respBody)}, Start: start, End: start.Add(time.Millisecond)}
	r.scope.Observe(x, r.n)
	r.n++
}

// walk reads the root, then the list from its first page through
// "next" (stopping at a page read before), and returns the checks of the
// registry's findings about the walk.
func (r *walkRig) walk() []string {
	r.t.Helper()
	r.get("/api", "")
	var at []int
	seen := map[string]bool{}
	for address := r.srv.URL + "/api/events"; address != "" && !seen[address] && len(at) < 20; {
		seen[address] = true
		n, doc := r.get(address, "")
		at = append(at, n)
		next := hal.Links(doc)["next"]
		address = ""
		if next != "" {
			address = hal.Resolve(mustParse(r.t, r.srv.URL+"/api/events"), next)
		}
	}
	var checks []string
	found, _ := r.scope.Walked(at...)
	for _, f := range found {
		if f.standing() {
			checks = append(checks, f.Check)
		}
	}
	return checks
}

// TestAWalkIsJudgedAsAWhole: a walk through the list by its "next"
// links, told to the registry (Scope.Walked), is judged whole (API-5):
// the first page without "prev", every later page with "prev" and
// events, "next" that ends, no event on two pages, every event created
// listed. A correct site gives no finding.
func TestAWalkIsJudgedAsAWhole(t *testing.T) {
	want(t, "a correct list", newWalkRig(t, correct()).walk())
	item3 := `{"id":3,"name":"Event 3","_links":{"self":{"href":"/api/events/3"}}}`
	for _, tt := range []struct {
		name   string
		break_ func(site)
		check  string
	}{
		{"the first page offers prev", func(s site) {
			s["/api/events"] = strings.Replace(s["/api/events"], `"next"`, `"prev":{"href":"/api/events?page=-1"},"next"`, 1)
		}, WalkFirstPage},
		{"the second page offers no prev", func(s site) {
			s["/api/events?page=1"] = strings.Replace(s["/api/events?page=1"], `,"prev":{"href":"/api/events"}`, ``, 1)
		}, WalkOffersPrev},
		{"the second page lists nothing", func(s site) {
			s["/api/events?page=1"] = strings.Replace(s["/api/events?page=1"], item3, ``, 1)
		}, WalkListsSome},
		{"the last page's next leads back to the first", func(s site) {
			s["/api/events?page=1"] = strings.Replace(s["/api/events?page=1"], `"prev":{"href":"/api/events"}`, `"prev":{"href":"/api/events"},"next":{"href":"/api/events"}`, 1)
		}, WalkEnds},
		{"the last page lists an event of the first", func(s site) {
			s["/api/events?page=1"] = strings.Replace(s["/api/events?page=1"], item3, `{"id":1,"name":"Event 1","_links":{"self":{"href":"/api/events/1"}}}`, 1)
		}, WalkOnce},
	} {
		s := correct()
		tt.break_(s)
		want(t, tt.name, newWalkRig(t, s).walk(), tt.check)
	}
}

// TestAWalkThatMissesAnEventCreatedBeforeItIsJudged: a walk through the
// whole list meets every event the audit saw created before it began
// (API-5), and one created after it began is not looked for.
func TestAWalkThatMissesAnEventCreatedBeforeItIsJudged(t *testing.T) {
	r := newWalkRig(t, correct())
	r.get("/api", "")
	client := "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("app:secret")) + "\n" + formType
	r.observe("POST", "/oauth/token", client, "grant_type=password&username=user&password=pw", 200, noStore, `{"access_token":"tok","token_type":"bearer","refresh_token":"ref","expires_in":599,"scope":"read write"}`)
	r.observe("POST", "/api/events", "Authorization: Bearer tok\nContent-Type: application/json", `{"name":"Event 3"}`, 201, "Location: /api/events/3\n"+jsonType, `{"id":3,"name":"Event 3","_links":{"self":{"href":"/api/events/3"}}}`)
	time.Sleep(5 * time.Millisecond)
	want(t, "an event created and listed", r.walk())
	r.observe("POST", "/api/events", "Authorization: Bearer tok\nContent-Type: application/json", `{"name":"Event 9"}`, 201, "Location: /api/events/9\n"+jsonType, `{"id":9,"name":"Event 9","_links":{"self":{"href":"/api/events/9"}}}`)
	time.Sleep(5 * time.Millisecond)
	want(t, "an event created and not listed", r.walk(), WalkEvery)
}

// TestAWalkOverAListThatMovesIsNotJudged: pages that list an event
// twice, where reading them again lists otherwise (another writer
// created meanwhile), are not a finding: the audit reads the pages again
// before it blames the walk.
func TestAWalkOverAListThatMovesIsNotJudged(t *testing.T) {
	s := correct()
	moved := strings.Replace(s["/api/events?page=1"], `{"id":3,"name":"Event 3","_links":{"self":{"href":"/api/events/3"}}}`, `{"id":2,"name":"Event 2","_links":{"self":{"href":"/api/events/2"}}}`, 1)
	var reads atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.RequestURI() == "/api/events?page=1" && reads.Add(1) == 1 {
			w.Header().Set("Content-Type", "application/hal+json")
			io.WriteString(w, moved) // the first read: an event pushed on by a creation
			return
		}
		s.ServeHTTP(w, r)
	})
	want(t, "a list that moved under the walk", newWalkRig(t, h).walk())
}
