package reporttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"eventsvc/conformance/report"
)

// Foreign fails t unless the reports of dir (conformance.json,
// conformance.html and junit.xml) name origin as one the run sent
// requests to without credentials, and returns its entry of
// conformance.json.
func Foreign(t testing.TB, dir, origin string) report.DocumentForeign {
	t.Helper()
	doc := Read(t, dir)
	var found *report.DocumentForeign
	for i, f := range doc.ForeignOrigins {
		if f.Origin == origin {
			found = &doc.ForeignOrigins[i]
		}
	}
	if found == nil {
		t.Errorf("conformance.json does not name %s among the foreign origins: %+v", origin, doc.ForeignOrigins)
		found = &report.DocumentForeign{}
	}
	for _, name := range []string{report.HTMLReport, report.JUnitReport} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), origin+": ") {
			t.Errorf("%s does not name %s", name, origin)
		}
	}
	return *found
}

// NoCredentialsTo fails t when a reproduction script of dir sends an
// Authorization header or a cookie to origin, or to an address a
// creation's Location gave (the tests' targets give addresses at origin
// there), and returns how many requests the scripts send there.
func NoCredentialsTo(t testing.TB, dir, origin string) int {
	t.Helper()
	scripts, err := filepath.Glob(filepath.Join(dir, report.ReproDir, "*.sh"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, path := range scripts {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(line, "out=$(curl ") || !strings.Contains(line, `"${LOCATION_`) && !strings.Contains(line, `"`+origin) {
				continue
			}
			n++
			if strings.Contains(line, "Authorization") || strings.Contains(line, "Cookie") || strings.Contains(line, " -b ") {
				t.Errorf("%s sends credentials to %s:\n%s", filepath.Base(path), origin, line)
			}
		}
	}
	return n
}
