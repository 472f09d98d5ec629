// Command bench measures the reference server under load, as make bench
// runs it: wrk against eventsvc and against a bare Fiber application
// (cmd/barefiber) that answers the same bytes from memory, in one run, and
// password grants against the rate of bcrypt on this machine. It prints one
// table of rates and their ratios, with the goal of each row.
//
//	bench [-eventsvc bin/eventsvc] [-barefiber bin/barefiber] [-duration 3s] [-rounds 5] [-warmup 1s]
//
// With -suite, as make bench-suite runs it, it times the suite instead: the
// binary bin/conformance run as a whole process against eventsvc behind a
// proxy that adds -delay to every request, serially and with -concurrency
// scenarios at once, -rounds times each (2 unless given), and prints the
// times and the ratio of the serial time to the concurrent one.
//
//	bench -suite [-eventsvc bin/eventsvc] [-conformance bin/conformance] [-delay 50ms] [-concurrency 8] [-rounds 2]
//
// Everything listens on 127.0.0.1 and every load is bounded in time. The
// exit status is 0 when the run completed, whether or not the goals were
// met (the table says), 1 when it could not.
package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"eventsvc/server/secret"
)

// The demo credentials eventsvc starts with.
const (
	demoClient   = "myApp:pass"
	demoUser     = "user@email.com"
	demoPassword = "user"
)

// recorded is one response of eventsvc, as cmd/barefiber reads it.
type recorded struct {
	Method     string      `json:"method"`
	Target     string      `json:"target"`
	Authorized bool        `json:"authorized"`
	Status     int         `json:"status"`
	Header     [][2]string `json:"header"`
	Body       []byte      `json:"body"`
}

// row is one request measured against both servers.
type row struct {
	name   string
	target string
	token  bool    // with the bearer token
	goal   float64 // the least ratio eventsvc / bare Fiber
}

var rows = []row{
	{"GET /api/events/1, anonymous", "/api/events/1", false, 0.8},
	{"GET /api/events/1, with a bearer token", "/api/events/1", true, 0.8},
	{"GET /api/events?size=20", "/api/events?size=20", false, 0.5},
	{"GET /api", "/api", false, 0.9},
}

// grantGoal is the least ratio of password grants to bcrypt's rate.
const grantGoal = 0.9

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	eventsvc := fs.String("eventsvc", "bin/eventsvc", "the eventsvc binary")
	bare := fs.String("barefiber", "bin/barefiber", "the barefiber binary")
	duration := fs.Duration("duration", 3*time.Second, "how long each wrk run lasts")
	rounds := fs.Int("rounds", 5, "how many times each server is measured per request, in turn; the medians count")
	warmup := fs.Duration("warmup", time.Second, "how long each server is loaded with a request before its rounds, uncounted (0: no warm-up)")
	connections := fs.Int("connections", 64, "wrk's connections for the reads")
	threads := fs.Int("threads", 2, "wrk's threads")
	suite := fs.Bool("suite", false, "time the suite's binary against eventsvc behind a delay, serially and concurrently, instead")
	conformance := fs.String("conformance", "bin/conformance", "with -suite: the conformance binary")
	delay := fs.Duration("delay", 50*time.Millisecond, "with -suite: what the proxy in front of eventsvc adds to every request")
	concurrency := fs.Int("concurrency", 8, "with -suite: the -concurrency of the concurrent runs")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *suite {
		given := false
		fs.Visit(func(f *flag.Flag) { given = given || f.Name == "rounds" })
		if !given {
			*rounds = 2
		}
		if err := benchSuite(context.Background(), Suite{Eventsvc: *eventsvc, Conformance: *conformance, Delay: *delay, Rounds: *rounds, Concurrency: *concurrency}); err != nil {
			fmt.Fprintf(os.Stderr, "bench: %v\n", err)
			return 1
		}
		return 0
	}
	if _, err := exec.LookPath("wrk"); err != nil {
		fmt.Fprintln(os.Stderr, "bench: wrk is not installed (make bench installs it: apt-get install wrk)")
		return 1
	}
	if err := bench(*eventsvc, *bare, *rounds, *warmup, Load{Threads: *threads, Connections: *connections, Duration: *duration, Timeout: 5 * time.Second}); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		return 1
	}
	return 0
}

