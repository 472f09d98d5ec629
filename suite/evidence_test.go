package suite

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"eventsvc/conformance/report"
	"eventsvc/conformance/report/reporttest"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
)

// eventPath is the address of one event.
var eventPath = regexp.MustCompile(`^/api/events/[^/]+$`)

// startTokenlessReads starts a proxy in front of a reference server that
// drops the Authorization header of every read of an event: the read
// ignores the token, and the event offers its manager no "update-event",
// while the manager's update is taken.
func startTokenlessReads(t *testing.T) string {
	t.Helper()
	ref, err := url.Parse(startReference(t, target.ServerConfig{}, nil))
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(ref)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && eventPath.MatchString(r.URL.Path) {
			r.Header.Del("Authorization")
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// lastSection is what a script's output shows from its last heading on.
func lastSection(out string) string { return out[strings.LastIndex(out, "== "):] }

// TestTheEvidenceEndsWithTheFailingExchange: a read that ignores the
// token fails its scenario, whose check then sends the manager's update
// (taken) to tell which rule is broken. The failure's exchanges, in every
// report, end with the read, marked and open as the failing one; the
// script ends with the read too, and its heading shows the address it
// reads, that of the event the script created.
func TestTheEvidenceEndsWithTheFailingExchange(t *testing.T) {
	needCurl(t)
	base := startTokenlessReads(t)
	dir := t.TempDir()
	var out bytes.Buffer
	rep, err := Run(Options{
		Target:    target.Target{BaseURL: base, Credentials: target.DemoCredentials, RunID: "evidence"},
		Tags:      selection.RemoteTags,
		Scenarios: []string{"writing.feature:7"},
		ReportDir: dir, Output: &out,
	})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	s := scenarioNamed(t, rep, "A user with a token creates an event and becomes its manager")
	f := s.Failure
	if s.Verdict != report.Failed || f == nil || len(f.Exchanges) == 0 {
		t.Fatalf("the scenario is %s with %+v\n%s", s.Verdict, f, out.String())
	}
	last := f.Exchanges[len(f.Exchanges)-1]
	if f.FailingExchange != len(f.Exchanges) || !strings.HasPrefix(last, "request:\n    GET "+base+"/api/events/") || strings.TrimSpace(last) != strings.TrimSpace(f.Exchange) {
		t.Errorf("the failing exchange is number %d of %d, and the last is\n%s\nnot the read the failure is about:\n%s", f.FailingExchange, len(f.Exchanges), last, f.Exchange)
	}

	doc := reporttest.Read(t, dir)
	for _, js := range doc.Scenarios {
		if js.Name == s.Name && (js.Failure == nil || js.Failure.FailingExchange != len(js.Failure.Exchanges)) {
			t.Errorf("conformance.json does not name the last exchange as the failing one: %+v", js.Failure)
		}
	}

	page, err := os.ReadFile(filepath.Join(dir, report.HTMLReport))
	if err != nil {
		t.Fatal(err)
	}
	opened := regexp.MustCompile(`<details open><summary>exchange (\d+) of (\d+)([^<]*)</summary><pre>([^<]*)`).FindAllStringSubmatch(string(page), -1)
	if len(opened) != 1 || opened[0][1] != opened[0][2] || !strings.Contains(opened[0][3], "the failing exchange") || !strings.Contains(opened[0][4], "GET "+base+"/api/events/") {
		t.Errorf("conformance.html opens %q, not the read as the failing exchange", opened)
	}

	script := filepath.Join(dir, f.ScriptFile)
	text, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	end := string(text)[strings.LastIndex(string(text), "\nsay "):]
	if !strings.Contains(end, `GET ${LOCATION_`) || !strings.Contains(end, "(the failing request)") || strings.Contains(end, "PUT") {
		t.Errorf("the script does not end with the read, marked as failing:\n%s", text)
	}
	got := replay(t, script, base, target.DemoCredentials)
	created := regexp.MustCompile(`(?m)^Location: (\S+)$`).FindAllStringSubmatch(got, -1)
	if len(created) == 0 {
		t.Fatalf("the script created nothing:\n%s", got)
	}
	address := created[len(created)-1][1]
	heading := regexp.MustCompile(`^== \d+\. GET ` + regexp.QuoteMeta(address) + ` \(the failing request\)\n`)
	if section := lastSection(got); !heading.MatchString(section) || strings.Contains(section, "update-event") {
		t.Errorf("the script's last request is not the read of %s, which offers no update-event:\n%s", address, section)
	}
}
