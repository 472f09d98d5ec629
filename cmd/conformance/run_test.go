package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"eventsvc/server"
	"eventsvc/server/servertest"
)

// proxyToReference starts a reference server with the demo
// configuration for the test: a proxy to it, and its address.
func proxyToReference(t *testing.T) (*httputil.ReverseProxy, string) {
	t.Helper()
	ref := servertest.New(t, server.New(server.Options{Config: servertest.DemoConfig(t)}))
	u, err := url.Parse(ref.URL)
	if err != nil {
		t.Fatal(err)
	}
	return httputil.NewSingleHostReverseProxy(u), ref.URL
}

// refusing starts a server, closed with the test, that answers each
// request refused says, by the request and its body, with status and
// answer, and passes the others to rp.
func refusing(t *testing.T, rp http.Handler, refused func(r *http.Request, body []byte) bool, status int, answer string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if refused(r, body) {
			http.Error(w, answer, status)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// quotedCreation is a creation whose body holds an escaped quotation
// mark, which a target that fails on it refuses.
func quotedCreation(r *http.Request, body []byte) bool {
	return r.Method == http.MethodPost && r.URL.Path == "/api/events" && bytes.Contains(body, []byte(`\"`))
}

// env is the environment vars alone, but for CONFORMANCE_EXPLORE, 0
// unless vars give it: the tests of other things than the exploration
// that follows the scenarios leave it out (exploration_test.go tests it,
// with lookupOf).
func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := vars[k]
		if !ok && k == "CONFORMANCE_EXPLORE" {
			return "0", true
		}
		return v, ok
	}
}

func TestListShowsSelectedScenariosWithRuleIDs(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"-list", "-base-url", "https://staging.example", "-read-only"}, env(nil), &out, &errs)
	if code != exitPassed {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	text := out.String()
	if !strings.Contains(text, "TOK-10,CLI-1") || !strings.Contains(text, "No token for the user's token with the user's credentials as the client's") {
		t.Errorf("the list lacks a @spec scenario with its rules:\n%s", text)
	}
	for _, leftOut := range []string{"Token responses must not be cached", "Two accounts with the same email", "Another user may not update the event"} {
		if strings.Contains(text, leftOut) {
			t.Errorf("the list holds %q, which the default remote tags and -read-only leave out", leftOut)
		}
	}
	if !strings.Contains(text, `scenarios selected by "@spec && ~@local && ~@slow && ~@writes"`) {
		t.Errorf("the list does not say how it selected:\n%s", text)
	}
}

func TestUnreachableTargetFailsFastWithOneLine(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	var out, errs bytes.Buffer
	code := run([]string{"-base-url", "http://" + addr, "-report-dir", t.TempDir()}, env(nil), &out, &errs)
	if code != exitUsage {
		t.Fatalf("exit %d, want %d", code, exitUsage)
	}
	msg := strings.TrimSpace(errs.String())
	if strings.Count(msg, "\n") != 0 || !strings.Contains(msg, "cannot reach http://"+addr) {
		t.Fatalf("stderr is not one clear line: %q", msg)
	}
}

func TestBadEventFileIsAUsageError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(path, []byte("[1,2]"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	code := run([]string{"-list"}, env(map[string]string{"CONFORMANCE_EVENT_FILE": path}), &out, &errs)
	if code != exitUsage || !strings.Contains(errs.String(), "the JSON is an array, not an object") {
		t.Fatalf("exit %d, stderr %q", code, errs.String())
	}
}

func TestBadTagsStopTheRunWithOneLineAndExit2(t *testing.T) {
	for expr, want := range map[string]string{
		"@spce && ~@local":           "did you mean @spec?",
		"@spec &&":                   `"&&" at the end has nothing after it`,
		"@AUTH-66":                   "not a rule of docs/rules.md",
		"@auth-6":                    "rule ids are upper case (@AUTH-6)",
		"@spec and @ref and @writes": "select no scenario",
	} {
		var out, errs bytes.Buffer
		code := run([]string{"-tags", expr, "-report-dir", t.TempDir()}, env(nil), &out, &errs)
		msg := strings.TrimSpace(errs.String())
		if code != exitUsage || !strings.Contains(msg, want) || strings.Contains(msg, "\n") || strings.Contains(msg, "goroutine") {
			t.Errorf("-tags %q: exit %d, stderr %q; want exit 2 and one line saying %q", expr, code, msg, want)
		}
	}
}

func TestCucumberTagSyntaxAndParenthesesSelect(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"-list", "-tags", "@spec and not (@local or @slow) and (@AUTH-6 or @API-1)"}, env(nil), &out, &errs)
	if code != exitPassed || !strings.Contains(out.String(), "AUTH-6") || strings.Contains(out.String(), "TOK-") {
		t.Fatalf("exit %d: %s%s", code, out.String(), errs.String())
	}
}

