package ci

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestImageModePassesSecretsByName runs ci/conformance.sh in image mode
// with a container engine that prints its arguments and the variables it
// gets: the variables that are set are passed by name, never with their
// values; the report folder and the baseline are mounted; the run flags
// come before the image; the engine's exit status is the script's.
func TestImageModePassesSecretsByName(t *testing.T) {
	dir := t.TempDir()
	engine := filepath.Join(dir, "engine")
	script := "#!/bin/sh\nfor a in \"$@\"; do echo \"arg:$a\"; done\nenv | sed -n 's/^\\(CONFORMANCE_[A-Z_]*\\)=.*/env:\\1/p'\nexit 1\n"
	if err := os.WriteFile(engine, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	baseline := filepath.Join(dir, "expected.json")
	if err := os.WriteFile(baseline, []byte(`{"expectedFailures": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runAction(t, with(demo, "base-url", "https://staging.example", "image", "ghcr.io/owner/conformance:v1.2.0",
		"container-engine", engine, "container-run-flags", "--runtime runc --ulimit nofile=65536:65536 --network host",
		"baseline", baseline, "client-secret", "s3cret-of-the-client", "tags", "@spec and not @slow", "explore", "90s", "seed", "42"))
	if r.code != 1 || r.outputs["exit-code"] != "1" {
		t.Errorf("an engine that exits 1: exit %d, output exit-code %q\n%s", r.code, r.outputs["exit-code"], r.output)
	}
	var args []string
	for _, line := range strings.Split(r.output, "\n") {
		if a, ok := strings.CutPrefix(line, "arg:"); ok {
			args = append(args, a)
		}
	}
	if strings.Contains(strings.Join(args, " "), "s3cret") || strings.Contains(strings.Join(args, " "), "=user") {
		t.Errorf("a secret is on the engine's command line: %q", args)
	}
	if len(args) < 2 || args[0] != "run" || args[len(args)-1] != "ghcr.io/owner/conformance:v1.2.0" {
		t.Fatalf("the engine ran %q, want run … IMAGE", args)
	}
	joined := " " + strings.Join(args, " ") + " "
	for _, want := range []string{
		" -e CONFORMANCE_CLIENT_SECRET ", " -e CONFORMANCE_PASSWORD ", " -e CONFORMANCE_OTHER_PASSWORD ", " -e BASE_URL ", " -e CONFORMANCE_TAGS ",
		" -e CONFORMANCE_EXPLORE ", " -e CONFORMANCE_SEED ",
		" -e CONFORMANCE_REPORT_DIR=/reports ", " -e CONFORMANCE_EXPECTED_FAILURES=/input/CONFORMANCE_EXPECTED_FAILURES ",
		" -v " + baseline + ":/input/CONFORMANCE_EXPECTED_FAILURES:ro ",
		" --runtime runc --ulimit nofile=65536:65536 --network host ghcr.io/owner/conformance:v1.2.0 ",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("the engine's arguments lack %q: %q", want, args)
		}
	}
	if !regexp.MustCompile(` -v /[^ ]*/reports:/reports `).MatchString(joined) {
		t.Errorf("the report folder is not mounted at /reports: %q", args)
	}
	if strings.Contains(joined, "CONFORMANCE_CONCURRENCY") {
		t.Errorf("an input left empty is passed: %q", args)
	}
	for _, want := range []string{"env:CONFORMANCE_CLIENT_SECRET", "env:CONFORMANCE_TAGS"} {
		if !strings.Contains(r.output, want) {
			t.Errorf("the engine does not get %s to pass on:\n%s", strings.TrimPrefix(want, "env:"), r.output)
		}
	}

	r = runAction(t, with(demo, "base-url", "https://staging.example", "container-engine", engine))
	if r.code != 2 || !strings.Contains(r.output, "no image") {
		t.Errorf("image mode without an image: exit %d, want 2 saying so\n%s", r.code, r.output)
	}
}
