package audit

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"eventsvc/conformance/repro"
	"eventsvc/internal/redact"
)

// site is a target that answers GET of each path with its body: a small
// API whose links a test writes.
type site map[string]string

func (s site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, ok := s[r.URL.RequestURI()]
	if code, isStatus := strings.CutPrefix(body, "status "); ok && isStatus {
		n, _ := strconv.Atoi(code)
		w.WriteHeader(n)
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/hal+json")
	if strings.HasPrefix(r.URL.Path, "/docs/") {
		w.Header().Set("Content-Type", "text/html")
	}
	io.WriteString(w, body)
}

// correct is a site whose every link leads where its relation says: a
// root, a list of three events in pages of two, the events and the docs.
func correct() site {
	item := func(id string) string {
		return `{"id":` + id + `,"name":"Event ` + id + `","_links":{"self":{"href":"/api/events/` + id + `"}}}`
	}
	ev := func(id string) string {
		return `{"id":` + id + `,"name":"Event ` + id + `","_links":{"self":{"href":"/api/events/` + id + `"},"query-events":{"href":"/api/events"},"profile":{"href":"/docs/index.html"}}}`
	}
	list := func(self, more string, items ...string) string {
		return `{"_links":{"self":{"href":"` + self + `"},"profile":{"href":"/docs/index.html"},"get-an-event":{"href":"/api/events/{id}","templated":true}` + more + `},"_embedded":{"events":[` + strings.Join(items, ",") + `]}}`
	}
	return site{
		"/api":               `{"_links":{"events":{"href":"/api/events"},"profile":{"href":"/docs/index.html"}}}`,
		"/api/events":        list("/api/events", `,"next":{"href":"/api/events?page=1"}`, item("1"), item("2")),
		"/api/events?page=1": list("/api/events?page=1", `,"prev":{"href":"/api/events"}`, item("3")),
		"/api/events/1":      ev("1"),
		"/api/events/2":      ev("2"),
		"/api/events/3":      ev("3"),
		"/docs/index.html":   "<html><body>The docs</body></html>",
	}
}

// audited reads the API root of s, then every link the audit follows
// from it, and returns the rules of the findings.
func audited(t *testing.T, s site) []string {
	t.Helper()
	srv := httptest.NewServer(s)
	defer srv.Close()
	a := New(Options{ClientID: "app", Follow: true, Redactor: redact.New()})
	scope := a.Scope(srv.URL, Place{Name: "a test", File: "test.feature"})
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api", nil)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	scope.Observe(Exchange{Exchange: repro.Record(redact.New(), req, nil, resp, body), Start: start, End: time.Now()}, 0)
	scope.Release()
	a.Close()
	if a.Checks()["API-10"] < len(s)-1 {
		t.Errorf("the audit checked %d links, want one for every page the site serves but the root", a.Checks()["API-10"])
	}
	var rules []string
	for _, f := range a.Unclaimed() {
		rules = append(rules, f.Rule)
	}
	slices.Sort(rules)
	return slices.Compact(rules)
}

// TestEveryLinkIsFollowedAndLeadsWhereItsRelationSays: from the API root
// alone, the audit follows every link of every answer once, and finds
// each link that leads elsewhere than its relation says (API-10, API-5).
func TestEveryLinkIsFollowedAndLeadsWhereItsRelationSays(t *testing.T) {
	want(t, "a correct site", audited(t, correct()))
	for _, tt := range []struct {
		name   string
		break_ func(site)
		rule   string
	}{
		{"an event's self leads to the list", func(s site) {
			s["/api/events/2"] = strings.Replace(s["/api/events/2"], `"self":{"href":"/api/events/2"}`, `"self":{"href":"/api/events"}`, 1)
		}, "API-10"},
		{"the last event listed links to another event", func(s site) {
			s["/api/events?page=1"] = strings.Replace(s["/api/events?page=1"], `"/api/events/3"`, `"/api/events/4"`, 1)
			s["/api/events/4"] = strings.ReplaceAll(s["/api/events/3"], "3", "4")
		}, "API-10"},
		{"the profile is empty", func(s site) { s["/docs/index.html"] = " " }, "API-10"},
		{"the last page's next leads back to the first", func(s site) {
			s["/api/events?page=1"] = strings.Replace(s["/api/events?page=1"], `"prev":{"href":"/api/events"}`, `"prev":{"href":"/api/events"},"next":{"href":"/api/events"}`, 1)
		}, "API-5"},
		{"the page after the first offers no prev", func(s site) {
			s["/api/events?page=1"] = strings.Replace(s["/api/events?page=1"], `,"prev":{"href":"/api/events"}`, ``, 1)
		}, "API-5"},
		{"the last page lists an event of the first", func(s site) {
			s["/api/events?page=1"] = strings.Replace(s["/api/events?page=1"], `{"id":3,"name":"Event 3","_links":{"self":{"href":"/api/events/3"}}}`, `{"id":2,"name":"Event 2","_links":{"self":{"href":"/api/events/2"}}}`, 1)
		}, "API-5"},
		{"an event is not served", func(s site) { delete(s, "/api/events/3") }, "API-10"},
	} {
		s := correct()
		tt.break_(s)
		want(t, tt.name, audited(t, s), tt.rule)
	}
}

// TestALinkAnsweredByAGatewayOrAThrottleIsNotJudged: an answer 429, 502,
// 503 or 504 to a link the audit follows is the target protecting itself
// or a gateway answering for it, which the runners tell: the link is not
// judged by it.
func TestALinkAnsweredByAGatewayOrAThrottleIsNotJudged(t *testing.T) {
	for _, status := range []string{"429", "502", "503", "504"} {
		s := correct()
		s["/api/events/3"] = "status " + status
		want(t, "event 3 answered "+status, audited(t, s))
	}
	s := correct()
	s["/api/events/3"] = "status 500"
	want(t, "event 3 answered 500", audited(t, s), "API-10")
}

// TestAPageThatIsNotJSONIsKeptShort: of a documentation page the audit
// follows a link to, it keeps and masks the start; a JSON answer whole.
func TestAPageThatIsNotJSONIsKeptShort(t *testing.T) {
	page := []byte(strings.Repeat("<p>The docs</p>", 1000))
	got := shortened(http.Header{"Content-Type": {"text/html; charset=utf-8"}}, page)
	if len(got) > maxPage+200 || !strings.Contains(string(got), "the audit keeps no more") {
		t.Errorf("a page of %d bytes kept as %d bytes: %.80q", len(page), len(got), got)
	}
	doc := []byte(`{"name":"` + strings.Repeat("x", 10000) + `"}`)
	if got := shortened(http.Header{"Content-Type": {"application/hal+json"}}, doc); len(got) != len(doc) {
		t.Errorf("a JSON answer of %d bytes kept as %d", len(doc), len(got))
	}
}

// TestTheDocumentationIsFollowedOncePerKindOfCaller: the "profile" links
// of two servers' answers, got with two tokens, lead to one request for
// the documentation, whose answer depends on the kind of caller only.
func TestTheDocumentationIsFollowedOncePerKindOfCaller(t *testing.T) {
	var docs atomic.Int32
	s := correct()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/docs/index.html" {
			docs.Add(1)
		}
		s.ServeHTTP(w, r)
	}))
	defer srv.Close()
	a := New(Options{ClientID: "app", Follow: true, Redactor: redact.New()})
	for i := range 2 {
		scope := a.Scope(srv.URL, Place{Name: "a test", File: "test.feature"})
		scope.Move(srv.URL, true) // a server of its own, as an in-process scenario's
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api", nil)
		req.Header.Set("Authorization", fmt.Sprintf("Bearer unknown-%d", i))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		scope.Observe(Exchange{Exchange: repro.Record(redact.New(), req, nil, resp, body), Start: time.Now(), End: time.Now()}, 0)
		scope.Release()
	}
	a.Close()
	if n := docs.Load(); n != 1 {
		t.Errorf("the documentation was read %d times, want once", n)
	}
}

