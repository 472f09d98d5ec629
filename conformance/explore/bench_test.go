package explore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"eventsvc/conformance/explore/flawed"
	"eventsvc/conformance/report"
)

// BenchmarkExplore explores `eventsvc serve` run as a process of its own on
// a loopback port (its token budget off, its bcrypt as configured), with
// the default budget of actions, serially and eight sequences at once. It
// reports the actions a second, and the processor time the server spent
// for every second the explorer spent: above 1, the server, not the
// explorer, holds the processor.
//
//	go test ./explore -run '^$' -bench Explore -benchtime 3x
func BenchmarkExplore(b *testing.B) {
	bin := buildServer(b)
	for _, concurrency := range []int{1, 8} {
		b.Run(fmt.Sprintf("concurrency%d", concurrency), func(b *testing.B) {
			var actions int
			var took, serverCPU, explorerCPU time.Duration
			for i := 0; i < b.N; i++ {
				base, cpu := startServer(b, bin)
				before := selfCPU()
				start := time.Now()
				var out bytes.Buffer
				rep, err := Run(context.Background(), Options{Target: remote(base), Seed: uint64(i + 1), Concurrency: concurrency, Output: &out})
				if err != nil {
					b.Fatalf("Run = %v\n%s", err, out.String())
				}
				took += time.Since(start)
				explorerCPU += selfCPU() - before
				serverCPU += cpu()
				actions += len(actionsOf(rep))
			}
			b.ReportMetric(float64(actions)/took.Seconds(), "actions/s")
			b.ReportMetric(serverCPU.Seconds()/explorerCPU.Seconds(), "server-cpu/explorer-cpu")
		})
	}
}

// BenchmarkShrink times the shrinking of a planted failure: a leap day
// that reads back as the first of March, found by the default budget and
// shrunk to its few actions. It reports the milliseconds the sequence took,
// its run and its shrinking, and how many actions it was shrunk from.
//
//	go test ./explore -run '^$' -bench Shrink -benchtime 3x
func BenchmarkShrink(b *testing.B) {
	f := flawed.Named(b, "a leap day reads back as the first of March")
	var took time.Duration
	var from, to int
	for i := 0; i < b.N; i++ {
		var out bytes.Buffer
		rep, err := Run(context.Background(), Options{Target: remote(flawed.Start(b, f)), Seed: 1, Output: &out})
		if !errors.Is(err, ErrFailed) {
			b.Fatalf("Run = %v\n%s", err, out.String())
		}
		for _, s := range rep.Scenarios {
			if s.Verdict == report.Failed && strings.Contains(s.Name, "shrunk from") {
				took += s.Duration
				n, _ := strconv.Atoi(strings.Fields(s.Name[strings.Index(s.Name, "shrunk from ")+len("shrunk from "):])[0])
				from, to = from+n, to+len(s.Steps)
				break
			}
		}
	}
	b.ReportMetric(float64(took.Milliseconds())/float64(b.N), "shrink-ms")
	b.ReportMetric(float64(from)/float64(b.N), "actions-before")
	b.ReportMetric(float64(to)/float64(b.N), "actions-after")
}

// buildServer builds cmd/eventsvc once for a benchmark.
func buildServer(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "eventsvc")
	cmd := exec.Command("go", "build", "-o", bin, "../../cmd/eventsvc")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startServer starts bin on a free loopback port with its demo
// configuration and no token budget, and returns its address and a
// function that stops it and returns the processor time it spent.
func startServer(b *testing.B, bin string) (string, func() time.Duration) {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "serve", "-addr", addr, "-token-rate", "0", "-login-failures", "0")
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "API root") {
				close(ready)
				break
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		b.Fatal("eventsvc did not start")
	}
	stopped := false
	stop := func() time.Duration {
		if !stopped {
			stopped = true
			cmd.Process.Signal(os.Interrupt)
			cmd.Wait()
		}
		u := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		return time.Duration(u.Utime.Nano() + u.Stime.Nano())
	}
	b.Cleanup(func() { stop() })
	return "http://" + addr, stop
}

// selfCPU is the processor time this process has spent.
func selfCPU() time.Duration {
	var u syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
