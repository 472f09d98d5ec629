package conformance

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSummarizeGivesAVerdictPerRule(t *testing.T) {
	report := `[{"elements": [
	  {"name": "a", "tags": [{"name": "@spec"}, {"name": "@AUTH-6"}], "steps": [{"result": {"status": "passed"}}, {"result": {"status": "failed"}}]},
	  {"name": "b", "tags": [{"name": "@spec"}, {"name": "@AUTH-6"}, {"name": "@API-1"}], "steps": [{"result": {"status": "passed"}}]},
	  {"name": "c", "tags": [{"name": "@ref"}, {"name": "@TOK-11"}], "steps": [{"result": {"status": "undefined"}}]},
	  {"name": "d", "tags": [{"name": "@spec"}, {"name": "@SVC-1"}], "steps": []}
	]}]`
	path := filepath.Join(t.TempDir(), "cucumber.json")
	if err := os.WriteFile(path, []byte(report), 0o600); err != nil {
		t.Fatal(err)
	}
	results, err := Summarize(path)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range results {
		got[r.ID] = r.Verdict
	}
	want := map[string]string{"AUTH-6": Failed, "API-1": Passed, "TOK-11": Failed, "SVC-1": NotRun, "LIM-2": NotRun}
	for id, verdict := range want {
		if got[id] != verdict {
			t.Errorf("%s: %q, want %q", id, got[id], verdict)
		}
	}
}
