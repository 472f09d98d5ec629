package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"eventsvc/conformance/report"
	"eventsvc/conformance/report/reporttest"
	"eventsvc/server"
	"eventsvc/server/servertest"
)

// verdictLine matches a line of the console that gives a verdict.
var verdictLine = regexp.MustCompile(`PASSED|FAILED|NOT RUN|NOT CHECKED|FLAKY`)

// TestARemoteRunSaysFirstTheSpecRulesItDidNotCheck: the default selection
// against a reference server passes, but its first verdict line, its
// closing line and every report say first that the token lifetimes (and
// the reference server's configuration rules) were not checked, and what
// checks them; it exits 0, and 1 with -fail-on-not-run.
func TestARemoteRunSaysFirstTheSpecRulesItDidNotCheck(t *testing.T) {
	const lifetimes = "LIM-1, LIM-2, CLI-5, CLI-6 — token lifetimes need -slow (about 1 h) or -control-url"
	const local = "ACC-2, ACC-3, ACC-4, CLI-2, CLI-7 — the reference server's configuration rules"
	ref := servertest.New(t, server.New(server.Options{Config: servertest.DemoConfig(t)}))
	for _, failOn := range []bool{false, true} {
		dir := t.TempDir()
		args := []string{"-base-url", ref.URL, "-report-dir", dir, "-concurrency", "4"}
		if failOn {
			args = append(args, "-fail-on-not-run")
		}
		var out, errs bytes.Buffer
		code := run(args, env(nil), &out, &errs)
		if want := map[bool]int{false: exitPassed, true: exitFailed}[failOn]; code != want {
			t.Fatalf("-fail-on-not-run %v: exit %d, want %d\n%s%s", failOn, code, want, out.String(), errs.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		var first, closing string
		for i, l := range lines {
			if first == "" && verdictLine.MatchString(l) {
				first = l
			}
			if strings.HasPrefix(l, "Reports: ") && i > 0 {
				closing = lines[i-1]
			}
		}
		if !strings.Contains(first, "9 spec rules NOT CHECKED") || !strings.Contains(first, lifetimes) || !strings.Contains(first, local) {
			t.Errorf("-fail-on-not-run %v: the first verdict line is %q, want the rules not checked:\n%s", failOn, first, out.String())
		}
		wantClosing := "PASSED, but 9 spec rules NOT CHECKED: " + lifetimes + "; " + local
		if failOn {
			wantClosing = "FAILED: "
		}
		if !strings.HasPrefix(closing, wantClosing) || !strings.Contains(closing, lifetimes) {
			t.Errorf("-fail-on-not-run %v: the closing line is %q, want it to begin %q and name the lifetimes", failOn, closing, wantClosing)
		}
		if failOn && (!strings.Contains(errs.String(), "4 rules of the specification not checked: LIM-1, LIM-2, CLI-5, CLI-6 (-fail-on-not-run)")) {
			t.Errorf("-fail-on-not-run: stderr %q does not name the lifetimes", errs.String())
		}

		doc := reporttest.Read(t, dir)
		if !strings.Contains(doc.Headline, lifetimes) || len(doc.NotChecked) != 2 || doc.NotChecked[0].Why != report.WhyLifetimes || doc.NotChecked[1].Why != report.WhyLocal {
			t.Errorf("-fail-on-not-run %v: conformance.json: headline %q, notChecked %+v", failOn, doc.Headline, doc.NotChecked)
		}
		page, err := os.ReadFile(filepath.Join(dir, report.HTMLReport))
		if err != nil {
			t.Fatal(err)
		}
		top, _, _ := strings.Cut(string(page), `<dl class="run">`)
		if !strings.Contains(top, "9 rules of the specification NOT CHECKED") || !strings.Contains(top, html.EscapeString("token lifetimes need -slow (about 1 h) or -control-url")) {
			t.Errorf("-fail-on-not-run %v: the top of conformance.html does not say what was not checked:\n%s", failOn, top)
		}
		var junit struct {
			Suites []struct {
				Name  string `xml:"name,attr"`
				Cases []struct {
					Name string `xml:"name,attr"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		b, err := os.ReadFile(filepath.Join(dir, report.JUnitReport))
		if err != nil {
			t.Fatal(err)
		}
		if err := xml.Unmarshal(b, &junit); err != nil || len(junit.Suites) == 0 || junit.Suites[0].Name != "NOT CHECKED: 9 rules of the specification" ||
			!strings.HasPrefix(junit.Suites[0].Cases[0].Name, lifetimes) {
			t.Errorf("-fail-on-not-run %v: junit.xml does not begin with the rules not checked (%v): %.600s", failOn, err, b)
		}
		var cucumber []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		}
		b, err = os.ReadFile(filepath.Join(dir, report.CucumberReport))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &cucumber); err != nil || len(cucumber) == 0 || cucumber[0].Name != "NOT CHECKED: 9 rules of the specification" ||
			!strings.Contains(cucumber[0].Description, lifetimes) {
			t.Errorf("-fail-on-not-run %v: cucumber.json does not begin with the rules not checked (%v): %.600s", failOn, err, b)
		}
	}
}

// TestSlowAddsTheLifetimesToTheSelection: -slow, or CONFORMANCE_SLOW=1,
// selects the @slow scenarios of token validity beside the default
// selection against a deployment; -list shows them.
func TestSlowAddsTheLifetimesToTheSelection(t *testing.T) {
	for name, args := range map[string][]string{
		"-slow":              {"-list", "-base-url", "https://staging.example", "-slow"},
		"CONFORMANCE_SLOW=1": {"-list", "-base-url", "https://staging.example"},
	} {
		vars := map[string]string{}
		if name == "CONFORMANCE_SLOW=1" {
			vars["CONFORMANCE_SLOW"] = "1"
		}
		var out, errs bytes.Buffer
		if code := run(args, env(vars), &out, &errs); code != exitPassed {
			t.Fatalf("%s: exit %d: %s", name, code, errs.String())
		}
		for _, want := range []string{"LIM-2", "A refresh half-way does not extend the refresh token's life", "CLI-5", `scenarios selected by "@spec && ~@local"`} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%s: the list lacks %q:\n%s", name, want, out.String())
			}
		}
	}
}
