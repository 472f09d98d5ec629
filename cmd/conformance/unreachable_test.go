package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"eventsvc/conformance/report/reporttest"
	"eventsvc/server"
	"eventsvc/server/servertest"
)

// TestATargetThatDiesMidRunExits4: a reference server whose connections
// reset after its first answers, as a killed one's do, ends the run with
// exit status 4 and reports that say so.
func TestATargetThatDiesMidRunExits4(t *testing.T) {
	rp, _ := proxyToReference(t)
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 30 {
			rp.ServeHTTP(w, r)
			return
		}
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	var out, errs bytes.Buffer
	code := run([]string{"-base-url", srv.URL, "-report-dir", dir, "-read-only"}, env(nil), &out, &errs)
	if code != exitUnreachable || !strings.Contains(errs.String(), "the target stopped answering") {
		t.Fatalf("exit %d, stderr %q\n%s", code, errs.String(), out.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "conformance.json"))
	if err != nil || !strings.Contains(string(b), `"outcome": "unreachable"`) {
		t.Errorf("conformance.json of a run whose target died: %v\n%.500s", err, b)
	}
}

// TestABaselineErrorComesFirst: a baseline that names an unknown rule is
// what the run says first, even when the report folder does not exist yet
// (it is made, and its reports say the run did not start).
func TestABaselineErrorComesFirst(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "there", "yet")
	bl := filepath.Join(t.TempDir(), "expected.json")
	os.WriteFile(bl, []byte(`{"expectedFailures": [{"rule": "NOPE-1", "reason": "TICKET-1"}]}`), 0o600)
	var out, errs bytes.Buffer
	code := run([]string{"-base-url", "http://127.0.0.1:9", "-report-dir", dir, "-expected-failures", bl}, env(nil), &out, &errs)
	first, _, _ := strings.Cut(errs.String(), "\n")
	if code != exitUsage || !strings.Contains(first, "NOPE-1") {
		t.Fatalf("exit %d; the first line of stderr is %q, want the baseline's error\n%s", code, first, errs.String())
	}
	if b, err := os.ReadFile(filepath.Join(dir, "conformance.json")); err != nil || !strings.Contains(string(b), "NOPE-1") {
		t.Errorf("the reports do not say why the run did not start: %v", err)
	}
}

// TestFailOnNotRunFailsAReadOnlyRunThatLeftSpecRulesUnchecked: a
// read-only run leaves the rules only writes can check not checked; it
// passes, but says so first in its summary; with -fail-on-not-run it
// fails, naming them.
func TestFailOnNotRunFailsAReadOnlyRunThatLeftSpecRulesUnchecked(t *testing.T) {
	ref := servertest.New(t, server.New(server.Options{Config: servertest.DemoConfig(t)}))
	for _, failOn := range []bool{false, true} {
		args := []string{"-base-url", ref.URL, "-report-dir", t.TempDir(), "-read-only", "-tags", "@API-9 or @API-7"}
		if failOn {
			args = append(args, "-fail-on-not-run")
		}
		var out, errs bytes.Buffer
		code := run(args, env(nil), &out, &errs)
		text := out.String()
		if i := strings.Index(text, "\nNOT CHECKED: "); i < 0 || i > strings.Index(text, "\nRules: ") || !strings.Contains(text[i:], "API-9") {
			t.Errorf("fail-on-not-run %v: the summary does not begin by saying what was not checked:\n%s", failOn, out.String())
		}
		want := map[bool]int{false: exitPassed, true: exitFailed}[failOn]
		if code != want || failOn && (!strings.Contains(errs.String(), "of the specification not checked: ") || !strings.Contains(errs.String(), "API-9")) {
			t.Errorf("fail-on-not-run %v: exit %d, want %d; stderr %q", failOn, code, want, errs.String())
		}
	}
}

