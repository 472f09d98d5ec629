package docsite

import (
	"context"
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

// TestThePageInARealBrowser loads the served page in headless Chromium at
// phone width, through the DevTools protocol: no console message, no
// uncaught exception, no failed load (the browser's log), the rules and the
// examples rendered, no script (so it reads the same without JavaScript),
// nothing wider than the screen, and a screenshot in reports/.
func TestThePageInARealBrowser(t *testing.T) {
	bin := chromium(t)
	page := startServer(t) + "/docs/index.html"

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(userDataDir(t)))
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
			var args []string
			for _, a := range e.Args {
				args = append(args, string(a.Value))
			}
			problems = append(problems, fmt.Sprintf("console.%s: %s", e.Type, strings.Join(args, " ")))
		case *runtime.EventExceptionThrown:
			problems = append(problems, "uncaught: "+e.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.LevelError || e.Entry.Level == cdplog.LevelWarning {
				problems = append(problems, fmt.Sprintf("%s %s: %s (%s)", e.Entry.Level, e.Entry.Source, e.Entry.Text, e.Entry.URL))
			}
		}
	})

	var shot []byte
	var text string
	var scripts, overflow int
	err := chromedp.Run(ctx,
		cdplog.Enable(),
		runtime.Enable(),
		emulation.SetDeviceMetricsOverride(390, 844, 2, true),
		chromedp.Navigate(page),
		chromedp.WaitReady("#rules"),
		chromedp.Evaluate(`document.querySelectorAll("script").length`, &scripts),
		chromedp.Evaluate(`document.documentElement.scrollWidth - window.innerWidth`, &overflow),
		chromedp.Evaluate(`document.body.innerText`, &text),
		chromedp.CaptureScreenshot(&shot),
	)
	if err != nil {
		t.Fatalf("the browser: %v", err)
	}
	time.Sleep(200 * time.Millisecond) // let the last log events arrive
	mu.Lock()
	for _, p := range problems {
		t.Errorf("the browser reports %s", p)
	}
	mu.Unlock()
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
	reports := filepath.Join("..", "reports")
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

// userDataDir is a fresh profile folder for Chromium. The browser's helper
// processes may still write to it for a moment after it is stopped, which
// fails the cleanup of t.TempDir; this one is removed with retries.
func userDataDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "docsite-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for range 50 {
			if err = os.RemoveAll(dir); err == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("could not remove the browser profile %s: %v", dir, err)
	})
	return dir
}
