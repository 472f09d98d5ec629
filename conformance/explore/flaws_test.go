package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"eventsvc/conformance"
	"eventsvc/conformance/inprocess"
	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
)

// A flawed reference server: the in-process reference server behind a
// proxy that breaks it in one way, a way that shows only with some data or
// after some sequence of requests. The scenarios pass against each of
// them; exploration finds each.

// flaw is one way to break the reference server.
type flaw struct {
	name string
	// rules are what exploration may blame, the first among them: a rule
	// id, or "server error".
	rules []string
	// request may answer the request itself (true), or change it.
	request func(p *flawProxy, w http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool)
	// answer may change a JSON answer to the request.
	answer func(p *flawProxy, r *http.Request, reqBody []byte, status int, doc map[string]any)
	// audited is set for a flaw the scenarios of a remote run catch too,
	// though none was written for it: the audit of every answer they get
	// sees it in an answer some step asked for another reason.
	audited bool
}

// texts applies f to every string value of doc outside "_links".
func texts(doc map[string]any, f func(string) string) {
	for k, v := range doc {
		switch t := v.(type) {
		case string:
			doc[k] = f(t)
		case map[string]any:
			if k != "_links" {
				texts(t, f)
			}
		case []any:
			for _, e := range t {
				if m, ok := e.(map[string]any); ok {
					texts(m, f)
				}
			}
		}
	}
}

// numbers applies f to every number of doc outside "_links".
func numbers(doc map[string]any, f func(float64) float64) {
	for k, v := range doc {
		switch t := v.(type) {
		case float64:
			doc[k] = f(t)
		case map[string]any:
			if k != "_links" {
				numbers(t, f)
			}
		case []any:
			for _, e := range t {
				if m, ok := e.(map[string]any); ok {
					numbers(m, f)
				}
			}
		}
	}
}

// readBack are the rules a fault of what reads back breaks: after the
// creation (API-6), after an update (API-9).
var readBack = []string{"API-6", "API-9"}

var eventPath = regexp.MustCompile(`^/api/events/[0-9]+$`)

