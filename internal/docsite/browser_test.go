package docsite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"eventsvc/internal/browsertest"
)

// TestThePageInARealBrowser loads the served page in headless Chromium at
// phone width, through the DevTools protocol: no console message, no
// uncaught exception, no failed load (the browser's log), the rules and the
// examples rendered, no script (so it reads the same without JavaScript),
// nothing wider than the screen, and a screenshot in reports/.
func TestThePageInARealBrowser(t *testing.T) {
	browsertest.Chromium(t)
	page := browsertest.Load(t, startServer(t)+"/docs/index.html", browsertest.Options{Ready: "#rules", Screenshot: true})
	for _, p := range page.Problems {
		t.Errorf("the browser reports %s", p)
	}
	scripts, overflow, text, shot := page.Scripts, page.Overflow, page.Text, page.Screenshot
	if scripts != 0 {
		t.Errorf("the page has %d scripts; it must work without JavaScript", scripts)
	}
	if overflow > 0 {
		t.Errorf("at phone width the page is %d pixels wider than the screen", overflow)
	}
	for _, want := range []string{"AUTH-6", "Another user may not update the event", "<ACCESS_TOKEN>", "The rules, and the scenarios that check them"} {
		if !strings.Contains(text, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	reports := filepath.Join("..", "..", "reports")
	if err := os.MkdirAll(reports, 0o755); err != nil {
		t.Fatal(err)
	}
	if len(shot) < 10_000 {
		t.Fatalf("no real screenshot (%d bytes)", len(shot))
	}
	out := filepath.Join(reports, "docs-phone.png")
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", out, len(shot))
}
