package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// elided is what the docs write for a part of an answer that changes from
// run to run: a token, a time, headers left out.
const elided = "…"

// walkthroughStep is one command of the walkthrough and the output the
// docs show for it.
type walkthroughStep struct {
	command string
	want    []string // lines
}

// readWalkthrough returns the commands of the section "A client
// developer's walkthrough" of docs/control-api.md, each with the lines
// shown after it: every line of a ```sh block that starts with "$ " is a
// command, and the lines up to the next command are its output.
func readWalkthrough(t *testing.T, doc string) []walkthroughStep {
	t.Helper()
	_, section, ok := strings.Cut(doc, "\n## A client developer's walkthrough\n")
	if !ok {
		t.Fatal(`docs/control-api.md has no section "A client developer's walkthrough"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var steps []walkthroughStep
	in := false
	for _, line := range strings.Split(section, "\n") {
		switch {
		case line == "```sh":
			in = true
		case line == "```":
			in = false
		case in && strings.HasPrefix(line, "$ "):
			steps = append(steps, walkthroughStep{command: strings.TrimPrefix(line, "$ ")})
		case in && len(steps) > 0:
			steps[len(steps)-1].want = append(steps[len(steps)-1].want, line)
		}
	}
	return steps
}

// TestTheClientDevelopersWalkthroughRuns runs the walkthrough of
// docs/control-api.md as written: `eventsvc serve` with the flags its first
// command gives (on ports of the test's own) and the seed the docs show,
// then every command in turn in one folder, with the shell variables its
// assignments set. Each answer must be the one the docs show for it: the
// status line and headers shown, every line of JSON shown whole (or, when
// part of it is left out with "…", every property shown with its value),
// and every other line shown.
func TestTheClientDevelopersWalkthroughRuns(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no curl: .ci/run installs Debian's curl package for this check")
		}
		t.Skip("no curl on this machine (apt-get install curl): this check runs in CI")
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "control-api.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	seed := regexp.MustCompile("(?s)```json\n(\\[.*?\\])\n```").FindStringSubmatch(doc)
	if seed == nil {
		t.Fatal("docs/control-api.md has no seed in a json block")
	}
	steps := readWalkthrough(t, doc)
	if len(steps) < 20 {
		t.Fatalf("the walkthrough shows %d commands; want the whole walkthrough", len(steps))
	}
	serve, ok := strings.CutPrefix(steps[0].command, "eventsvc serve ")
	if !ok {
		t.Fatalf("the walkthrough starts with %q, want eventsvc serve", steps[0].command)
	}
	args := strings.Fields(strings.ReplaceAll(serve, "127.0.0.1:9090", "127.0.0.1:0"))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "seed.json"), []byte(seed[1]), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir) // -seed seed.json, as the docs give it
	s := startServe(t, args...)
	public := strings.TrimPrefix(s.base, "http://")
	control := strings.TrimPrefix(s.control, "http://")
	localize := strings.NewReplacer("localhost:8080", public, "localhost:9090", control, "127.0.0.1:9090", control).Replace
	for _, line := range steps[0].want {
		if line = localize(strings.TrimSpace(line)); line != "" && !strings.Contains(line, elided) && !strings.Contains(s.out.String(), line) {
			t.Errorf("the banner does not say %q:\n%s", line, s.out.String())
		}
	}

	env := os.Environ()
	assigns := regexp.MustCompile(`(?:^|;\s*)([A-Z_]+)=\$\(`)
	for _, step := range steps[1:] {
		command := localize(step.command)
		names := assigns.FindAllStringSubmatch(command, -1)
		script := command
		for _, n := range names {
			script += `; printf '%s\n' "$` + n[1] + `"`
		}
		c := exec.Command("sh", "-c", script)
		c.Dir = dir
		c.Env = append(env, "PATH="+filepath.Dir(curl)+":"+os.Getenv("PATH"))
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("$ %s: %v\n%s", step.command, err, out)
		}
		got := strings.TrimRight(strings.ReplaceAll(string(out), "\r\n", "\n"), "\n")
		if names != nil {
			values := strings.Split(got, "\n")
			if len(values) != len(names) {
				t.Fatalf("$ %s printed %q", step.command, got)
			}
			for i, n := range names {
				if values[i] == "" {
					t.Fatalf("$ %s left %s empty", step.command, n[1])
				}
				env = append(env, n[1]+"="+values[i])
			}
			continue
		}
		for _, problem := range compareOutput(localize(strings.Join(step.want, "\n")), got) {
			t.Errorf("$ %s\n%s\ngot:\n%s", step.command, problem, got)
		}
	}
}

// jsonPair is a property with a value written in full: a string without
// "…", a number, true, false, null, or an empty object or array.
var jsonPair = regexp.MustCompile(`"([A-Za-z_-]+)":\s*("(?:[^"\\]|\\.)*"|-?[0-9]+(?:\.[0-9]+)?|true|false|null|\[\]|\{\})`)