// TestALinkIsFollowedOnceForEveryTokenOfAnAccount: the links of answers
// got with two valid tokens of one account are followed once: every such
// token acts alike, and a run takes many.
func TestALinkIsFollowedOnceForEveryTokenOfAnAccount(t *testing.T) {
	var lists atomic.Int32
	s := correct()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.RequestURI() == "/api/events" {
			lists.Add(1)
		}
		s.ServeHTTP(w, r)
	}))
	defer srv.Close()
	a := New(Options{ClientID: "app", Follow: true, Redactor: redact.New()})
	scope := a.Scope(srv.URL, Place{Name: "a test", File: "test.feature"})
	observe := func(at int, method, path, auth, body string, status int, respHeader, respBody string) {
		now := time.Now()
		scope.Observe(Exchange{Exchange: repro.Exchange{Method: method, URL: srv.URL + path, Header: header(auth), Body: []byte(body),
			Status: status, RespHeader: header(respHeader), RespBody: []byte(respBody)}, Start: now, End: now}, at)
	}
	for i, tok := range []string{"tok-one", "tok-two"} {
		observe(2*i, "POST", "/oauth/token", client, "grant_type=password&username=user&password=pw", 200, noStore,
			`{"access_token":"`+tok+`","token_type":"bearer","refresh_token":"ref-`+tok+`","expires_in":599,"scope":"read write"}`)
		observe(2*i+1, "GET", "/api", "Authorization: Bearer "+tok, "", 200, jsonType, correct()["/api"])
	}
	scope.Release()
	a.Close()
	if n := lists.Load(); n != 1 {
		t.Errorf("the list was read %d times for two tokens of one account, want once", n)
	}
}