// bench measures eventsvc against the bare Fiber app answering its bytes,
// read by read, and its password grants against bcrypt, and prints the
// table.
func bench(eventsvcBin, bareBin string, rounds int, warmup time.Duration, load Load) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "eventsvc-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	// The token budget per address would refuse a grant benchmark from one
	// address: -token-rate 0 turns it off.
	fmt.Printf("eventsvc serve -quiet -token-rate 0 (the token budget per address is off: all the load comes from 127.0.0.1)\n")
	svc, err := start(ctx, eventsvcBin, "serve", "-addr", "127.0.0.1:0", "-quiet", "-token-rate", "0")
	if err != nil {
		return err
	}
	defer svc.stop()
	token, err := grant(svc.base)
	if err != nil {
		return err
	}
	auth := "Bearer " + token
	bare, recs, err := startBare(ctx, dir, bareBin, svc.base, auth)
	if err != nil {
		return err
	}
	defer bare.stop()
	fmt.Printf("wrk -t%d -c%d, %v a run, %d rounds in turn after a warm-up of %v; the median rates, and the median ratio of the rounds with its range; CPUs: %d\n\n",
		load.Threads, load.Connections, load.Duration, rounds, warmup, runtime.NumCPU())
	var lines []tableLine
	for i, r := range rows {
		l, err := measureRead(ctx, r, svc.base, bare.base, auth, rounds, warmup, load)
		if err != nil {
			return err
		}
		l.name += fmt.Sprintf(" (%d bytes)", len(recs[i].Body))
		lines = append(lines, l)
	}
	l, err := measureGrants(ctx, dir, svc.base, rounds, load)
	if err != nil {
		return err
	}
	printTable(append(lines, l))
	return nil
}

// startBare records the answers of eventsvc at base to the rows'
// requests, starts the bare Fiber app answering them from a file in dir,
// and checks that it answers the same bytes.
func startBare(ctx context.Context, dir, bareBin, base, auth string) (*process, []recorded, error) {
	var recs []recorded
	for _, r := range rows {
		rec, err := record(base, r.target, r.token, auth)
		if err != nil {
			return nil, nil, err
		}
		recs = append(recs, rec)
	}
	file := filepath.Join(dir, "responses.json")
	data, err := json.Marshal(recs)
	if err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return nil, nil, err
	}
	bare, err := start(ctx, bareBin, "-addr", "127.0.0.1:0", "-responses", file)
	if err != nil {
		return nil, nil, err
	}
	for i, r := range rows {
		got, err := record(bare.base, r.target, r.token, auth)
		if err == nil && (!slices.Equal(got.Header, recs[i].Header) || string(got.Body) != string(recs[i].Body) || got.Status != recs[i].Status) {
			err = fmt.Errorf("%s: the bare Fiber app does not answer the bytes of eventsvc:\n%v %q\n%v %q", r.name, recs[i].Header, recs[i].Body, got.Header, got.Body)
		}
		if err != nil {
			bare.stop()
			return nil, nil, err
		}
	}
	return bare, recs, nil
}

// measureRead loads eventsvc at svcBase and the bare app at bareBase with
// r's request, in turn, after a warm-up of each.
func measureRead(ctx context.Context, r row, svcBase, bareBase, auth string, rounds int, warmup time.Duration, load Load) (tableLine, error) {
	var headers []string
	if r.token {
		headers = []string{"Authorization: " + auth}
	}
	measure := func(base string, load Load) func() (float64, error) {
		return func() (float64, error) {
			res, err := runWrk(ctx, load, base+r.target, headers, "")
			if err == nil && res.Errors > 0 {
				err = fmt.Errorf("%s: %d errors or non-2xx answers from %s", r.name, res.Errors, base)
			}
			return res.Rate, err
		}
	}
	if warmup > 0 {
		w := load
		w.Duration = warmup
		for _, base := range []string{svcBase, bareBase} {
			if _, err := measure(base, w)(); err != nil {
				return tableLine{}, fmt.Errorf("warm-up: %w", err)
			}
		}
	}
	p, err := inTurn(rounds, measure(svcBase, load), measure(bareBase, load))
	if err != nil {
		return tableLine{}, err
	}
	return tableLine{r.name, kilo(p.a), kilo(p.b), p.ratioText(), fmt.Sprintf(">= %.1f", r.goal), verdict(p.ratio, r.goal)}, nil
}

// measureGrants measures password grants at base against bcrypt's rate on
// this machine: each grant checks one password (the client's secret is
// remembered once checked). The two are measured in turn, like the reads;
// wrk's script is written in dir.
func measureGrants(ctx context.Context, dir, base string, rounds int, load Load) (tableLine, error) {
	script := filepath.Join(dir, "grant.lua")
	body := url.Values{"grant_type": {"password"}, "username": {demoUser}, "password": {demoPassword}}.Encode()
	lua := fmt.Sprintf("wrk.method = \"POST\"\nwrk.body = %q\nwrk.headers[\"Content-Type\"] = \"application/x-www-form-urlencoded\"\nwrk.headers[\"Authorization\"] = \"Basic %s\"\n",
		body, base64.StdEncoding.EncodeToString([]byte(demoClient)))
	if err := os.WriteFile(script, []byte(lua), 0o600); err != nil {
		return tableLine{}, err
	}
	grantLoad := Load{Threads: load.Threads, Connections: 2 * runtime.NumCPU(), Duration: load.Duration + time.Second, Timeout: 10 * time.Second}
	p, err := inTurn(rounds,
		func() (float64, error) {
			res, err := runWrk(ctx, grantLoad, base+"/oauth/token", nil, script)
			if err == nil && res.Errors > 0 {
				err = fmt.Errorf("password grants: %d errors or non-2xx answers", res.Errors)
			}
			return res.Rate, err
		},
		func() (float64, error) { return bcryptRate(grantLoad.Duration) })
	if err != nil {
		return tableLine{}, err
	}
	return tableLine{fmt.Sprintf("POST /oauth/token, password grant (wrk -c%d)", grantLoad.Connections),
		fmt.Sprintf("%.1f/s", p.a), fmt.Sprintf("bcrypt %.1f/s", p.b), p.ratioText(), fmt.Sprintf(">= %.1f", grantGoal), verdict(p.ratio, grantGoal)}, nil
}

