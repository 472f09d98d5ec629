package ci

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"eventsvc/conformance/report"
	"eventsvc/conformance/report/reporttest"
	"eventsvc/server"
	"eventsvc/server/servertest"
)

// root is the repository, where action.yml is: the action's path.
const root = ".."

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
	buildOut  []byte
)

// conformanceBinary builds cmd/conformance once for the package's tests,
// as make release does (static, -trimpath), so that the two share the
// build cache.
func conformanceBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ci-conformance-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "conformance")
		cmd := exec.Command("go", "build", "-trimpath", "-o", builtBin, "eventsvc/cmd/conformance")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("go build ./cmd/conformance: %v\n%s", buildErr, buildOut)
	}
	return builtBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

// referenceServer is a reference server on a loopback port, with the demo
// credentials.
func referenceServer(t *testing.T) string {
	return servertest.New(t, server.New(server.Options{Config: servertest.DemoConfig(t)})).URL
}

// baseEnv is what a CI machine's shell has before the step's own
// variables: PATH and HOME, nothing of this process's environment.
func baseEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
}

// ran is what a job's commands did.
type ran struct {
	code    int
	output  string // standard output and error
	outputs map[string]string
	reports string
}

// runShell runs script as a CI runner does (shell is sh or bash) in
// workspace, with env, and GITHUB_OUTPUT when github is true.
func runShell(t *testing.T, shell, script, workspace string, env map[string]string, github bool) ran {
	t.Helper()
	file := filepath.Join(t.TempDir(), "step.sh")
	if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	var args []string
	switch shell {
	case "sh":
		args = []string{"sh", "-e", file} // GitHub's sh -e {0}, GitLab's sh
	case "bash":
		args = []string{"bash", "--noprofile", "--norc", "-eo", "pipefail", file}
	default:
		t.Fatalf("shell %q: want sh or bash", shell)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = workspace
	cmd.Env = baseEnv()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	outputs := filepath.Join(t.TempDir(), "github_output")
	if github {
		if err := os.WriteFile(outputs, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		cmd.Env = append(cmd.Env, "GITHUB_OUTPUT="+outputs)
	}
	out, err := cmd.CombinedOutput()
	r := ran{output: string(out), outputs: map[string]string{}}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s: %v", shell, err)
		}
		r.code = ee.ExitCode()
	}
	if github {
		b, err := os.ReadFile(outputs)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				r.outputs[k] = v
			}
		}
	}
	return r
}

// readReport reads conformance.json of dir, after checking it against
// its schema.
func readReport(t *testing.T, dir string) report.Document {
	t.Helper()
	doc := reporttest.Read(t, dir)
	if _, err := os.Stat(filepath.Join(dir, report.JUnitReport)); err != nil {
		t.Error(err)
	}
	return doc
}

// sequences counts the sequences of an exploration in doc.
func sequences(doc report.Document) int {
	n := 0
	for _, s := range doc.Scenarios {
		if strings.HasPrefix(s.Place, report.SequenceFile+":") {
			n++
		}
	}
	return n
}

func with(base map[string]string, more ...string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(more); i += 2 {
		out[more[i]] = more[i+1]
	}
	return out
}
