package suite

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"eventsvc/conformance/othersvc"
	"eventsvc/conformance/report"
	"eventsvc/conformance/report/reporttest"
	"eventsvc/conformance/target"
)

// TestEveryReportBlamesTheSameRule runs the scenario of the token answer
// against a target whose token_type is "mac", and reads each report: the
// console, conformance.json, conformance.html, junit.xml and cucumber.json
// all fail TOK-5 alone and leave the scenario's other rules not checked.
func TestEveryReportBlamesTheSameRule(t *testing.T) {
	srv := othersvc.Start(t, othersvc.Config{Flaws: othersvc.Flaws{TokenTypeMAC: true}})
	dir := t.TempDir()
	var out bytes.Buffer
	rep, err := Run(Options{
		Target:    target.Target{BaseURL: srv.URL, Credentials: othersvc.Creds, RunID: "agree", EventBody: []byte(othersvc.EventBody)},
		Tags:      "@TOK-5",
		ReportDir: dir,
		Output:    &out,
	})
	if err == nil {
		t.Fatalf("the run passed\n%s", out.String())
	}
	const blame = "fails TOK-5; not checked: "
	if !strings.Contains(out.String(), blame) {
		t.Errorf("the console does not say %q:\n%s", blame, out.String())
	}
	for _, r := range rep.Rules {
		if r.Verdict == report.Failed && r.ID != "TOK-5" {
			t.Errorf("the run fails %s", r.ID)
		}
	}

	doc := reporttest.Read(t, dir)
	failed := 0
	for _, s := range doc.Scenarios {
		if s.Verdict == report.Failed {
			failed++
			if !slices.Equal(s.Blamed, []string{"TOK-5"}) || s.Failure == nil || !slices.Equal(s.Failure.Rules, []string{"TOK-5"}) {
				t.Errorf("conformance.json blames %v (failure %+v)", s.Blamed, s.Failure)
			}
		}
	}
	for _, r := range doc.Rules {
		if (r.Verdict == report.Failed) != (r.ID == "TOK-5") {
			t.Errorf("conformance.json: %s %s", r.ID, r.Verdict)
		}
	}
	if failed != 1 {
		t.Errorf("conformance.json has %d failed scenarios, want 1", failed)
	}

	if page := readHTML(t, dir); strings.Count(page, blame) != 1 {
		t.Errorf("conformance.html says %q %d times, want once", blame, strings.Count(page, blame))
	}

	junit := readJUnit(t, dir)
	failures := 0
	for _, s := range junit.Suites {
		for _, c := range s.Cases {
			if c.Failure == nil {
				continue
			}
			failures++
			if !strings.HasPrefix(c.Failure.Message, blame) {
				t.Errorf("junit.xml failure message %q", c.Failure.Message)
			}
			var blamed []string
			for _, p := range c.Props {
				if p.Name == "failed rule" {
					blamed = append(blamed, p.Value)
				}
			}
			if !slices.Equal(blamed, []string{"TOK-5"}) {
				t.Errorf("junit.xml failed rules %v", blamed)
			}
		}
	}
	if failures != 1 {
		t.Errorf("junit.xml has %d failures, want 1", failures)
	}

	var cucumber []struct {
		Elements []struct {
			Steps []struct {
				Result struct {
					Status string `json:"status"`
					Error  string `json:"error_message"`
				} `json:"result"`
			} `json:"steps"`
		} `json:"elements"`
	}
	readFile(t, filepath.Join(dir, report.CucumberReport), func(b []byte) error { return json.Unmarshal(b, &cucumber) })
	var errs []string
	for _, f := range cucumber {
		for _, el := range f.Elements {
			for _, st := range el.Steps {
				if st.Result.Status == "failed" {
					errs = append(errs, st.Result.Error)
				}
			}
		}
	}
	if len(errs) != 1 || !strings.HasPrefix(errs[0], blame) {
		t.Errorf("cucumber.json's failed steps say %q, want one starting %q", errs, blame)
	}
}

// readFile reads a file and decodes it with decode, failing t on either.
func readFile(t *testing.T, path string, decode func([]byte) error) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := decode(b); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