// pair is what inTurn measured: the median rates of a and b, and the
// median and range of the ratios a/b of each round.
type pair struct {
	a, b, ratio, low, high float64
}

// ratioText is the median ratio and its range over the rounds.
func (p pair) ratioText() string {
	return fmt.Sprintf("%.2f (%.2f-%.2f)", p.ratio, p.low, p.high)
}

// inTurn measures a and b one after the other, rounds times, the first of
// them changing every round, so that a shared machine's changing load
// weighs on both alike; each round gives the ratio a/b of its two
// measures.
func inTurn(rounds int, a, b func() (float64, error)) (pair, error) {
	var as, bs, ratios []float64
	for i := range max(rounds, 1) {
		first, second := a, b
		if i%2 == 1 {
			first, second = b, a
		}
		x, err := first()
		if err != nil {
			return pair{}, err
		}
		y, err := second()
		if err != nil {
			return pair{}, err
		}
		if i%2 == 1 {
			x, y = y, x
		}
		if y <= 0 {
			return pair{}, errors.New("a measure of 0 requests a second")
		}
		as, bs, ratios = append(as, x), append(bs, y), append(ratios, x/y)
	}
	slices.Sort(ratios)
	return pair{a: median(as), b: median(bs), ratio: median(ratios), low: ratios[0], high: ratios[len(ratios)-1]}, nil
}

// median is the middle of values (the mean of the two middle ones when
// their number is even).
func median(values []float64) float64 {
	v := slices.Sorted(slices.Values(values))
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// kilo writes a rate in thousands a second.
func kilo(rate float64) string { return fmt.Sprintf("%.1f k/s", rate/1000) }

// process is a server started by start.
type process struct {
	cmd  *exec.Cmd
	base string
	once sync.Once
}

var listening = regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)

// start runs bin with args and waits, at most 30 seconds, for it to say
// where it listens.
func start(ctx context.Context, bin string, args ...string) (*process, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p := &process{cmd: cmd}
	found := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			if m := listening.FindStringSubmatch(s.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case p.base = <-found:
		return p, nil
	case <-time.After(30 * time.Second):
		p.stop()
		return nil, fmt.Errorf("%s did not say where it listens within 30s", bin)
	}
}

// stop ends the process with SIGTERM, and kills it after 15 seconds.
func (p *process) stop() {
	p.once.Do(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = p.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = p.cmd.Process.Kill()
			<-done
		}
	})
}

// grant returns an access token of the demo user.
func grant(base string) (string, error) {
	req, err := http.NewRequest("POST", base+"/oauth/token", strings.NewReader(url.Values{"grant_type": {"password"}, "username": {demoUser}, "password": {demoPassword}}.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(demoClient)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("password grant: %w", err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || resp.StatusCode != http.StatusOK || tok.AccessToken == "" {
		return "", fmt.Errorf("password grant: status %d (%v)", resp.StatusCode, err)
	}
	return tok.AccessToken, nil
}

// record fetches target from base and returns the answer, without the
// headers that change with every answer or with the connection.
func record(base, target string, withToken bool, auth string) (recorded, error) {
	req, err := http.NewRequest("GET", base+target, nil)
	if err != nil {
		return recorded{}, err
	}
	if withToken {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return recorded{}, fmt.Errorf("GET %s: %w", target, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return recorded{}, fmt.Errorf("GET %s: %w", target, err)
	}
	if resp.StatusCode != http.StatusOK {
		return recorded{}, fmt.Errorf("GET %s: status %d", target, resp.StatusCode)
	}
	rec := recorded{Method: "GET", Target: target, Authorized: withToken, Status: resp.StatusCode, Body: body}
	for name, values := range resp.Header {
		switch name {
		case "Date", "Content-Length", "Connection", "Server":
			continue
		}
		for _, v := range values {
			rec.Header = append(rec.Header, [2]string{name, v})
		}
	}
	slices.SortFunc(rec.Header, func(a, b [2]string) int { return strings.Compare(a[0]+a[1], b[0]+b[1]) })
	return rec, nil
}

// bcryptRate is how many password checks a second bcrypt does on this
// machine at the cost of the demo accounts, with as many goroutines as
// there are CPUs.
func bcryptRate(d time.Duration) (float64, error) {
	stored, err := secret.Hash([]byte(demoPassword), secret.DefaultCost)
	if err != nil {
		return 0, err
	}
	var n atomic.Int64
	var failed atomic.Bool
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				if secret.Check(stored, demoPassword) != nil {
					failed.Store(true)
					return
				}
				n.Add(1)
			}
		})
	}
	wg.Wait()
	if failed.Load() {
		return 0, errors.New("bcrypt: the password does not check")
	}
	return float64(n.Load()) / time.Since(start).Seconds(), nil
}