// compareOutput says how got differs from the output want shows.
func compareOutput(want, got string) []string {
	var problems []string
	wantLines := strings.Split(want, "\n")
	gotLines := strings.Split(got, "\n")
	inHeaders := false
	if len(wantLines) > 0 && strings.HasPrefix(wantLines[0], "HTTP/") {
		if wantStatus, gotStatus := strings.Fields(wantLines[0]), strings.Fields(gotLines[0]); len(gotStatus) < 2 || wantStatus[1] != gotStatus[1] {
			problems = append(problems, "the docs show the status line "+wantLines[0])
		}
		wantLines, inHeaders = wantLines[1:], true
	}
	for _, line := range wantLines {
		switch {
		case line == "":
			inHeaders = false
		case strings.Contains(line, elided) && !strings.HasPrefix(line, "{"):
			// left out
		case inHeaders:
			name, value, _ := strings.Cut(line, ": ")
			if !hasHeader(gotLines, name, value) {
				problems = append(problems, "the docs show the header "+line)
			}
		case strings.HasPrefix(line, "{") && !strings.Contains(line, elided):
			var w, g any
			if err := json.Unmarshal([]byte(line), &w); err != nil {
				problems = append(problems, "the docs show JSON that does not parse: "+line)
			} else if json.Unmarshal([]byte(jsonBody(gotLines)), &g) != nil || !reflect.DeepEqual(w, g) {
				problems = append(problems, "the docs show the body "+line)
			}
		case strings.HasPrefix(line, "{"):
			var g any
			if err := json.Unmarshal([]byte(jsonBody(gotLines)), &g); err != nil {
				problems = append(problems, "the answer is not the JSON the docs show: "+line)
				break
			}
			for _, m := range jsonPair.FindAllStringSubmatch(line, -1) {
				var v any
				if strings.Contains(m[2], elided) || json.Unmarshal([]byte(m[2]), &v) != nil {
					continue
				}
				if !hasProperty(g, m[1], v) {
					problems = append(problems, "the docs show "+m[0]+" in "+line)
				}
			}
		default:
			found := false
			for _, g := range gotLines {
				found = found || g == line
			}
			if !found {
				problems = append(problems, "the docs show the line "+line)
			}
		}
	}
	return problems
}

// hasHeader reports whether the header lines of an answer hold name (in
// any case) with value.
func hasHeader(lines []string, name, value string) bool {
	for _, l := range lines[1:] {
		if l == "" {
			return false
		}
		n, v, _ := strings.Cut(l, ": ")
		if strings.EqualFold(n, name) && v == value {
			return true
		}
	}
	return false
}

// jsonBody is the last line of an answer: its body.
func jsonBody(lines []string) string {
	return lines[len(lines)-1]
}

// hasProperty reports whether v, at any depth, has the property name with
// the value want.
func hasProperty(v any, name string, want any) bool {
	switch v := v.(type) {
	case map[string]any:
		if got, ok := v[name]; ok && reflect.DeepEqual(got, want) {
			return true
		}
		for _, e := range v {
			if hasProperty(e, name, want) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if hasProperty(e, name, want) {
				return true
			}
		}
	}
	return false
}

// TestCompareOutputTellsAWrongAnswer: the walkthrough's check fails an
// answer that differs from the docs in its status, a header, a value, a
// property, or a line.
func TestCompareOutputTellsAWrongAnswer(t *testing.T) {
	const right = "HTTP/1.1 503 Service Unavailable\nRetry-After: 1\n\n{\"count\":2}"
	if p := compareOutput("HTTP/1.1 503 Service Unavailable\nRetry-After: 1\n…\n\n{\"count\":2}", right); p != nil {
		t.Fatalf("a right answer: %v", p)
	}
	for want, got := range map[string]string{
		"HTTP/1.1 200 OK\n\n{\"count\":2}":                right,
		"HTTP/1.1 503 x\nRetry-After: 2\n\n{\"count\":2}": right,
		"{\"count\":2}":            `{"count":3}`,
		"{\"count\":2}\n":          `{"count":2,"more":1}`,
		`{"a":{"b":"x…"},"c":1,…}`: `{"a":{"b":"xyz"},"c":2}`,
		`{"a":"b",…}`:              `{"c":"b"}`,
		"200":                      "201",
	} {
		if p := compareOutput(want, got); p == nil {
			t.Errorf("docs %q took answer %q", want, got)
		}
	}
	if p := compareOutput(`{"a":{"b":"x…"},"c":1,…}`, `{"a":{"b":"xyz"},"c":1,"d":4}`); p != nil {
		t.Errorf("an answer with what the docs leave out: %v", p)
	}
}