func TestTheBinaryHonoursReadOnlyFromTheEnvironment(t *testing.T) {
	for v, writes := range map[string]bool{"1": false, "true": false, "0": true, "false": true} {
		var out, errs bytes.Buffer
		code := run([]string{"-list"}, env(map[string]string{"READ_ONLY": v}), &out, &errs)
		if code != exitPassed {
			t.Fatalf("READ_ONLY=%s: exit %d: %s", v, code, errs.String())
		}
		if got := strings.Contains(out.String(), "Another user may not update the event"); got != writes {
			t.Errorf("READ_ONLY=%s: a writing scenario listed: %v, want %v", v, got, writes)
		}
	}
	var out, errs bytes.Buffer
	if code := run([]string{"-list"}, env(map[string]string{"READ_ONLY": "yes"}), &out, &errs); code != exitUsage {
		t.Errorf("READ_ONLY=yes: exit %d, want %d", code, exitUsage)
	}
}

func TestARunSaysWhichCredentialsItUsesButNoSecret(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"-tags", "@SVC-1", "-report-dir", t.TempDir()}, env(map[string]string{
		"CONFORMANCE_CLIENT_ID": "qa-app", "CONFORMANCE_CLIENT_SECRET": "qa-Secret-42",
		"CONFORMANCE_USERNAME": "qa@example.com", "CONFORMANCE_PASSWORD": "qa-Password-42",
		"CONFORMANCE_OTHER_USERNAME": "qa2@example.com", "CONFORMANCE_OTHER_PASSWORD": "qa2-Password-42",
	}), &out, &errs)
	if code != exitPassed {
		t.Fatalf("exit %d: %s%s", code, out.String(), errs.String())
	}
	if !strings.Contains(out.String(), "Failed logins: these scenarios send 0 token requests") {
		t.Errorf("the start of the run does not say how many failed logins it causes:\n%s", out.String())
	}
	if !strings.Contains(out.String(), `Credentials: client "qa-app", user "qa@example.com", other user "qa2@example.com"`) {
		t.Errorf("the run does not say which credentials it uses:\n%s", out.String())
	}
	for _, s := range []string{"qa-Secret-42", "qa-Password-42", "qa2-Password-42", "demo credentials"} {
		if strings.Contains(out.String()+errs.String(), s) {
			t.Errorf("the output holds %q", s)
		}
	}
	out.Reset()
	run([]string{"-tags", "@SVC-1", "-report-dir", t.TempDir(), "-color", "always"}, env(nil), &out, &errs)
	if !strings.Contains(out.String(), "the reference server's demo credentials") || !strings.Contains(out.String(), "\x1b[32m") {
		t.Errorf("without variables the run does not say it uses the demo credentials, or -color always does not colour:\n%s", out.String())
	}
}

func TestListSaysHowManyFailedLoginsTheSelectionCauses(t *testing.T) {
	count := func(tags string) string {
		var out, errs bytes.Buffer
		if code := run([]string{"-list", "-base-url", "https://staging.example", "-tags", tags}, env(nil), &out, &errs); code != exitPassed {
			t.Fatalf("exit %d: %s", code, errs.String())
		}
		m := regexp.MustCompile(`these scenarios send (\d+) token requests? with a wrong password or client secret`).FindStringSubmatch(out.String())
		if m == nil {
			t.Fatalf("-list does not say how many failed logins:\n%s", out.String())
		}
		return m[1]
	}
	if n := count("@TOK-3"); n != "2" {
		t.Errorf("@TOK-3 (a wrong password, an unknown user): %s failed logins", n)
	}
	if n := count("@SVC-1"); n != "0" {
		t.Errorf("@SVC-1: %s failed logins", n)
	}
}

func TestPipelineFlagsAreCheckedBeforeTheRun(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.json")
	for _, args := range [][]string{
		{"-concurrency", "0"}, {"-concurrency", "many"}, {"-retries", "-1"}, {"-timeout", "soon"},
		{"-expected-failures", missing}, {"-ca-file", missing}, {"-format", "html"}, {"-color", "sometimes"},
	} {
		var out, errs bytes.Buffer
		code := run(append(args, "-list"), env(nil), &out, &errs)
		if msg := strings.TrimSpace(errs.String()); code != exitUsage || msg == "" || strings.Contains(msg, "\n") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line", args, code, msg)
		} else if flagOnly := args[0] == "-format" || args[0] == "-color"; flagOnly && !strings.Contains(msg, args[0]) {
			t.Errorf("%v: stderr %q does not name the flag", args, msg) // a flag that stands for a variable is named by it
		}
	}
}

