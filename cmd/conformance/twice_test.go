package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// maxDefaultRun is how long a default run against the reference server
// may take: its scenarios, then its exploration of a minute.
const maxDefaultRun = 150 * time.Second

// TestTheDefaultRunStaysGreenTwice runs the conformance binary on its
// defaults (the scenarios, then an exploration of a minute with its
// variants of requests) twice in a row against one reference server,
// bin/eventsvc as make run starts it, on its default flags: both pass,
// within the server's lockout, its cap on events and its rate limits,
// each within maxDefaultRun. It takes some three minutes, and runs only
// when asked: DEFAULT_RUNS=1, or make default-runs.
func TestTheDefaultRunStaysGreenTwice(t *testing.T) {
	if os.Getenv("DEFAULT_RUNS") == "" {
		t.Skip("DEFAULT_RUNS=1 runs it (make default-runs)")
	}
	eventsvc := build(t, "../eventsvc", "eventsvc")
	conformance := build(t, ".", "conformance")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	srv := exec.Command(eventsvc, "serve", "-addr", addr, "-quiet")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	var took []string
	for run := 1; run <= 2; run++ {
		start := time.Now()
		cmd := exec.Command(conformance, "-base-url", "http://"+addr, "-report-dir", t.TempDir())
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
		out, err := cmd.CombinedOutput()
		d := time.Since(start)
		took = append(took, fmt.Sprintf("run %d: %s", run, d.Round(time.Second)))
		if err != nil {
			t.Fatalf("default run %d: %v\n%s", run, err, tail(string(out)))
		}
		if d > maxDefaultRun {
			t.Errorf("default run %d took %s, more than %s", run, d.Round(time.Second), maxDefaultRun)
		}
		if !strings.Contains(string(out), "sequences in") {
			t.Errorf("default run %d explored nothing:\n%s", run, tail(string(out)))
		}
	}
	t.Log(strings.Join(took, "; "))
}
