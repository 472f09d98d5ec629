package features

import (
	"io/fs"
	"strings"
	"testing"
)

// maxLines is the most lines a feature file holds: a reviewer reads the
// features as the specification, one area to a file, and a file that grows
// past it is split by area.
const maxLines = 200

// TestNoFeatureFilePasses200Lines: no feature file the suite carries (FS)
// passes maxLines.
func TestNoFeatureFilePasses200Lines(t *testing.T) {
	files, err := fs.Glob(FS, "*.feature")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no feature file in FS: the test reads nothing")
	}
	for _, name := range files {
		b, err := fs.ReadFile(FS, name)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		n := strings.Count(text, "\n")
		if text != "" && !strings.HasSuffix(text, "\n") {
			n++
		}
		if n > maxLines {
			t.Errorf("features/%s has %d lines, more than %d: split it by area", name, n, maxLines)
		}
	}
}
