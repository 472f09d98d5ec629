package steps

import (
	"go/build"
	"strings"
	"testing"
)

// TestStepsImportNothingFromTheServer: the steps drive a target over HTTP
// only, so that no scenario can check a value the steps made with the
// server's own code. The in-process launcher, which needs the server, lives
// on the runner's side (package suite).
func TestStepsImportNothingFromTheServer(t *testing.T) {
	seen := map[string]bool{}
	var walk func(path, dir string, via []string)
	walk = func(path, dir string, via []string) {
		if seen[path] || !strings.HasPrefix(path, "eventsvc") {
			return
		}
		seen[path] = true
		if strings.HasPrefix(path, "eventsvc/server") {
			t.Errorf("steps imports %s (through %s)", path, strings.Join(via, " → "))
			return
		}
		pkg, err := build.Import(path, dir, 0)
		if err != nil {
			t.Fatalf("import %s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			walk(imp, pkg.Dir, append(via, path))
		}
	}
	walk("eventsvc/steps", ".", nil)
	if !seen["eventsvc/internal/redact"] {
		t.Fatal("the walk did not reach eventsvc/redact, which steps imports: it reads nothing")
	}
}
