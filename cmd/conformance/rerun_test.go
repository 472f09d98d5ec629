package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"eventsvc/conformance/report"
)

// TestRerunFailedKeepsTheReportItReadsUntilTheRunHasRun: -rerun-failed
// with the report folder's own conformance.json leaves that file as it is
// while the run goes on (the target reads it at every request, as anyone
// might after stopping the run), while the other reports say the run has
// not finished; the run's reports replace it at its end. A run that cannot
// start leaves it too, to be read again.
func TestRerunFailedKeepsTheReportItReadsUntilTheRunHasRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "reports")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	earlier := `{"outcome": "failed", "scenarios": [{"place": "tokens.feature:13", "verdict": "failed"}, {"place": "reading.feature:15", "verdict": "passed"}]}`
	path := filepath.Join(dir, report.JSONReport)
	if err := os.WriteFile(path, []byte(earlier), 0o644); err != nil {
		t.Fatal(err)
	}

	rp, _ := proxyToReference(t)
	var mu sync.Mutex
	var seen []string // what was wrong with the reports while the run went on
	requests := 0
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		if failed, err := report.FailedScenarios(path); err != nil || len(failed) != 1 || failed[0] != "tokens.feature:13" {
			seen = append(seen, "conformance.json, read at "+r.Method+" "+r.URL.Path+", no longer lists the failed scenario")
		}
		if junit, _ := os.ReadFile(filepath.Join(dir, report.JUnitReport)); !strings.Contains(string(junit), "did not finish") {
			seen = append(seen, "junit.xml does not say that the run has not finished")
		}
		mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	defer target.Close()

	// The same file, named another way.
	rerun := dir + "/../reports/./" + report.JSONReport
	var out, errs bytes.Buffer
	code := run([]string{"-base-url", target.URL, "-report-dir", dir, "-rerun-failed", rerun}, env(nil), &out, &errs)
	if code != exitPassed {
		t.Fatalf("exit %d: %s%s", code, out.String(), errs.String())
	}
	mu.Lock()
	if requests == 0 || len(seen) > 0 {
		t.Errorf("%d requests; while the run went on:\n%s", requests, strings.Join(seen, "\n"))
	}
	mu.Unlock()
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), `"outcome": "passed"`) || !strings.Contains(string(b), `"place": "tokens.feature:13"`) {
		t.Errorf("the run's own conformance.json did not replace the earlier one at its end:\n%.400s", b)
	}

	// A run that cannot start leaves it too.
	if err := os.WriteFile(path, []byte(earlier), 0o644); err != nil {
		t.Fatal(err)
	}
	errs.Reset()
	code = run([]string{"-base-url", target.URL, "-report-dir", dir, "-rerun-failed", path, "-format", "html"}, env(nil), &out, &errs)
	if b, _ := os.ReadFile(path); code != exitUsage || string(b) != earlier {
		t.Errorf("a run that could not start (exit %d, %q) replaced the report it reads:\n%.400s", code, errs.String(), b)
	}
	if junit, _ := os.ReadFile(filepath.Join(dir, report.JUnitReport)); !strings.Contains(string(junit), "the run could not start") {
		t.Errorf("the other reports do not say that the run could not start:\n%.400s", junit)
	}
}