// TestTakingTheFindingsOfOneExchangeWaitsForItsLinksAlone: a step that
// asks for the findings of one exchange waits for the links followed from
// it, not for those of the scope's other exchanges.
func TestTakingTheFindingsOfOneExchangeWaitsForItsLinksAlone(t *testing.T) {
	release := make(chan struct{})
	s := correct()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/events/3" {
			<-release // the link of the second exchange is not answered yet
		}
		s.ServeHTTP(w, r)
	}))
	defer srv.Close()
	a := New(Options{ClientID: "app", Follow: true, Redactor: redact.New()})
	scope := a.Scope(srv.URL, Place{Name: "a test", File: "test.feature"})
	observe := func(at int, path, body string) {
		now := time.Now()
		scope.Observe(Exchange{Exchange: repro.Exchange{Method: "GET", URL: srv.URL + path, Header: http.Header{},
			Status: 200, RespHeader: header(jsonType), RespBody: []byte(body)}, Start: now, End: now}, at)
	}
	s["/api/events/2"] = `{"id":2,"name":"Event 2","_links":{"self":{"href":"/api/events/2"}}}`
	observe(0, "/api/events/2", s["/api/events/2"])
	observe(1, "/api/events/3", `{"id":3,"name":"Event 3","_links":{"self":{"href":"/api/events/3"}}}`)
	if !returnsWithin(func() { scope.TakeAt(0) }) {
		t.Error("taking the findings of the first exchange waited for the links of the second")
	}
	close(release)
	scope.Release()
	a.Close()
}

// TestALinkThatRedirectsIsNotJudged: the audit does not follow a
// redirect (it would carry the caller's token further), and a link
// answered with one is not judged by that answer: the documentation at
// /docs/ may well be reached through /docs.
func TestALinkThatRedirectsIsNotJudged(t *testing.T) {
	for _, status := range []string{"301", "302", "307", "308"} {
		s := correct()
		s["/docs/index.html"] = "status " + status
		want(t, "the documentation answered "+status, audited(t, s))
	}
}

// TestTheLinksAStepWaitsForAreFollowedFirst: when a step waits for the
// links of one exchange, the audit follows them before the links of other
// scenarios queued ahead of them.
func TestTheLinksAStepWaitsForAreFollowedFirst(t *testing.T) {
	s := site{}
	var items []string
	for i := 1; i <= 20; i++ {
		id := strconv.Itoa(i)
		s["/api/events/"+id] = `{"id":` + id + `,"name":"Event ` + id + `","_links":{"self":{"href":"/api/events/` + id + `"}}}`
		items = append(items, s["/api/events/"+id])
	}
	s["/api/events/21"] = `{"id":21,"name":"Event 21","_links":{"self":{"href":"/api/events/21"}}}`
	var mu sync.Mutex
	var served []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(5 * time.Millisecond)
		mu.Lock()
		served = append(served, r.URL.Path)
		mu.Unlock()
		s.ServeHTTP(w, r)
	}))
	defer srv.Close()
	a := New(Options{ClientID: "app", Follow: true, Redactor: redact.New(), Workers: 1})
	observe := func(scope *Scope, path, body string) {
		now := time.Now()
		scope.Observe(Exchange{Exchange: repro.Exchange{Method: "GET", URL: srv.URL + path, Header: http.Header{},
			Status: 200, RespHeader: header(jsonType), RespBody: []byte(body)}, Start: now, End: now}, 0)
	}
	busy := a.Scope(srv.URL, Place{Name: "a scenario that reads a long page", File: "test.feature"})
	observe(busy, "/api/events", `{"_links":{"self":{"href":"/api/events"}},"_embedded":{"events":[`+strings.Join(items, ",")+`]}}`)
	waiting := a.Scope(srv.URL, Place{Name: "a scenario that waits", File: "test.feature"})
	observe(waiting, "/api/events/21", s["/api/events/21"])
	waiting.TakeAt(0)
	mu.Lock()
	before := slices.Index(served, "/api/events/21")
	mu.Unlock()
	if before < 0 || before > 3 {
		t.Errorf("the link the step waited for was followed after %d others (%v), want it among the first", before, served)
	}
	busy.Release()
	waiting.Release()
	a.Close()
}