// flaws are the breakages; each shows only with data or a sequence no
// scenario has.
var flaws = []flaw{
	{name: "letters of right-to-left scripts are lost", rules: readBack, answer: func(_ *flawProxy, _ *http.Request, _ []byte, _ int, doc map[string]any) {
		texts(doc, func(s string) string {
			return strings.Map(func(r rune) rune {
				if r >= 0x0590 && r <= 0x06FF {
					return -1
				}
				return r
			}, s)
		})
	}},
	{name: "tabs and line breaks read back as spaces", rules: readBack, answer: func(_ *flawProxy, _ *http.Request, _ []byte, _ int, doc map[string]any) {
		texts(doc, strings.NewReplacer("\t", " ", "\n", " ").Replace)
	}},
	{name: "texts over 200 characters are cut", rules: readBack, answer: func(_ *flawProxy, _ *http.Request, _ []byte, _ int, doc map[string]any) {
		texts(doc, func(s string) string {
			if r := []rune(s); len(r) > 200 {
				return string(r[:200])
			}
			return s
		})
	}},
	{name: "a leap day reads back as the first of March", rules: readBack, answer: func(_ *flawProxy, _ *http.Request, _ []byte, _ int, doc map[string]any) {
		texts(doc, func(s string) string {
			if len(s) > 10 && s[4:11] == "-02-29T" {
				return s[:4] + "-03-01T" + s[11:]
			}
			return s
		})
	}},
	{name: "counts over 65535 read back as 65535", rules: readBack, answer: func(_ *flawProxy, _ *http.Request, _ []byte, _ int, doc map[string]any) {
		numbers(doc, func(n float64) float64 { return min(n, 65535) })
	}},
	{name: "a body with markup fails the server", rules: []string{"server error"}, request: func(_ *flawProxy, w http.ResponseWriter, _ *http.Request, body []byte) ([]byte, bool) {
		if bytes.Contains(body, []byte("<b>")) || bytes.Contains(body, []byte(`\u003cb\u003e`)) {
			http.Error(w, `{"error":"internal"}`, http.StatusInternalServerError)
			return nil, true
		}
		return body, false
	}},
	{name: "pages of 1 to 3 events after the first have no prev", rules: []string{"API-5"}, answer: func(_ *flawProxy, r *http.Request, _ []byte, _ int, doc map[string]any) {
		size, _ := strconv.Atoi(r.URL.Query().Get("size"))
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if r.Method == http.MethodGet && r.URL.Path == "/api/events" && size >= 1 && size <= 3 && page > 0 {
			links, _ := doc["_links"].(map[string]any)
			delete(links, "prev")
		}
	}},
	{name: "a second update stores the name alone", audited: true, rules: []string{"API-9"}, request: func(p *flawProxy, _ http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
		if r.Method != http.MethodPut || !eventPath.MatchString(r.URL.Path) {
			return body, false
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		last := p.lastBody[r.URL.Path]
		var sent map[string]any
		if p.updates[r.URL.Path] == 0 || last == nil || json.Unmarshal(body, &sent) != nil {
			return body, false
		}
		merged := map[string]any{}
		for k, v := range last {
			merged[k] = v
		}
		merged["name"] = sent["name"]
		b, _ := json.Marshal(merged)
		return b, false
	}},
	{name: "a refreshed token of the other user is offered every event's update-event", audited: true, rules: []string{"API-8"}, answer: func(p *flawProxy, r *http.Request, _ []byte, status int, doc map[string]any) {
		if r.Method != http.MethodGet || !eventPath.MatchString(r.URL.Path) || status != http.StatusOK {
			return
		}
		_, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		p.mu.Lock()
		who := p.refreshedFor[token]
		p.mu.Unlock()
		if who != target.DemoCredentials.OtherUsername {
			return
		}
		links, _ := doc["_links"].(map[string]any)
		if _, ok := links["update-event"]; !ok && links != nil {
			links["update-event"] = links["self"]
		}
	}},
	{name: "another user's refused update still moves the event", audited: true, rules: []string{"AUTH-6"}, answer: func(p *flawProxy, r *http.Request, reqBody []byte, status int, _ map[string]any) {
		if r.Method != http.MethodPut || status != http.StatusForbidden {
			return
		}
		p.mu.Lock()
		creator, last := p.creator[r.URL.Path], p.lastBody[r.URL.Path]
		p.mu.Unlock()
		var sent map[string]any
		if creator == "" || json.Unmarshal(reqBody, &sent) != nil {
			return
		}
		if last == nil {
			last = sent
		}
		moved := map[string]any{}
		for k, v := range last {
			moved[k] = v
		}
		moved["location"] = sent["location"]
		if moved["location"] == last["location"] {
			moved["location"] = "Moved by a refused update"
		}
		b, _ := json.Marshal(moved)
		req, _ := http.NewRequest(http.MethodPut, p.backend+r.URL.Path, bytes.NewReader(b))
		req.Header.Set("Authorization", creator)
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}},
	{name: "a creation that meets an update is lost", rules: []string{"API-6"}, request: loseCreationsThatMeetUpdates},
	{name: "the bearer scheme is read in three spellings only", rules: []string{"SVC-7"}, request: func(_ *flawProxy, _ http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
		scheme, _, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if strings.EqualFold(scheme, "bearer") && scheme != "Bearer" && scheme != "bearer" && scheme != "BEARER" {
			r.Header.Del("Authorization")
		}
		return body, false
	}},
}

// flawProxy serves a reference server at backend with one flaw, and
// remembers what its flaws need: who created each event, the body each
// was last updated with, and whose refreshed tokens are whose.
type flawProxy struct {
	flaw    flaw
	backend string

	mu           sync.Mutex
	creator      map[string]string         // event path → the creator's Authorization
	lastBody     map[string]map[string]any // event path → its last body taken
	updates      map[string]int            // event path → the updates taken
	refreshOf    map[string]string         // refresh token → username
	refreshedFor map[string]string         // access token from a refresh → username
	// seen, when set, is told of every request, its body, and the status
	// answered.
	seen func(r *http.Request, body []byte, status int)
	// meet is what the flaws of requests that meet remember
	// (meet_test.go).
	meet meetings
}

// startFlawed starts a reference server and the proxy of f in front of
// it, and returns the proxy's address.
func startFlawed(t testing.TB, f flaw) string {
	t.Helper()
	return startProxy(t, f, nil)
}

// startProxy is startFlawed, telling seen of every request.
func startProxy(t testing.TB, f flaw, seen func(*http.Request, []byte, int)) string {
	t.Helper()
	inst, err := inprocess.Launcher{Credentials: target.DemoCredentials, RealTime: true}.Launch(target.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Close() })
	p := &flawProxy{flaw: f, backend: inst.BaseURL(), creator: map[string]string{}, lastBody: map[string]map[string]any{}, updates: map[string]int{},
		refreshOf: map[string]string{}, refreshedFor: map[string]string{}, seen: seen}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv.URL
}

