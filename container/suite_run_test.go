//go:build linux

package container

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// suiteRun is what a run of the suite wrote in conformance.json.
type suiteRun struct {
	Outcome   string         `json:"outcome"`
	Target    string         `json:"target"`
	Counts    map[string]int `json:"counts"` // of rules, by verdict
	Scenarios []scenario     `json:"scenarios"`
}

// scenario is one scenario of conformance.json, or a sequence of its
// exploration, and its verdict.
type scenario struct {
	Name         string   `json:"name"`
	Place        string   `json:"place"`
	Tags         []string `json:"tags"`
	Verdict      string   `json:"verdict"`
	NotRunReason string   `json:"notRunReason"`
}

// passed counts the scenarios that passed.
func (r suiteRun) passed() int {
	n := 0
	for _, s := range r.Scenarios {
		if s.Verdict == "passed" {
			n++
		}
	}
	return n
}

// where returns the scenarios of r that keep says.
func (r suiteRun) where(keep func(scenario) bool) []scenario {
	var out []scenario
	for _, s := range r.Scenarios {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

// sequences returns the sequences of the exploration after the scenarios.
func (r suiteRun) sequences() []scenario {
	return r.where(func(s scenario) bool { return strings.HasPrefix(s.Place, "explore:") })
}

// clock returns the scenarios tagged @clock.
func (r suiteRun) clock() []scenario {
	return r.where(func(s scenario) bool { return slices.Contains(s.Tags, "@clock") })
}

// runSuite runs image with the variables env and a folder of this test
// mounted on /reports; it expects the run to pass and to write all its
// reports there, and returns what conformance.json says.
func (p podman) runSuite(t *testing.T, image string, env ...string) suiteRun {
	t.Helper()
	reports := t.TempDir()
	// The suite runs as 65532, which must be able to write there.
	if err := os.Chmod(reports, 0o777); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	out, err := p.run(t, image, []string{"-v", reports + ":/reports"}, env)
	t.Logf("the suite's run: %s", time.Since(started).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("podman run %s %q: %v\n%s", image, env, err, out)
	}
	for _, f := range []string{"conformance.json", "junit.xml", "cucumber.json"} {
		if fi, err := os.Stat(filepath.Join(reports, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s %q wrote no %s in the mounted folder (%v):\n%s", image, env, f, err, out)
		}
	}
	b, err := os.ReadFile(filepath.Join(reports, "conformance.json"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var r suiteRun
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("conformance.json: %v", err)
	}
	if t.Failed() || r.Outcome != "passed" {
		t.Logf("%s %q:\n%s", image, env, out)
	}
	return r
}
