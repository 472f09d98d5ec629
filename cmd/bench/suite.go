package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Suite is what bench -suite measures: the suite's binary run as a whole
// process, as a CI job waits for it, against eventsvc behind a proxy that
// adds Delay to every request; Rounds times serially and Rounds times with
// Concurrency scenarios at once, in turn.
type Suite struct {
	Eventsvc, Conformance string // the binaries
	Delay                 time.Duration
	Rounds, Concurrency   int
}

// suiteRun is one timed run of the suite.
type suiteRun struct {
	concurrency int
	took        time.Duration
}

// benchSuite times the runs of s and prints them, with the ratio of the
// serial time to the concurrent one.
func benchSuite(ctx context.Context, s Suite) error {
	extra := conformanceExtra(s.Conformance)
	fmt.Printf("%s, with N 1 and %d in turn, %d rounds, each run timed as a whole process:\n"+
		"the default remote selection against a fresh eventsvc serve -quiet -token-rate 0 behind a proxy that adds %v to every request; CPUs: %d\n",
		strings.Join(append([]string{s.Conformance, "-base-url PROXY -concurrency N -report-dir TMP -color never"}, extra...), " "),
		s.Concurrency, s.Rounds, s.Delay, runtime.NumCPU())
	var runs []suiteRun
	timed := func(concurrency int) func() (float64, error) {
		return func() (float64, error) {
			took, err := s.timeOne(ctx, concurrency, extra)
			if err != nil {
				return 0, err
			}
			runs = append(runs, suiteRun{concurrency, took})
			fmt.Printf("  -concurrency %d: %.1f s\n", concurrency, took.Seconds())
			return took.Seconds(), nil
		}
	}
	p, err := inTurn(s.Rounds, timed(1), timed(s.Concurrency))
	if err != nil {
		return err
	}
	fmt.Printf("\n| run | time |\n|---|---:|\n")
	for _, r := range runs {
		fmt.Printf("| -concurrency %d | %.1f s |\n", r.concurrency, r.took.Seconds())
	}
	fmt.Printf("\nserial: median %.1f s; -concurrency %d: median %.1f s; serial / concurrent: %s\n", p.a, s.Concurrency, p.b, p.ratioText())
	return nil
}

// timeOne starts eventsvc and the proxy in front of it, and times one run
// of the suite against the proxy, from the start of its process to its
// end. A run that does not pass is an error.
func (s Suite) timeOne(ctx context.Context, concurrency int, extra []string) (time.Duration, error) {
	svc, err := start(ctx, s.Eventsvc, "serve", "-addr", "127.0.0.1:0", "-quiet", "-token-rate", "0")
	if err != nil {
		return 0, err
	}
	defer svc.stop()
	proxy, err := startDelayProxy(svc.base, s.Delay)
	if err != nil {
		return 0, err
	}
	defer proxy.Close()
	reports, err := os.MkdirTemp("", "eventsvc-bench-suite-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(reports)
	args := append([]string{"-base-url", "http://" + proxy.Addr, "-concurrency", strconv.Itoa(concurrency), "-report-dir", reports, "-color", "never"}, extra...)
	return timeRun(ctx, s.Conformance, args...)
}

// timeRun runs bin with args, in an environment of PATH and HOME alone,
// and returns how long the process took; a process that does not end with
// status 0 is an error that quotes the end of its output.
func timeRun(ctx context.Context, bin string, args ...string) (time.Duration, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	began := time.Now()
	err := cmd.Run()
	took := time.Since(began)
	if err != nil {
		tail := out.String()
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return took, fmt.Errorf("%s: %w\n%s", strings.Join(append([]string{filepath.Base(bin)}, args...), " "), err, tail)
	}
	return took, nil
}

// exploreFlag finds, in a usage message, the -explore flag by which a run
// of the scenarios also explores.
var exploreFlag = regexp.MustCompile(`(?m)^\s+-explore\b`)

// conformanceExtra are the flags that make a run of bin the scenarios
// alone: -explore 0 when bin has that flag (a run that also explores by
// default), none when it does not.
func conformanceExtra(bin string) []string {
	out, _ := exec.Command(bin, "-h").CombinedOutput()
	if exploreFlag.Match(out) {
		return []string{"-explore", "0"}
	}
	return nil
}

// startDelayProxy serves, on a loopback port, a proxy to backend that
// holds every request for delay before it forwards it, with its Host as
// sent, so that the links the backend writes name the proxy.
func startDelayProxy(backend string, delay time.Duration) (*http.Server, error) {
	u, err := url.Parse(backend)
	if err != nil {
		return nil, err
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = 64
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(u)
			r.Out.Host = r.In.Host
		},
		Transport: transport,
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Addr: ln.Addr().String(), ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(delay):
			proxy.ServeHTTP(w, r)
		case <-r.Context().Done():
		}
	})}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(os.Stderr, "bench: the delay proxy: %v\n", err)
		}
	}()
	return srv, nil
}
