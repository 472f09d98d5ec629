package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xeipuuv/gojsonschema"
)

// checkReports validates the conformance.json of dir against
// conformance.schema.json, and checks that conformance.html is one
// self-contained page: no script, nothing loaded from elsewhere. Every test
// that writes reports calls it.
func checkReports(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, JSONReport))
	if err != nil {
		t.Fatal(err)
	}
	checkJSONReport(t, b)
	page, err := os.ReadFile(filepath.Join(dir, HTMLReport))
	if err != nil {
		t.Fatal(err)
	}
	checkHTMLReport(t, string(page))
}

func checkJSONReport(t *testing.T, report []byte) {
	t.Helper()
	res, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(ReportSchema), gojsonschema.NewBytesLoader(report))
	if err != nil {
		t.Fatalf("validate conformance.json: %v", err)
	}
	for _, e := range res.Errors() {
		t.Errorf("conformance.json does not follow its schema: %s", e)
	}
}

func checkHTMLReport(t *testing.T, page string) {
	t.Helper()
	lower := strings.ToLower(page)
	for _, banned := range []string{"<script", " src=", "<link", "@import", "url("} {
		if strings.Contains(lower, banned) {
			t.Errorf("conformance.html holds %q: it must be self-contained, without script", banned)
		}
	}
}

func TestTheSchemaRefusesAReportThatDoesNotFollowIt(t *testing.T) {
	bad := `{"schemaVersion": 2, "outcome": "green"}`
	res, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(ReportSchema), gojsonschema.NewStringLoader(bad))
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid() {
		t.Fatal("the schema accepts a report without its fields and with an unknown outcome")
	}
}
