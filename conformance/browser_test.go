package conformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromium finds the browser. In CI, where .ci/run installs it, a missing
// browser fails the test; elsewhere it skips it, saying how to get one.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no Chromium: .ci/run installs Debian's chromium package for this check")
	}
	t.Skip("no Chromium on this machine (apt-get install chromium): the browser check runs in CI")
	return ""
}

// TestTheHTMLReportInARealBrowser opens the conformance.html of a failing
// run, with long lines in its exchanges, from the file system in headless
// Chromium at phone width: no console message, no uncaught exception, no
// request but for the file itself, no script, nothing wider than the
// screen, and the failure open with its exchange.
func TestTheHTMLReportInARealBrowser(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	long := longValue
	_, out, err := runFake(t, Options{Tags: "@SVC-2 or @SVC-1 or @API-5", ReportDir: dir})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("Run = %v\n%s", err, out)
	}
	page := "file://" + filepath.Join(dir, HTMLReport)

	profile, err := os.MkdirTemp("", "report-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for range 50 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	defer cancelTimeout()

	var mu sync.Mutex
	var problems []string
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			problems = append(problems, fmt.Sprintf("console.%s", e.Type))
		case *runtime.EventExceptionThrown:
			problems = append(problems, "uncaught: "+e.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.LevelError || e.Entry.Level == cdplog.LevelWarning {
				problems = append(problems, fmt.Sprintf("%s %s: %s (%s)", e.Entry.Level, e.Entry.Source, e.Entry.Text, e.Entry.URL))
			}
		case *network.EventRequestWillBeSent:
			if e.Request.URL != page {
				problems = append(problems, "a request for "+e.Request.URL)
			}
		}
	})
	var text string
	var scripts, overflow int
	var open bool
	err = chromedp.Run(ctx,
		cdplog.Enable(), runtime.Enable(), network.Enable(),
		emulation.SetDeviceMetricsOverride(390, 844, 2, true),
		chromedp.Navigate(page),
		chromedp.WaitReady("#SVC-2"),
		chromedp.Evaluate(`document.querySelectorAll("script").length`, &scripts),
		chromedp.Evaluate(`document.documentElement.scrollWidth - window.innerWidth`, &overflow),
		chromedp.Evaluate(`document.querySelector("#SVC-2 details").open`, &open),
		chromedp.Evaluate(`document.body.innerText`, &text),
	)
	if err != nil {
		t.Fatalf("the browser: %v", err)
	}
	time.Sleep(200 * time.Millisecond) // let the last events arrive
	mu.Lock()
	for _, p := range problems {
		t.Errorf("the browser reports %s", p)
	}
	mu.Unlock()
	if scripts != 0 {
		t.Errorf("the report has %d scripts", scripts)
	}
	if overflow > 0 {
		t.Errorf("at phone width the report is %d pixels wider than the screen", overflow)
	}
	if !open {
		t.Error("the failure is not open")
	}
	for _, want := range []string{"Conformance of in-process", "SVC-2", "GET /api/events HTTP/1.1", long[:100], "Not run: the event list has one page"} {
		if !strings.Contains(text, want) {
			t.Errorf("the rendered report lacks %q", want)
		}
	}
}
