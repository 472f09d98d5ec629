package main

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// variablesRead runs the binary's paths that read the environment, the
// scenarios' (in-process, against a deployment, with a control API) and
// the explorer's, with a lookup that records every name it is asked for.
func variablesRead(t *testing.T) []string {
	t.Helper()
	var mu sync.Mutex
	var read []string
	recorder := func(vars map[string]string) func(string) (string, bool) {
		return func(name string) (string, bool) {
			mu.Lock()
			defer mu.Unlock()
			if !slices.Contains(read, name) {
				read = append(read, name)
			}
			v, ok := vars[name]
			return v, ok
		}
	}
	for _, vars := range []map[string]string{
		nil,
		{"BASE_URL": "https://staging.example"},
		{"BASE_URL": "http://127.0.0.1:8080", "CONTROL_URL": "http://127.0.0.1:9090"},
	} {
		var out, errs bytes.Buffer
		if code := run([]string{"-list"}, recorder(vars), &out, &errs); code != exitPassed {
			t.Fatalf("-list with %v: exit %d: %s", vars, code, errs.String())
		}
	}
	var out, errs bytes.Buffer
	explore := map[string]string{"CONFORMANCE_MAX_ACTIONS": "1", "CONFORMANCE_REPORT_DIR": t.TempDir()}
	if code := run([]string{"explore"}, recorder(explore), &out, &errs); code != exitPassed {
		t.Fatalf("explore: exit %d: %s%s", code, out.String(), errs.String())
	}
	return read
}

// TestTheVariableTableListsEveryVariableTheBinaryReads: the table of
// variables of docs/running-against-a-deployment.md names every variable
// the binary reads, and none that it does not; the binary's packages read
// the environment only through the lookup main gives them.
func TestTheVariableTableListsEveryVariableTheBinaryReads(t *testing.T) {
	b, err := os.ReadFile("../../docs/running-against-a-deployment.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "\n| variable | what |")
	if !ok {
		t.Fatal("no table of variables in docs/running-against-a-deployment.md")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	var listed []string
	for _, row := range strings.Split(table, "\n") {
		cells := strings.Split(row, "|")
		if len(cells) < 3 {
			continue
		}
		for _, m := range regexp.MustCompile("`([A-Za-z_]+)`").FindAllStringSubmatch(cells[1], -1) {
			listed = append(listed, m[1])
		}
	}
	read := variablesRead(t)
	for _, name := range read {
		if !slices.Contains(listed, name) {
			t.Errorf("the binary reads %s, which the table of variables does not list", name)
		}
	}
	for _, name := range listed {
		if !slices.Contains(read, name) {
			t.Errorf("the table of variables lists %s, which the binary does not read", name)
		}
	}

	// Every other read of the environment would escape the recorder.
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the binary's packages")
	}
	// The Go files of the packages of this module the binary is built from.
	list, err := exec.Command("go", "list", "-deps", "-f", `{{with .Module}}{{if eq .Path "eventsvc"}}{{range $.GoFiles}}{{$.Dir}}/{{.}}{{"\n"}}{{end}}{{end}}{{end}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	reads := regexp.MustCompile(`\bos\.(Getenv|LookupEnv|Environ|ExpandEnv)\(|\bsyscall\.Getenv\(`)
	files := 0
	for _, path := range strings.Fields(string(list)) {
		files++
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(src), "\n") {
			if reads.MatchString(line) && !strings.HasSuffix(path, "/cmd/conformance/main.go") {
				t.Errorf("%s reads the environment itself: %s", path, strings.TrimSpace(line))
			}
		}
	}
	if files < 20 {
		t.Errorf("only %d files of the project's packages", files)
	}
}
