package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExploreExitsAsTheSuiteDoes: conformance explore passes (0) against
// the reference server, with its settings in the report, fails (1) against one whose creations fail when
// the body holds a quotation mark, with a replay file that -replay runs
// again (1), and refuses a budget it cannot read (2).
func TestExploreExitsAsTheSuiteDoes(t *testing.T) {
	rp, ref := proxyToReference(t)
	dir := t.TempDir()
	var out, errs bytes.Buffer
	code := run([]string{"explore", "-base-url", ref, "-report-dir", dir, "-seed", "3", "-max-actions", "80"}, env(nil), &out, &errs)
	if code != exitPassed || !strings.Contains(out.String(), "with seed 3:") {
		t.Fatalf("against the reference server: exit %d\n%s%s", code, out.String(), errs.String())
	}
	if b, err := os.ReadFile(filepath.Join(dir, "conformance.json")); err != nil || !strings.Contains(string(b), `"outcome": "passed"`) {
		t.Errorf("conformance.json: %v\n%.300s", err, b)
	} else if !regexp.MustCompile(`"name": "-seed",\s*"value": "3",\s*"from": "flag"`).Match(b) {
		t.Errorf("conformance.json does not show the seed the flag set:\n%s", b)
	}

	broken := refusing(t, rp, quotedCreation, http.StatusInternalServerError, "internal error")
	out.Reset()
	errs.Reset()
	code = run([]string{"explore", "-base-url", broken.URL, "-report-dir", dir, "-seed", "3", "-max-actions", "400"}, env(nil), &out, &errs)
	if code != exitFailed || !strings.Contains(errs.String(), "server error") {
		t.Fatalf("against a server that fails: exit %d, stderr %q\n%s", code, errs.String(), out.String())
	}
	replays, _ := filepath.Glob(filepath.Join(dir, "explore", "server-error-*.json"))
	if len(replays) == 0 {
		t.Fatalf("no replay file:\n%s", out.String())
	}
	out.Reset()
	code = run([]string{"explore", "-base-url", broken.URL, "-report-dir", t.TempDir(), "-replay", replays[0]}, env(nil), &out, &errs)
	if code != exitFailed {
		t.Fatalf("-replay %s: exit %d\n%s", replays[0], code, out.String())
	}

	for _, bad := range [][]string{{"-seed", "0"}, {"-max-actions", "many"}, {"-max-time", "-1s"}, {"-replay", filepath.Join(dir, "no-such.json")}} {
		errs.Reset()
		args := append([]string{"explore", "-base-url", ref, "-report-dir", t.TempDir()}, bad...)
		if code := run(args, env(nil), &out, &errs); code != exitUsage || errs.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", bad, code, errs.String())
		}
	}
}

// TestARepeatedFindingIsToldInFullOnce: of the findings of one kind, the
// exploration's summary tells the one it shrunk in full and each other
// in one line that points to it.
func TestARepeatedFindingIsToldInFullOnce(t *testing.T) {
	rp, _ := proxyToReference(t)
	broken := refusing(t, rp, quotedCreation, http.StatusInternalServerError, "internal error")
	var out, errs bytes.Buffer
	code := run([]string{"explore", "-base-url", broken.URL, "-report-dir", t.TempDir(), "-seed", "5", "-max-actions", "200"}, env(nil), &out, &errs)
	if code != exitFailed {
		t.Fatalf("exit %d, stderr %q\n%s", code, errs.String(), out.String())
	}
	_, failures, ok := strings.Cut(out.String(), "\nFailures:\n")
	if !ok {
		t.Fatalf("no failures told:\n%s", out.String())
	}
	failures, _, _ = strings.Cut(failures, "\nRules: ")
	entries := regexp.MustCompile(`(?m)^\d+\) `).Split(failures, -1)[1:]
	full, repeats := 0, 0
	for _, e := range entries {
		lines := strings.Split(strings.TrimSpace(e), "\n")
		if strings.Contains(lines[0], "another finding of server error") {
			repeats++
			if len(lines) != 1 || !regexp.MustCompile(`told in full in \d+\)`).MatchString(lines[0]) {
				t.Errorf("a repeated finding is told in %d lines, or does not point to the one told in full:\n%s", len(lines), e)
			}
			continue
		}
		full++
		if len(lines) < 4 {
			t.Errorf("the finding shrunk is not told in full:\n%s", e)
		}
	}
	if full != 1 || repeats == 0 {
		t.Errorf("%d findings in full, %d repeated; want 1 and some:\n%s", full, repeats, failures)
	}
}
