package suite

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"eventsvc/conformance/report"
	"eventsvc/internal/browsertest"
)

// TestTheHTMLReportInARealBrowser opens the conformance.html of a failing
// run, with long lines in its exchanges, from the file system in headless
// Chromium at phone width: no console message, no uncaught exception, no
// request but for the file itself, no script, nothing wider than the
// screen, and the failure open with its exchange.
func TestTheHTMLReportInARealBrowser(t *testing.T) {
	browsertest.Chromium(t)
	dir := t.TempDir()
	long := longValue
	_, out, err := runFake(t, Options{Tags: "@SVC-2 or @SVC-1 or @API-5", ReportDir: dir})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("Run = %v\n%s", err, out)
	}
	page := "file://" + filepath.Join(dir, report.HTMLReport)

	var open, first bool
	rendered := browsertest.Load(t, page, browsertest.Options{
		Ready:      "#SVC-2",
		OnlyItself: true,
		Actions: []chromedp.Action{
			chromedp.Evaluate(`document.querySelector("section.failure details").open`, &open),
			// The failures come before the rules.
			chromedp.Evaluate(`document.querySelector("#failures").compareDocumentPosition(document.querySelector("#rules")) === Node.DOCUMENT_POSITION_FOLLOWING`, &first),
		},
	})
	for _, p := range rendered.Problems {
		t.Errorf("the browser reports %s", p)
	}
	scripts, overflow, text := rendered.Scripts, rendered.Overflow, rendered.Text
	if scripts != 0 {
		t.Errorf("the report has %d scripts", scripts)
	}
	if overflow > 0 {
		t.Errorf("at phone width the report is %d pixels wider than the screen", overflow)
	}
	if !open {
		t.Error("the failure's exchange is not open")
	}
	if !first {
		t.Error("the failures do not come first")
	}
	for _, want := range []string{"Conformance of in-process", "SVC-2", "GET /api/events HTTP/1.1", long[:100], "Not run: the event list has one page", "Resource responses are HAL", "fails SVC-2"} {
		if !strings.Contains(text, want) {
			t.Errorf("the rendered report lacks %q", want)
		}
	}

	// The rule links lead to the project's catalogue saved beside the
	// report, which stands alone too.
	var link string
	catalogue := browsertest.Load(t, page, browsertest.Options{
		Ready: "#SVC-2",
		Actions: []chromedp.Action{
			chromedp.Evaluate(`document.querySelector("#SVC-2 a.catalogue").href`, &link),
		},
	})
	if want := "file://" + filepath.Join(dir, report.RulesPage) + "#SVC-2"; link != want {
		t.Fatalf("the catalogue link of SVC-2 is %q, want %q", link, want)
	}
	var heading string
	rules := browsertest.Load(t, link, browsertest.Options{
		Ready:      "#SVC-2",
		OnlyItself: true,
		Actions: []chromedp.Action{
			chromedp.Evaluate(`document.getElementById("SVC-2").textContent`, &heading),
		},
	})
	for _, p := range append(catalogue.Problems, rules.Problems...) {
		t.Errorf("the browser reports %s", p)
	}
	if !strings.Contains(heading, "SVC-2") {
		t.Errorf("the catalogue's SVC-2 reads %q", heading)
	}
}
