package ci

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"

	"eventsvc/conformance/report"
	"eventsvc/conformance/report/reporttest"
	"eventsvc/server"
	"eventsvc/server/servertest"
)

// root is the repository, where action.yml is: the action's path.
const root = ".."

// The demo credentials of servertest.DemoConfig.
var demo = map[string]string{
	"client-id": "myApp", "client-secret": "pass",
	"username": "user@email.com", "password": "user",
	"other-username": "admin@email.com", "other-password": "admin",
}

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

// expression is a GitHub Actions expression, ${{ … }}.
var expression = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// action is action.yml, as far as the test reads it.
type action struct {
	Name   string `yaml:"name"`
	Inputs map[string]struct {
		Description string `yaml:"description"`
		Required    bool   `yaml:"required"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			Name  string            `yaml:"name"`
			ID    string            `yaml:"id"`
			If    string            `yaml:"if"`
			Shell string            `yaml:"shell"`
			Run   string            `yaml:"run"`
			Uses  string            `yaml:"uses"`
			With  map[string]string `yaml:"with"`
			Env   map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

func readAction(t *testing.T) action {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" || len(a.Runs.Steps) == 0 {
		t.Fatalf("action.yml: runs.using %q with %d steps, want a composite action", a.Runs.Using, len(a.Runs.Steps))
	}
	return a
}

// runAction runs action.yml's steps as GitHub runs a composite action,
// with the inputs given (the others take their defaults) in a workspace
// of its own; a step after a failing one runs only if: always().
func runAction(t *testing.T, given map[string]string) ran {
	t.Helper()
	a := readAction(t)
	for name := range given {
		if _, ok := a.Inputs[name]; !ok {
			t.Fatalf("action.yml has no input %q", name)
		}
	}
	actionPath, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	fill := func(s string) string {
		return expression.ReplaceAllStringFunc(s, func(e string) string {
			expr := expression.FindStringSubmatch(e)[1]
			if name, ok := strings.CutPrefix(expr, "inputs."); ok {
				in, declared := a.Inputs[name]
				if !declared {
					t.Errorf("action.yml uses the input %q, which it does not declare", name)
				}
				if v, ok := given[name]; ok {
					return v
				}
				return in.Default
			}
			if expr == "github.action_path" {
				return actionPath
			}
			t.Errorf("action.yml holds the expression %q, which this test cannot fill in", e)
			return e
		})
	}
	workspace := t.TempDir()
	var result ran
	failed, ranSuite := false, false
	for _, step := range a.Runs.Steps {
		if failed && step.If != "always()" {
			continue
		}
		switch {
		case step.Run != "":
			// A secret is passed in env, which GitHub masks; never on a
			// command line it logs.
			if strings.Contains(step.Run, "inputs.") {
				t.Errorf("step %q puts an input on its command line: %q", step.Name, step.Run)
			}
			env := map[string]string{}
			for k, v := range step.Env {
				env[k] = fill(v)
			}
			result = runShell(t, step.Shell, fill(step.Run), workspace, env, true)
			ranSuite = true
			failed = failed || result.code != 0
		case strings.HasPrefix(step.Uses, "actions/upload-artifact@"):
			if step.If != "always()" {
				t.Errorf("the reports are uploaded if %q, want always()", step.If)
			}
			path := fill(step.With["path"])
			if path != fill("${{ inputs.report-dir }}") {
				t.Errorf("the artifact keeps %q, not the report folder", path)
			}
			result.reports = filepath.Join(workspace, path)
		default:
			t.Errorf("step %q: a step this test does not know how to run (uses %q)", step.Name, step.Uses)
		}
	}
	if !ranSuite {
		t.Fatal("action.yml runs no command")
	}
	if result.reports == "" {
		t.Fatal("action.yml uploads no reports")
	}
	if v := a.Outputs["exit-code"].Value; v != "${{ steps.suite.outputs.exit-code }}" {
		t.Errorf("the output exit-code is %q, want the suite step's", v)
	}
	return result
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

// TestTheActionRunsTheSuiteAndKeepsTheReports runs action.yml's commands
// in binary mode against a reference server: with the right credentials
// the suite passes, with the tags, baseline, concurrency, read-only,
// exploration time and seed given, its scenarios then an exploration;
// with a wrong client secret it does not start (exit 2), without the
// secret in its output, and both leave their reports for the upload.
func TestTheActionRunsTheSuiteAndKeepsTheReports(t *testing.T) {
	bin := conformanceBinary(t)
	target := referenceServer(t)
	baseline := filepath.Join(t.TempDir(), "expected.json")
	if err := os.WriteFile(baseline, []byte(`{"expectedFailures": [{"rule": "AUTH-6", "reason": "TICKET-12"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	inputs := with(demo, "base-url", target, "mode", "binary", "binary", bin, "tags", "@TOK-2 or @CLI-1",
		"baseline", baseline, "concurrency", "2", "read-only", "true", "report-dir", "ci-reports", "explore", "20s", "seed", "11")

	r := runAction(t, inputs)
	if r.code != 0 || r.outputs["exit-code"] != "0" {
		t.Fatalf("exit %d, output exit-code %q\n%s", r.code, r.outputs["exit-code"], r.output)
	}
	doc := readReport(t, r.reports)
	if doc.Outcome != report.OutcomePassed || doc.Tags != "@TOK-2 or @CLI-1" || !doc.ReadOnly || doc.Concurrency != 2 || doc.Target != target {
		t.Errorf("conformance.json: outcome %q, tags %q, read-only %v, concurrency %d, target %q", doc.Outcome, doc.Tags, doc.ReadOnly, doc.Concurrency, doc.Target)
	}
	if len(doc.Baseline) != 1 || doc.Baseline[0].Rule != "AUTH-6" {
		t.Errorf("conformance.json: the baseline did not reach the suite: %+v", doc.Baseline)
	}
	if !strings.Contains(doc.Selection, "explore, seed 11") || sequences(doc) == 0 || !strings.Contains(r.output, "for at most 20s") {
		t.Errorf("conformance.json: the selection %q and %d sequences; want an exploration of 20 s with seed 11 after the scenarios\n%s", doc.Selection, sequences(doc), r.output)
	}

	r = runAction(t, with(inputs, "client-secret", "wr0ng-s3cret-for-the-test"))
	if r.code != 2 || r.outputs["exit-code"] != "2" {
		t.Fatalf("a wrong client secret: exit %d, output exit-code %q, want 2\n%s", r.code, r.outputs["exit-code"], r.output)
	}
	if !strings.Contains(r.output, `refused the client "myApp"`) {
		t.Errorf("the output does not say the client was refused:\n%s", r.output)
	}
	if strings.Contains(r.output, "wr0ng-s3cret") {
		t.Errorf("the output holds the client secret:\n%s", r.output)
	}
	if doc := readReport(t, r.reports); doc.Outcome != report.OutcomeNotStarted {
		t.Errorf("conformance.json of a run that could not start: outcome %q", doc.Outcome)
	}
}

// gitlabJob is the job template of ci/gitlab/conformance.gitlab-ci.yml.
type gitlabJob struct {
	Image     string            `yaml:"image"`
	Services  []string          `yaml:"services"`
	Variables map[string]string `yaml:"variables"`
	Script    []string          `yaml:"script"`
	Artifacts struct {
		When    string   `yaml:"when"`
		Paths   []string `yaml:"paths"`
		Reports struct {
			JUnit string `yaml:"junit"`
		} `yaml:"reports"`
	} `yaml:"artifacts"`
}

func readTemplate(t *testing.T) gitlabJob {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "ci", "gitlab", "conformance.gitlab-ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]gitlabJob
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("conformance.gitlab-ci.yml: %v", err)
	}
	job, ok := doc[".eventsvc-conformance"]
	if !ok || len(job.Script) == 0 {
		t.Fatalf("conformance.gitlab-ci.yml has no job template .eventsvc-conformance with a script: %v", doc)
	}
	return job
}

// runTemplate runs the template's script as a GitLab runner does: its
// variables, then the project's (project), in the environment; each line
// in turn in one shell, stopping at the first that fails.
func runTemplate(t *testing.T, project map[string]string) ran {
	t.Helper()
	job := readTemplate(t)
	env := map[string]string{}
	for k, v := range job.Variables {
		env[k] = v
	}
	for k, v := range project {
		env[k] = v
	}
	workspace := t.TempDir()
	r := runShell(t, "sh", strings.Join(job.Script, "\n"), workspace, env, false)
	if job.Artifacts.When != "always" {
		t.Errorf("artifacts: when: %q, want always", job.Artifacts.When)
	}
	dir := env["CONFORMANCE_REPORT_DIR"]
	if job.Artifacts.Reports.JUnit != dir+"/junit.xml" || !slices.Contains(job.Artifacts.Paths, dir+"/") {
		t.Errorf("artifacts keep %v with the JUnit report %q, not the report folder %q", job.Artifacts.Paths, job.Artifacts.Reports.JUnit, dir)
	}
	r.reports = filepath.Join(workspace, dir)
	return r
}

// TestTheGitLabTemplateRunsTheSuiteAndKeepsTheReports runs the
// template's script with its variables and a project's, in binary mode,
// against a reference server: it passes with the right credentials, its
// scenarios then an exploration, and with a wrong password it does not
// start (exit 2) and leaves reports.
func TestTheGitLabTemplateRunsTheSuiteAndKeepsTheReports(t *testing.T) {
	bin := conformanceBinary(t)
	target := referenceServer(t)
	project := map[string]string{
		"BASE_URL": target, "SUITE_MODE": "binary", "SUITE_BINARY": bin, "CONFORMANCE_TAGS": "@TOK-2",
		"CONFORMANCE_CLIENT_ID": "myApp", "CONFORMANCE_CLIENT_SECRET": "pass",
		"CONFORMANCE_USERNAME": "user@email.com", "CONFORMANCE_PASSWORD": "user",
		"CONFORMANCE_OTHER_USERNAME": "admin@email.com", "CONFORMANCE_OTHER_PASSWORD": "admin",
	}
	r := runTemplate(t, project)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.output)
	}
	if doc := readReport(t, r.reports); doc.Outcome != report.OutcomePassed || doc.Tags != "@TOK-2" || sequences(doc) == 0 {
		t.Errorf("conformance.json: outcome %q, tags %q, %d sequences explored", doc.Outcome, doc.Tags, sequences(doc))
	}

	r = runTemplate(t, with(project, "CONFORMANCE_PASSWORD", "wr0ng-passw0rd-for-the-test"))
	if r.code != 2 || !strings.Contains(r.output, "refused the user") {
		t.Fatalf("a wrong password: exit %d, want 2, saying the user was refused\n%s", r.code, r.output)
	}
	if strings.Contains(r.output, "wr0ng-passw0rd") {
		t.Errorf("the output holds the password:\n%s", r.output)
	}
	if doc := readReport(t, r.reports); doc.Outcome != report.OutcomeNotStarted {
		t.Errorf("conformance.json of a run that could not start: outcome %q", doc.Outcome)
	}
}

// TestTheGitLabTemplateRunsTheActionsScript: the template's script is
// ci/conformance.sh's, from `set -eu` on, so that the test of one is the
// test of both.
func TestTheGitLabTemplateRunsTheActionsScript(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "ci", "conformance.sh"))
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(b), "\nset -eu\n")
	if !ok {
		t.Fatal("ci/conformance.sh has no line set -eu")
	}
	if got, want := strings.Join(readTemplate(t).Script, "\n"), "set -eu\n"+body; got != want {
		t.Errorf("the GitLab template's script is not ci/conformance.sh's:\n--- template\n%s\n--- script\n%s", got, want)
	}
}

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
