package suite

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"eventsvc/conformance/othersvc"
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
	proxy := proxyTo(t, startReference(t, target.ServerConfig{}, nil))
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

// TestAFailureSaysWhatWasThere checks that a failure's message shows a
// value as the JSON it was, and that the exchange shown beside it is the
// one the message speaks of, its page named by its address.
func TestAFailureSaysWhatWasThere(t *testing.T) {
	for _, tt := range []struct {
		name     string
		flaws    othersvc.Flaws
		scenario string
		message  []string // in the message
		request  string   // the exchange's request line
	}{
		{
			name: "expires_in as a string", flaws: othersvc.Flaws{ExpiresInString: true},
			scenario: "A user exchanges their email and password for tokens",
			message:  []string{`expires_in is the string "300"`},
			request:  "POST ",
		},
		{
			name: "next on the last page", flaws: othersvc.Flaws{NextOnLastPage: true},
			scenario: "A list whose last page is full has no \"next\" there",
			message:  []string{"the page at ", "?p=", ", reached through the \"next\" link of the page at ", "lists no events"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, out, _ := runOther(t, othersvc.Config{Flaws: tt.flaws}, selection.RemoteTags, false)
			var f *report.Failure
			for _, s := range rep.Scenarios {
				if s.Name == tt.scenario {
					f = s.Failure
				}
			}
			if f == nil {
				t.Fatalf("%q did not fail\n%s", tt.scenario, out)
			}
			for _, want := range tt.message {
				if !strings.Contains(f.Message, want) {
					t.Errorf("the message %q lacks %q", f.Message, want)
				}
			}
			request := tt.request
			if request == "" {
				// The page the message names first is the one shown.
				rest := strings.TrimPrefix(f.Message, "the page at ")
				request = "GET " + rest[:strings.Index(rest, ",")]
			}
			if !strings.Contains(f.Exchange, "request:\n    "+request) {
				t.Errorf("the exchange shown is not the one of %q:\n%s", request, f.Exchange)
			}
		})
	}
}

// TestAReproductionShowsTheFaultAgain: the script a failure leaves under
// the report folder, run against the faulty target, shows its faulty
// answer again; against the reference server it shows a correct one. It
// holds no secret, and its output no token.
func TestAReproductionShowsTheFaultAgain(t *testing.T) {
	needCurl(t)
	ref := startReference(t, target.ServerConfig{}, nil)
	for _, tt := range []struct {
		name, tags string
		flaws      othersvc.Flaws
		rule       string
		// shows is what the last answer shows: present on the faulty
		// target, and not on the reference server, or the other way.
		shows  string
		faulty bool
	}{
		{"token_type mac", "@TOK-5", othersvc.Flaws{TokenTypeMAC: true}, "TOK-5", `"token_type":"mac"`, true},
		{"refreshed tokens dead: the list offers no creation", "@TOK-4 and @TOK-8 and not @TOK-13", othersvc.Flaws{RefreshedTokensDead: true}, "TOK-8", `"create-new-event"`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := othersvc.Start(t, othersvc.Config{Flaws: tt.flaws})
			dir := t.TempDir()
			var out bytes.Buffer
			rep, err := Run(Options{
				Target:    target.Target{BaseURL: srv.URL, Credentials: othersvc.Creds, RunID: "repro", EventBody: []byte(othersvc.EventBody)},
				Tags:      selection.RemoteTags + " and " + tt.tags,
				ReportDir: dir, Output: &out,
			})
			if !errors.Is(err, ErrFailed) {
				t.Fatalf("Run = %v\n%s", err, out.String())
			}
			var script string
			for _, s := range rep.Scenarios {
				if s.Verdict == report.Failed && s.Failure.ScriptFile != "" && strings.HasPrefix(filepath.Base(s.Failure.ScriptFile), tt.rule+"-") {
					script = filepath.Join(dir, s.Failure.ScriptFile)
					break
				}
			}
			if script == "" {
				t.Fatalf("no reproduction of a %s failure:\n%s", tt.rule, out.String())
			}
			if !strings.Contains(out.String(), "Reproduce: sh "+script) {
				t.Errorf("the console does not point at %s:\n%s", script, out.String())
			}
			html, _ := os.ReadFile(filepath.Join(dir, report.HTMLReport))
			if !strings.Contains(string(html), "Reproduce with curl") || !strings.Contains(string(html), "formenc()") {
				t.Errorf("conformance.html does not show the reproduction")
			}
			text, _ := os.ReadFile(script)
			for _, secret := range []string{othersvc.Creds.ClientSecret, othersvc.Creds.Password, othersvc.Creds.OtherPass} {
				if strings.Contains(string(text), secret) {
					t.Fatalf("the script holds a secret:\n%s", text)
				}
			}
			got := replay(t, script, srv.URL, othersvc.Creds)
			if last := got[strings.LastIndex(got, "== "):]; strings.Contains(last, tt.shows) != tt.faulty {
				t.Errorf("against the faulty target, the last answer shows %q: %v, want %v:\n%s", tt.shows, !tt.faulty, tt.faulty, got)
			}
			good := replay(t, script, ref, target.DemoCredentials)
			if last := good[strings.LastIndex(good, "== "):]; strings.Contains(last, tt.shows) == tt.faulty {
				t.Errorf("against the reference server, the last answer shows %q: %v, want %v:\n%s", tt.shows, tt.faulty, !tt.faulty, good)
			}
			for _, o := range []string{got, good} {
				if strings.Contains(o, `"access_token":"`) && !strings.Contains(o, `"access_token":"***"`) {
					t.Errorf("the script's output shows a token:\n%s", o)
				}
			}
		})
	}
}
