package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTheControlAPISessionOfTheDocsRuns runs every curl command of the
// client developer's session in docs/control-api.md, as written, against
// `eventsvc serve -access-ttl 30s -control`: none is refused for its
// Host, its Origin or its media type, and each answers what the session
// shows it answering.
func TestTheControlAPISessionOfTheDocsRuns(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no curl: .ci/run installs Debian's curl package for this check")
		}
		t.Skip("no curl on this machine (apt-get install curl): this check runs in CI")
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "control-api.md"))
	if err != nil {
		t.Fatal(err)
	}
	seed := regexp.MustCompile("(?s)```json\n(\\[.*?\\])\n```").FindSubmatch(doc)
	if seed == nil {
		t.Fatal("docs/control-api.md has no seed in a json block")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "seed.json"), seed[1], 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, "-access-ttl", "30s", "-control", "127.0.0.1:0")
	var commands []string
	for _, line := range strings.Split(string(doc), "\n") {
		if cmd, ok := strings.CutPrefix(line, "$ curl "); ok {
			cmd, _, _ = strings.Cut(cmd, "  #") // a comment after the command
			cmd = strings.ReplaceAll(cmd, "localhost:8080", strings.TrimPrefix(s.base, "http://"))
			cmd = strings.ReplaceAll(cmd, "localhost:9090", strings.TrimPrefix(s.control, "http://"))
			commands = append(commands, cmd)
		}
	}
	if len(commands) < 8 {
		t.Fatalf("the session shows %d curl commands; want the whole session", len(commands))
	}
	for _, cmd := range commands {
		c := exec.Command("sh", "-c", curl+" "+cmd)
		c.Dir = dir
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("curl %s: %v\n%s", cmd, err, out)
		}
		got := string(out)
		for _, refusal := range []string{"unsupported_media_type", "foreign_host", "cross_origin", "unauthorized"} {
			if strings.Contains(got, refusal) {
				t.Errorf("curl %s was refused: %s", cmd, got)
			}
		}
		wantRefused := strings.Contains(cmd, `"latency": "-2s"`)
		if refused := strings.Contains(got, `"invalid_request"`); refused != wantRefused {
			t.Errorf("curl %s: answered %s; the docs show it %s", cmd, got, map[bool]string{true: "refused", false: "accepted"}[wantRefused])
		}
	}
}
