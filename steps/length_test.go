package steps

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxLines is the most lines a file of the steps holds: a file that grows
// past it holds more than one concern, and is split by concern.
const maxLines = 350

// TestNoStepFilePasses350Lines: the steps keep phrasing and arranging, not
// rule logic (the run's audit holds that), so that each file of them reads
// at once; none passes maxLines.
func TestNoStepFilePasses350Lines(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no Go file in steps/: the test reads nothing")
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if n := lineCount(string(b)); n > maxLines {
			t.Errorf("steps/%s has %d lines, more than %d: split it by concern", name, n, maxLines)
		}
	}
}

// lineCount counts the lines of text as wc -l does, and a last line
// without its newline too.
func lineCount(text string) int {
	n := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}
