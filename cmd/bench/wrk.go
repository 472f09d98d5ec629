package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"time"
)

// Load is one run of wrk: how many threads and connections, for how long.
type Load struct {
	Threads, Connections int
	Duration, Timeout    time.Duration
}

// Result is what wrk measured.
type Result struct {
	Rate   float64 // requests a second
	Errors int     // non-2xx or 3xx answers, and socket errors
}

var (
	wrkRate     = regexp.MustCompile(`(?m)^Requests/sec:\s+([0-9.]+)`)
	wrkNon2xx   = regexp.MustCompile(`(?m)^\s*Non-2xx or 3xx responses:\s+(\d+)`)
	wrkSocket   = regexp.MustCompile(`(?m)^\s*Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	errNoResult = errors.New("wrk printed no Requests/sec")
)

// parseWrk reads wrk's report.
func parseWrk(out string) (Result, error) {
	m := wrkRate.FindStringSubmatch(out)
	if m == nil {
		return Result{}, errNoResult
	}
	rate, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return Result{}, fmt.Errorf("requests/sec %q: %w", m[1], err)
	}
	r := Result{Rate: rate}
	if m := wrkNon2xx.FindStringSubmatch(out); m != nil {
		n, _ := strconv.Atoi(m[1])
		r.Errors += n
	}
	if m := wrkSocket.FindStringSubmatch(out); m != nil {
		for _, s := range m[1:] {
			n, _ := strconv.Atoi(s)
			r.Errors += n
		}
	}
	return r, nil
}

// runWrk loads url with wrk: a GET with the headers, or what the Lua
// script (a file) says.
func runWrk(ctx context.Context, load Load, url string, headers []string, script string) (Result, error) {
	args := []string{
		"-t", strconv.Itoa(load.Threads), "-c", strconv.Itoa(load.Connections),
		"-d", fmt.Sprintf("%ds", int(load.Duration.Seconds())),
		"--timeout", fmt.Sprintf("%ds", int(load.Timeout.Seconds())),
	}
	for _, h := range headers {
		args = append(args, "-H", h)
	}
	if script != "" {
		args = append(args, "-s", script)
	}
	args = append(args, url)
	ctx, cancel := context.WithTimeout(ctx, load.Duration+load.Timeout+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "wrk", args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return Result{}, fmt.Errorf("wrk %s: %w", url, err)
	}
	r, err := parseWrk(string(out))
	if err != nil {
		return Result{}, fmt.Errorf("wrk %s: %w: %s", url, err, out)
	}
	return r, nil
}
