package browsertest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadReportsWhatAReaderWouldMeet: a page with a script that logs to
// the console, an element wider than a phone and an image elsewhere shows
// each of them.
func TestLoadReportsWhatAReaderWouldMeet(t *testing.T) {
	Chromium(t)
	file := filepath.Join(t.TempDir(), "page.html")
	page := `<!DOCTYPE html><title>t</title><p>Hello reader</p>
<div style="width: 2000px">wide</div>
<img src="http://127.0.0.1:1/elsewhere.png" alt="">
<script>console.log("noise")</script>`
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Load(t, "file://"+file, Options{OnlyItself: true, Screenshot: true})
	if !strings.Contains(p.Text, "Hello reader") {
		t.Errorf("text %q lacks the paragraph", p.Text)
	}
	if p.Scripts != 1 || p.Overflow <= 0 || len(p.Screenshot) == 0 {
		t.Errorf("scripts %d, overflow %d, screenshot %d bytes; want 1, above 0, some", p.Scripts, p.Overflow, len(p.Screenshot))
	}
	all := strings.Join(p.Problems, "\n")
	for _, want := range []string{"console.log", "a request for http://127.0.0.1:1/elsewhere.png"} {
		if !strings.Contains(all, want) {
			t.Errorf("the problems do not tell %q:\n%s", want, all)
		}
	}
}
