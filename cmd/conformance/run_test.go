package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestListShowsSelectedScenariosWithRuleIDs(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"-list", "-base-url", "https://staging.example", "-read-only"}, env(nil), &out, &errs)
	if code != exitPassed {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	text := out.String()
	if !strings.Contains(text, "TOK-10,CLI-1") || !strings.Contains(text, "No token for the user's token with the user's credentials as the client's") {
		t.Errorf("the list lacks a @spec scenario with its rules:\n%s", text)
	}
	for _, leftOut := range []string{"Token responses must not be cached", "Two accounts with the same email", "Another user may not update the event"} {
		if strings.Contains(text, leftOut) {
			t.Errorf("the list holds %q, which the default remote tags and -read-only leave out", leftOut)
		}
	}
	if !strings.Contains(text, `scenarios selected by "@spec && ~@local && ~@slow && ~@writes"`) {
		t.Errorf("the list does not say how it selected:\n%s", text)
	}
}

func TestUnreachableTargetFailsFastWithOneLine(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	var out, errs bytes.Buffer
	code := run([]string{"-base-url", "http://" + addr, "-report-dir", t.TempDir()}, env(nil), &out, &errs)
	if code != exitUsage {
		t.Fatalf("exit %d, want %d", code, exitUsage)
	}
	msg := strings.TrimSpace(errs.String())
	if strings.Count(msg, "\n") != 0 || !strings.Contains(msg, "cannot reach http://"+addr) {
		t.Fatalf("stderr is not one clear line: %q", msg)
	}
}

func TestBadEventFileIsAUsageError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(path, []byte("[1,2]"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	code := run([]string{"-list"}, env(map[string]string{"CONFORMANCE_EVENT_FILE": path}), &out, &errs)
	if code != exitUsage || !strings.Contains(errs.String(), "not a JSON object") {
		t.Fatalf("exit %d, stderr %q", code, errs.String())
	}
}
