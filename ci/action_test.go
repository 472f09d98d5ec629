package ci

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"eventsvc/conformance/report"
)

// The demo credentials of servertest.DemoConfig.
var demo = map[string]string{
	"client-id": "myApp", "client-secret": "pass",
	"username": "user@email.com", "password": "user",
	"other-username": "admin@email.com", "other-password": "admin",
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
