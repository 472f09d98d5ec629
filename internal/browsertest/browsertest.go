// Package browsertest loads a page in a headless Chromium, for tests that
// check what a reader sees: the page as a phone shows it, and every
// problem the browser reports on the way.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
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

// PhoneWidth is the width, in CSS pixels, pages are loaded at.
const PhoneWidth = 390

// Timeout bounds loading and checking one page.
const Timeout = 90 * time.Second

// Chromium finds the browser. In CI, where .ci/run installs Debian's
// chromium package, a missing browser fails t; elsewhere it skips t, saying
// how to get one.
func Chromium(t testing.TB) string {
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

// Options say how to load a page. The zero value loads it and reads it.
type Options struct {
	// Ready is a CSS selector that stands in the page once it is loaded.
	// Empty: "body".
	Ready string
	// OnlyItself makes a request for any address but the page's a
	// problem, for a page that must stand alone.
	OnlyItself bool
	// Screenshot takes a screenshot of the page.
	Screenshot bool
	// Actions run once the page is ready, to read more of it.
	Actions []chromedp.Action
}

// Page is what the browser made of a page.
type Page struct {
	Text       string // the page's text, as a reader sees it
	Scripts    int    // its <script> elements
	Overflow   int    // how many pixels it is wider than the screen
	Screenshot []byte // with Options.Screenshot
	// Problems are the console messages, uncaught exceptions, the
	// browser's log errors and warnings (a failed load among them) and,
	// with Options.OnlyItself, the requests for other addresses.
	Problems []string
}

// Load loads url in a fresh headless Chromium at phone width, kept off the
// network but for url, and fails t when the browser cannot.
func Load(t testing.TB, url string, o Options) Page {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(Chromium(t)), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile(t)))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, Timeout)
	defer cancelTimeout()

	var mu sync.Mutex
	var p Page
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			var args []string
			for _, a := range e.Args {
				args = append(args, string(a.Value))
			}
			p.Problems = append(p.Problems, fmt.Sprintf("console.%s: %s", e.Type, strings.Join(args, " ")))
		case *runtime.EventExceptionThrown:
			p.Problems = append(p.Problems, "uncaught: "+e.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.LevelError || e.Entry.Level == cdplog.LevelWarning {
				p.Problems = append(p.Problems, fmt.Sprintf("%s %s: %s (%s)", e.Entry.Level, e.Entry.Source, e.Entry.Text, e.Entry.URL))
			}
		case *network.EventRequestWillBeSent:
			// A request never carries the address's fragment.
			if o.OnlyItself && e.Request.URL != strings.SplitN(url, "#", 2)[0] {
				p.Problems = append(p.Problems, "a request for "+e.Request.URL)
			}
		}
	})
	ready := o.Ready
	if ready == "" {
		ready = "body"
	}
	var text string
	var scripts, overflow int
	var shot []byte
	actions := []chromedp.Action{
		cdplog.Enable(), runtime.Enable(), network.Enable(),
		emulation.SetDeviceMetricsOverride(PhoneWidth, 844, 2, true),
		chromedp.Navigate(url),
		chromedp.WaitReady(ready),
		chromedp.Evaluate(`document.querySelectorAll("script").length`, &scripts),
		chromedp.Evaluate(`document.documentElement.scrollWidth - window.innerWidth`, &overflow),
		chromedp.Evaluate(`document.body.innerText`, &text),
	}
	if o.Screenshot {
		actions = append(actions, chromedp.CaptureScreenshot(&shot))
	}
	if err := chromedp.Run(ctx, append(actions, o.Actions...)...); err != nil {
		t.Fatalf("the browser: %v", err)
	}
	time.Sleep(200 * time.Millisecond) // let the last events arrive
	mu.Lock()
	defer mu.Unlock()
	p.Text, p.Scripts, p.Overflow, p.Screenshot = text, scripts, overflow, shot
	p.Problems = append([]string(nil), p.Problems...)
	return p
}

// profile is a fresh profile folder. The browser's helper processes may
// still write to it for a moment after it stops, which fails the cleanup of
// t.TempDir; this one is removed with retries.
func profile(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "browsertest-")
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
