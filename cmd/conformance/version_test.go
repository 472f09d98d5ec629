package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"eventsvc/internal/version"
)

// TestVersionFlagPrintsTheVersionAndRunsNothing: -version, of the suite
// and of explore, prints the version, revision and date, reads no
// variable (a bad one does not stop it) and writes no report.
func TestVersionFlagPrintsTheVersionAndRunsNothing(t *testing.T) {
	for _, args := range [][]string{{"-version"}, {"explore", "-version"}} {
		dir := t.TempDir()
		var out, errs bytes.Buffer
		vars := env(map[string]string{"CONFORMANCE_CLIENT_ID": "", "CONFORMANCE_REPORT_DIR": dir})
		if code := run(args, vars, &out, &errs); code != exitPassed {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errs.String())
		}
		if got, want := out.String(), version.Get().Text("conformance"); got != want {
			t.Errorf("%v printed %q, want %q", args, got, want)
		}
		if errs.Len() > 0 {
			t.Errorf("%v wrote on the error output: %q", args, errs.String())
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Errorf("%v wrote in the report folder: %v", args, entries)
		}
		if _, err := os.Stat(filepath.Join("reports")); err == nil {
			t.Errorf("%v wrote reports/ in the working folder", args)
		}
	}
}
