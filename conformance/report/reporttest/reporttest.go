// Package reporttest checks the reports a run writes, for the tests of
// the runners that write them.
package reporttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xeipuuv/gojsonschema"

	"eventsvc/conformance/report"
)

// Check validates the conformance.json of dir against
// conformance.schema.json (CheckJSON), and checks that its
// conformance.html is one self-contained page (CheckHTML).
func Check(t testing.TB, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, report.JSONReport))
	if err != nil {
		t.Fatal(err)
	}
	CheckJSON(t, b)
	page, err := os.ReadFile(filepath.Join(dir, report.HTMLReport))
	if err != nil {
		t.Fatal(err)
	}
	CheckHTML(t, string(page))
}

// Read checks the reports of dir (Check) and returns what its
// conformance.json says.
func Read(t testing.TB, dir string) report.Document {
	t.Helper()
	Check(t, dir)
	b, err := os.ReadFile(filepath.Join(dir, report.JSONReport))
	if err != nil {
		t.Fatal(err)
	}
	var doc report.Document
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// CheckJSON fails t when doc does not follow conformance.schema.json.
func CheckJSON(t testing.TB, doc []byte) {
	t.Helper()
	res, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(report.ReportSchema), gojsonschema.NewBytesLoader(doc))
	if err != nil {
		t.Fatalf("validate conformance.json: %v", err)
	}
	for _, e := range res.Errors() {
		t.Errorf("conformance.json does not follow its schema: %s", e)
	}
}

// CheckHTML fails t when page holds a script or loads anything from
// elsewhere.
func CheckHTML(t testing.TB, page string) {
	t.Helper()
	lower := strings.ToLower(page)
	for _, banned := range []string{"<script", " src=", "<link", "@import", "url("} {
		if strings.Contains(lower, banned) {
			t.Errorf("conformance.html holds %q: it must be self-contained, without script", banned)
		}
	}
}