func (p *flawProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if p.flaw.request != nil {
		var done bool
		if body, done = p.flaw.request(p, w, r, body); done {
			if p.seen != nil {
				p.seen(r, body, http.StatusInternalServerError)
			}
			return
		}
	}
	req, _ := http.NewRequest(r.Method, p.backend+r.URL.RequestURI(), bytes.NewReader(body))
	req.Header = r.Header.Clone()
	req.Host = r.Host // the links name the proxy
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	p.remember(r, body, resp, answer)
	if p.seen != nil {
		p.seen(r, body, resp.StatusCode)
	}
	var doc map[string]any
	if p.flaw.answer != nil && strings.Contains(resp.Header.Get("Content-Type"), "json") && json.Unmarshal(answer, &doc) == nil && doc != nil {
		p.flaw.answer(p, r, body, resp.StatusCode, doc)
		answer, _ = json.Marshal(doc)
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
	w.WriteHeader(resp.StatusCode)
	w.Write(answer)
}

// remember notes what the flaws need of an exchange.
func (p *flawProxy) remember(r *http.Request, body []byte, resp *http.Response, answer []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/api/events" && ok:
		if u, err := url.Parse(resp.Header.Get("Location")); err == nil {
			p.creator[u.Path] = r.Header.Get("Authorization")
			var sent map[string]any
			if json.Unmarshal(body, &sent) == nil {
				p.lastBody[u.Path] = sent
			}
		}
	case r.Method == http.MethodPut && eventPath.MatchString(r.URL.Path) && ok:
		var sent map[string]any
		if json.Unmarshal(body, &sent) == nil {
			p.lastBody[r.URL.Path] = sent
			p.updates[r.URL.Path]++
		}
	case r.Method == http.MethodPost && r.URL.Path == "/oauth/token" && ok:
		form, _ := url.ParseQuery(string(body))
		var tokens struct {
			Access  string `json:"access_token"`
			Refresh string `json:"refresh_token"`
		}
		json.Unmarshal(answer, &tokens)
		switch form.Get("grant_type") {
		case "password":
			p.refreshOf[tokens.Refresh] = form.Get("username")
		case "refresh_token":
			who := p.refreshOf[form.Get("token")]
			p.refreshedFor[tokens.Access] = who
			if tokens.Refresh != "" {
				p.refreshOf[tokens.Refresh] = who
			}
		}
	}
}

// TestExplorationFindsWhatTheScenariosMiss breaks the reference server in
// each way of flaws: the scenarios of a remote run pass against it (or,
// for the flaws marked audited, fail by the audit of their answers alone),
// and the default exploration finds the fault, blames its rule, and
// shrinks it to a few actions.
//
// make test runs it with the package's other whole explorations, without
// the race detector (make mutation runs it alone): under it, the runs of
// the scenarios and of the exploration take minutes, and the tests of what
// runs at once run the same code under the detector.
func TestExplorationFindsWhatTheScenariosMiss(t *testing.T) {
	if raceBuild {
		t.Skip("make test runs it without the race detector (make mutation alone)")
	}
	for _, f := range flaws {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			suite := target.Target{BaseURL: startFlawed(t, f), Credentials: target.DemoCredentials, RunID: "flaw"}
			_, err := conformance.Run(conformance.Options{Target: suite, Tags: selection.RemoteTags, Output: &out, NoSummary: true})
			switch {
			case f.audited && err == nil:
				t.Fatalf("the scenarios pass against the flaw: the audit of their answers should see it\n%s", out.String())
			case f.audited && !strings.Contains(failingLines(out.String()), "audit:"):
				t.Fatalf("the scenarios fail against the flaw, but not by the audit of their answers\n%s", failingLines(out.String()))
			case !f.audited && err != nil:
				t.Fatalf("the scenarios catch the flaw (%v): it is not one only exploration finds\n%s", err, failingLines(out.String()))
			}
			out.Reset()
			target := target.Target{BaseURL: startFlawed(t, f), Credentials: target.DemoCredentials, RunID: "flaw"}
			rep, err := Run(context.Background(), Options{Target: target, Seed: 1, Output: &out, ReportDir: t.TempDir()})
			if !errors.Is(err, ErrFailed) {
				t.Fatalf("exploration did not find the flaw: Run = %v\n%s", err, out.String())
			}
			var found []string
			for _, s := range sequencesOf(rep) { // the audit may find what the flaw causes too
				if s.Verdict != report.Failed {
					continue
				}
				what := findingName(s.Failure)
				found = append(found, what)
				if shrunk := !strings.Contains(s.Name, "another finding"); shrunk && len(s.Steps) > maxShrunk {
					t.Errorf("the finding of %s is %d actions long after shrinking, want at most %d:\n%s", what, len(s.Steps), maxShrunk, out.String())
				}
			}
			for _, what := range found {
				if !slices.Contains(f.rules, what) {
					t.Fatalf("exploration blames %v, want %s\n%s", found, strings.Join(f.rules, " or "), out.String())
				}
			}
		})
	}
}

// maxShrunk is the longest a shrunk finding of a flaw may be.
const maxShrunk = 5

// failingLines are the lines of a run's output about failures.
func failingLines(out string) string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "FAILED") || strings.HasPrefix(l, "SETUP") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}
