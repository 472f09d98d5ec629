package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xeipuuv/gojsonschema"

	"eventsvc/conformance/report"
)

// TestTheReportsShowWhatTheUserSet: conformance.json and the HTML
// report list every flag of the command with the value in effect and
// where it came from (a flag, a variable or the default), and the
// variables no flag stands for; a secret reads "(set)" and is nowhere
// in the reports. The report follows its schema.
func TestTheReportsShowWhatTheUserSet(t *testing.T) {
	dir := t.TempDir()
	const password = "Settings-Secret-Pw-91"
	vars := map[string]string{"CONFORMANCE_RETRIES": "1", "CONFORMANCE_PASSWORD": password, "CONFORMANCE_USERNAME": "settings@example.com"}
	var out, errs bytes.Buffer
	code := run([]string{"-run", "tokens.feature:13", "-concurrency", "2", "-report-dir", dir}, env(vars), &out, &errs)
	if code != exitPassed {
		t.Fatalf("exit %d: %s%s", code, out.String(), errs.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, report.JSONReport))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(report.ReportSchema), gojsonschema.NewBytesLoader(b)); err != nil || !res.Valid() {
		t.Errorf("conformance.json does not follow its schema: %v %v", err, res.Errors())
	}
	var doc report.Document
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	want := []report.Setting{
		{Name: "-concurrency", Value: "2", From: report.FromFlag},
		{Name: "-retries", Value: "1", From: "$CONFORMANCE_RETRIES"},
		{Name: "-timeout", Value: "30s", From: report.FromDefault},
		{Name: "-read-only", Value: "off", From: report.FromDefault},
		{Name: "-run", Value: "tokens.feature:13", From: report.FromFlag},
		{Name: "CONFORMANCE_USERNAME", Value: "settings@example.com", From: "$CONFORMANCE_USERNAME"},
		{Name: "CONFORMANCE_PASSWORD", Value: "(set)", From: "$CONFORMANCE_PASSWORD"},
	}
	for _, w := range want {
		found := false
		for _, s := range doc.Settings {
			found = found || s == w
		}
		if !found {
			t.Errorf("conformance.json lacks the setting %+v; it has %+v", w, doc.Settings)
		}
	}
	page, err := os.ReadFile(filepath.Join(dir, report.HTMLReport))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "<code>-concurrency</code></td><td><code>2</code></td><td>flag</td>") {
		t.Errorf("the HTML report does not show -concurrency 2 from a flag")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		if b, _ := os.ReadFile(f); bytes.Contains(b, []byte(password)) {
			t.Errorf("%s holds the password", filepath.Base(f))
		}
	}
}