func TestAThrottledRunExits3(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api" {
			w.Write([]byte(`{"_links": {"events": {"href": "/api/events"}}}`))
			return
		}
		w.Header().Set("Retry-After", "120")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	dir := t.TempDir()
	var out, errs bytes.Buffer
	code := run([]string{"-base-url", srv.URL, "-report-dir", dir}, env(nil), &out, &errs)
	if code != exitThrottled || !strings.Contains(errs.String(), "Retry-After: 120") || !strings.Contains(errs.String(), "Wait for the lockout to end") {
		t.Fatalf("exit %d, stderr %q", code, errs.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "conformance.json"))
	if err != nil || !strings.Contains(string(b), `"outcome": "throttled"`) {
		t.Errorf("conformance.json of a throttled run: %v\n%s", err, b)
	}
}

func TestARunThatCannotStartReplacesTheLastReports(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		vars map[string]string
	}{
		{"bad tags", []string{"-tags", "@spce"}, nil},
		{"an empty variable", nil, map[string]string{"CONFORMANCE_CLIENT_ID": ""}},
		{"a bad format", []string{"-format", "html"}, nil},
	} {
		dir := t.TempDir()
		green := `<testsuites tests="59" failures="0"></testsuites>`
		if err := os.WriteFile(filepath.Join(dir, "junit.xml"), []byte(green), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errs bytes.Buffer
		if code := run(append(tt.args, "-report-dir", dir), env(tt.vars), &out, &errs); code != exitUsage {
			t.Fatalf("%s: exit %d", tt.name, code)
		}
		junit, _ := os.ReadFile(filepath.Join(dir, "junit.xml"))
		report, _ := os.ReadFile(filepath.Join(dir, "conformance.json"))
		if string(junit) == green || !strings.Contains(string(junit), `<testcase name="the run could not start"`) || !strings.Contains(string(report), `"outcome": "not started"`) {
			t.Errorf("%s: the reports do not say the run did not start:\n%s\n%s", tt.name, junit, report)
		}
	}
	dir := t.TempDir()
	var out, errs bytes.Buffer
	run([]string{"-list", "-tags", "@spce", "-report-dir", dir}, env(nil), &out, &errs)
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("-list wrote reports: %v", entries)
	}
}

// TestWithoutBaseURLTheFirstLineSaysHowToCheckMakeRun: a run without
// BASE_URL says on its first line that it checks an in-process reference
// server, and how to check the one make run started instead; a run
// against a deployment names it alone.
func TestWithoutBaseURLTheFirstLineSaysHowToCheckMakeRun(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"-tags", "@SVC-1", "-report-dir", t.TempDir()}, env(nil), &out, &errs); code != exitPassed {
		t.Fatalf("exit %d: %s%s", code, out.String(), errs.String())
	}
	first, _, _ := strings.Cut(out.String(), "\n")
	for _, want := range []string{"Checking an in-process reference server (run ", "BASE_URL=http://localhost:8080 make conformance", "-base-url http://localhost:8080"} {
		if !strings.Contains(first, want) {
			t.Errorf("the first line does not say %q: %q", want, first)
		}
	}

	ref := servertest.New(t, server.New(server.Options{Config: servertest.DemoConfig(t)}))
	out.Reset()
	if code := run([]string{"-tags", "@SVC-1", "-report-dir", t.TempDir()}, env(map[string]string{"BASE_URL": ref.URL}), &out, &errs); code != exitPassed {
		t.Fatalf("exit %d: %s%s", code, out.String(), errs.String())
	}
	if first, _, _ := strings.Cut(out.String(), "\n"); !regexp.MustCompile(`^Checking http://127\.0\.0\.1:\d+ \(run \w+\)$`).MatchString(first) {
		t.Errorf("against a deployment, the first line is %q", first)
	}
}

// TestWhatAFailingTargetSaidIsPrintedVisibly: the preflight's error
// quotes the answer of a failing target; a title change, an erased line,
// an 8-bit CSI and a right-to-left override in it reach stderr written
// out, never obeyed.
func TestWhatAFailingTargetSaidIsPrintedVisibly(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte("\x1b]0;pwned\x07 \x1b[2K\rall rules passed \x9b31m \u202eevil"))
	}))
	defer srv.Close()
	var out, errs bytes.Buffer
	run([]string{"-base-url", srv.URL, "-report-dir", t.TempDir()}, env(nil), &out, &errs)
	msg := errs.String()
	if !utf8.ValidString(msg) || regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u202a-\u202e]").MatchString(msg) {
		t.Errorf("stderr holds what a terminal acts on: %q", msg)
	}
	for _, shown := range []string{`\x1b]0;pwned\x07`, `\x1b[2K`, `\x9b31m`, `\u202eevil`} {
		if !strings.Contains(msg, shown) {
			t.Errorf("stderr does not show %s: %q", shown, msg)
		}
	}
}