// TestALinkWaitedForThatAnotherLeadsToFirstIsNotLeftWaiting: a step waits
// for a link to an address that a link queued earlier, of another
// scenario, leads to as well; the audit follows that one first, the
// answer serving both, rather than wait for it with the only worker.
func TestALinkWaitedForThatAnotherLeadsToFirstIsNotLeftWaiting(t *testing.T) {
	s := correct()
	srv := httptest.NewServer(s)
	defer srv.Close()
	a := New(Options{ClientID: "app", Follow: true, Redactor: redact.New(), Workers: 1})
	observe := func(scope *Scope, path string) {
		now := time.Now()
		scope.Observe(Exchange{Exchange: repro.Exchange{Method: "GET", URL: srv.URL + path, Header: http.Header{},
			Status: 200, RespHeader: header(jsonType), RespBody: []byte(s[path])}, Start: now, End: now}, 0)
	}
	// The only worker is busy while both are queued.
	busy := a.Scope(srv.URL, Place{Name: "a scenario that reads the list", File: "test.feature"})
	first := a.Scope(srv.URL, Place{Name: "a scenario that reads event 1", File: "test.feature"})
	waiting := a.Scope(srv.URL, Place{Name: "a scenario that reads it too and waits", File: "test.feature"})
	observe(busy, "/api/events")
	observe(first, "/api/events/1")
	observe(waiting, "/api/events/1")
	if !returnsWithin(func() { waiting.TakeAt(0) }) {
		t.Fatal("the step waits for ever for a link whose address another link of the queue leads to")
	}
	for _, sc := range []*Scope{busy, first, waiting} {
		sc.Release()
	}
	a.Close()
}

// TestTakingTheFindingsOfAnAnswerItselfWaitsForNoLink: TakeOwn gives the
// findings about an exchange itself at once, while the links followed
// from it are still on their way, and leaves theirs to TakeAt.
func TestTakingTheFindingsOfAnAnswerItselfWaitsForNoLink(t *testing.T) {
	release := make(chan struct{})
	s := correct()
	s["/api/events/2"] = `{"id":3,"name":"Event 3","_links":{"self":{"href":"/api/events/3"}}}` // its self leads elsewhere
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		s.ServeHTTP(w, r)
	}))
	defer srv.Close()
	a := New(Options{ClientID: "app", Follow: true, Redactor: redact.New()})
	scope := a.Scope(srv.URL, Place{Name: "a test", File: "test.feature"})
	now := time.Now()
	scope.Observe(Exchange{Exchange: repro.Exchange{Method: "GET", URL: srv.URL + "/api/events/1", Header: http.Header{},
		Status: 200, RespHeader: header(jsonType),
		RespBody: []byte(`{"id":1,"name":"Event 1","_links":{"self":{"href":"/api/events/1"},"next-event":null,"related":{"href":"/api/events/2"}}}`)},
		Start: now, End: now}, 0)
	var found []*Finding
	if !returnsWithin(func() { found, _ = scope.TakeOwn(0) }) {
		t.Fatal("TakeOwn waited for the links followed from the answer")
	}
	if len(found) != 1 || found[0].Rule != "SVC-2" || len(found[0].Followed) != 0 {
		t.Errorf("TakeOwn = %v, want the answer's own finding of SVC-2", rulesOf(found))
	}
	close(release)
	if found, _ := scope.TakeAt(0); !slices.Contains(rulesOf(found), "API-10") || slices.Contains(rulesOf(found), "SVC-2") {
		t.Errorf("TakeAt after TakeOwn = %v, want what the followed link leads to alone", rulesOf(found))
	}
	scope.Release()
	a.Close()
}

func rulesOf(found []*Finding) []string {
	var rules []string
	for _, f := range found {
		rules = append(rules, f.Rule)
	}
	return rules
}

// returnsWithin reports whether f returns within ten seconds; a test that
// finds it waits longer fails rather than hang.
func returnsWithin(f func()) bool {
	done := make(chan struct{})
	go func() {
		f()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(10 * time.Second):
		return false
	}
}
