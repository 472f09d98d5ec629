package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDelayProxyHoldsEachRequestAndKeepsItsHost(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %s %s %s", r.Method, r.Host, r.URL.RequestURI(), body)
	}))
	defer backend.Close()
	const delay = 40 * time.Millisecond
	proxy, err := startDelayProxy(backend.URL, delay)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	began := time.Now()
	resp, err := http.Post("http://"+proxy.Addr+"/api/events?size=2", "application/json", strings.NewReader(`{"name":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if took := time.Since(began); took < delay {
		t.Errorf("the answer came %v after the request, before the delay of %v", took, delay)
	}
	if want := "POST " + proxy.Addr + ` /api/events?size=2 {"name":"x"}`; string(got) != want {
		t.Errorf("the backend saw %q, want %q", got, want)
	}
}

// script writes an executable shell script into a folder of the test.
func script(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fake")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTimeRunTimesTheWholeProcessInAnEnvironmentOfItsOwn(t *testing.T) {
	t.Setenv("CONFORMANCE_TAGS", "@AUTH-6")
	took, err := timeRun(context.Background(), script(t, "sleep 0.2\nenv | grep CONFORMANCE_ && exit 1\nexit 0\n"))
	if err != nil {
		t.Fatalf("timeRun = %v", err)
	}
	if took < 200*time.Millisecond {
		t.Errorf("timeRun = %v for a process that sleeps 0.2 s", took)
	}
	_, err = timeRun(context.Background(), script(t, "echo 'FAILED: 3 failed'\nexit 1\n"), "-concurrency", "8")
	if err == nil || !strings.Contains(err.Error(), "FAILED: 3 failed") || !strings.Contains(err.Error(), "-concurrency 8") {
		t.Errorf("a run that fails: timeRun = %v", err)
	}
}

func TestConformanceExtraLeavesExplorationOutWhenTheBinaryHasIt(t *testing.T) {
	without := script(t, "echo 'usage: conformance [-base-url URL]' >&2\necho '  -concurrency string' >&2\necho '   or: conformance explore [-seed N]' >&2\nexit 2\n")
	if got := conformanceExtra(without); got != nil {
		t.Errorf("a binary without -explore: conformanceExtra = %q", got)
	}
	with := script(t, "echo 'usage: conformance [-base-url URL]' >&2\necho '  -explore string' >&2\necho '    \tthe budget of the exploration' >&2\nexit 2\n")
	if got := conformanceExtra(with); !slices.Equal(got, []string{"-explore", "0"}) {
		t.Errorf("a binary with -explore: conformanceExtra = %q", got)
	}
}
