package ci

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"eventsvc/conformance/report"
)

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
