package suite

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"eventsvc/features"
)

// TestTheReadmesOneScenarioExampleRunsOneScenario: the README's
// `go test ./suite -run 'TestConformance/…'` selects, as go test
// matches subtest names, exactly one scenario.
func TestTheReadmesOneScenarioExampleRunsOneScenario(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`go test ./suite -run '([^']+)'`).FindStringSubmatch(string(b))
	if m == nil {
		t.Fatal("the README has no one-scenario example")
	}
	top, sub, ok := strings.Cut(m[1], "/")
	if !ok || !regexp.MustCompile(top).MatchString("TestConformance") {
		t.Fatalf("the example %q does not name a subtest of TestConformance", m[1])
	}
	re, err := regexp.Compile(sub)
	if err != nil {
		t.Fatal(err)
	}
	set, err := features.Load(features.FS)
	if err != nil {
		t.Fatal(err)
	}
	var matched []string
	for _, p := range set.Pickles() {
		if p.Tags.Has("@slow") {
			continue // TestConformance leaves them out
		}
		if name := strings.ReplaceAll(p.Name, " ", "_"); re.MatchString(name) {
			matched = append(matched, p.Name)
		}
	}
	if len(matched) != 1 {
		t.Errorf("the README's example %q runs %d scenarios: %q", m[1], len(matched), matched)
	}
}