// TestOneScenarioAndTheLastFailuresRunAgain: -run runs the scenarios it
// names by file:line; -rerun-failed those an earlier run's
// conformance.json says failed; a place that names nothing stops the run.
func TestOneScenarioAndTheLastFailuresRunAgain(t *testing.T) {
	ref := servertest.New(t, server.New(server.Options{Config: servertest.DemoConfig(t)}))
	dir := t.TempDir()
	var out, errs bytes.Buffer
	code := run([]string{"-base-url", ref.URL, "-report-dir", dir, "-run", "reading.feature:15,tokens.feature:13"}, env(nil), &out, &errs)
	scenarioLines := func(text string) int { return len(regexp.MustCompile(`(?m)^PASSED   `).FindAllString(text, -1)) }
	if code != exitPassed || scenarioLines(out.String()) != 2 {
		t.Fatalf("-run of two scenarios: exit %d\n%s%s", code, out.String(), errs.String())
	}
	// A report that says one scenario failed.
	report := filepath.Join(t.TempDir(), "conformance.json")
	os.WriteFile(report, []byte(`{"scenarios": [{"place": "tokens.feature:13", "verdict": "failed"}, {"place": "reading.feature:15", "verdict": "passed"}]}`), 0o600)
	out.Reset()
	code = run([]string{"-base-url", ref.URL, "-report-dir", dir, "-rerun-failed", report}, env(nil), &out, &errs)
	if code != exitPassed || scenarioLines(out.String()) != 1 || !strings.Contains(out.String(), "tokens.feature:13") {
		t.Fatalf("-rerun-failed: exit %d\n%s%s", code, out.String(), errs.String())
	}
	errs.Reset()
	if code := run([]string{"-base-url", ref.URL, "-report-dir", dir, "-run", "reading.feature:1"}, env(nil), &out, &errs); code != exitUsage || !strings.Contains(errs.String(), "names no scenario") {
		t.Fatalf("-run of a place with no scenario: exit %d, %q", code, errs.String())
	}
}

// TestAStoppedTargetsPageCountsTheScenariosThatRan: the page of a run
// whose target stopped answering midway (exit 4), or throttled it (exit
// 3), counts at its top the scenarios that passed, failed and were not
// run, as conformance.json tells them.
func TestAStoppedTargetsPageCountsTheScenariosThatRan(t *testing.T) {
	rp, _ := proxyToReference(t)
	for _, throttled := range []bool{false, true} {
		var n atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case n.Add(1) <= 60:
				rp.ServeHTTP(w, r)
			case throttled:
				w.Header().Set("Retry-After", "120")
				w.WriteHeader(http.StatusTooManyRequests)
			default:
				if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
					conn.Close()
				}
			}
		}))
		dir := t.TempDir()
		var out, errs bytes.Buffer
		code := run([]string{"-base-url", srv.URL, "-report-dir", dir, "-read-only"}, env(nil), &out, &errs)
		srv.Close()
		if want := map[bool]int{false: exitUnreachable, true: exitThrottled}[throttled]; code != want {
			t.Fatalf("throttled %v: exit %d, want %d: %s", throttled, code, want, errs.String())
		}
		doc := reporttest.Read(t, dir)
		selected, counts := 0, map[string]int{}
		for _, s := range doc.Scenarios {
			if s.Attempts > 0 {
				selected++
				counts[s.Verdict]++
			}
		}
		if counts["passed"] == 0 || counts["not run"] == 0 {
			t.Fatalf("throttled %v: the target did not stop midway: %v", throttled, counts)
		}
		page, err := os.ReadFile(filepath.Join(dir, "conformance.html"))
		if err != nil {
			t.Fatal(err)
		}
		header, _, _ := strings.Cut(string(page), "</header>")
		want := fmt.Sprintf("<dt>Scenarios</dt><dd>%d selected: %d passed, %d failed, %d not run (", selected, counts["passed"], counts["failed"], counts["not run"])
		if !strings.Contains(header, want) {
			t.Errorf("throttled %v: the page's header does not count the scenarios as conformance.json does (%s):\n%s", throttled, want, header)
		}
	}
}
