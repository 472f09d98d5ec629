package suite

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"eventsvc/docs"
	"eventsvc/features"
)

// writingStep matches the steps that create or change events on the target:
// a scenario with one must be tagged @writes, so -read-only leaves it out.
// A request that the target must refuse does not count, nor do the steps
// that create what they need only when the run may write (the user manages
// an event, the event list has more than one page).
var writingStep = regexp.MustCompile(`^the user (has created|creates|updates)|^the user sends (a new event|the body|an update)`)

// TestEveryRuleHasAScenarioAndEveryScenarioARule keeps the features and the
// rule catalogue (docs/rules.md) in step.
func TestEveryRuleHasAScenarioAndEveryScenarioARule(t *testing.T) {
	set, err := features.Load(features.FS)
	if err != nil {
		t.Fatal(err)
	}
	catalogue, err := docs.RuleCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	checked := map[string]int{}
	for _, sc := range set.Pickles() {
		where := sc.Feature.File + ": " + sc.Name
		ids := sc.Tags.Rules()
		if len(ids) == 0 {
			t.Errorf("%s: no rule tag", where)
		}
		spec, ref := sc.Tags.Has("@spec"), sc.Tags.Has("@ref")
		if spec == ref {
			t.Errorf("%s: needs exactly one of @spec and @ref", where)
		}
		for _, id := range ids {
			r, ok := catalogue.Rule(id)
			if !ok {
				t.Errorf("%s: tag @%s names no rule of docs/rules.md", where, id)
				continue
			}
			if spec && r.Kind == docs.Ref {
				t.Errorf("%s: a @spec scenario cannot check %s, a reference choice", where, id)
			}
			checked[id]++
		}
		if !sc.Tags.Has("@writes") && !sc.Tags.Has("@local") {
			for _, step := range sc.Steps {
				if writingStep.MatchString(step) {
					t.Errorf("%s: the step %q writes to the target, but the scenario is not tagged @writes", where, step)
				}
			}
		}
		if sc.Tags.Has("@local") && sc.Tags.Has("@slow") {
			t.Errorf("%s: @local and @slow together never run", where)
		}
		if sc.Tags.Has("@clock") && !sc.Tags.Has("@local") {
			t.Errorf("%s: @clock marks a @local scenario that needs only the clock; this one is not @local", where)
		}
	}
	for _, r := range catalogue.Rules() {
		if checked[r.ID] == 0 {
			t.Errorf("rule %s has no scenario", r.ID)
		}
	}
}

// TestRuleCatalogueMatchesTheSpecification compares docs/rules.md with the
// specification's numbered rules: with the copy in docs/spec, and with
// ../shared/spec/RULES.md, where new rules arrive, when it stands beside the
// checkout (in CI and in development).
func TestRuleCatalogueMatchesTheSpecification(t *testing.T) {
	ours, err := docs.RuleCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	for name, spec := range map[string]string{
		"copy":   filepath.Join("..", "docs", "spec", "RULES.md"),
		"shared": filepath.Join("..", "..", "shared", "spec", "RULES.md"),
	} {
		t.Run(name, func(t *testing.T) {
			text, err := os.ReadFile(spec)
			if errors.Is(err, fs.ErrNotExist) {
				t.Skipf("%s is not beside this checkout", spec)
			} else if err != nil {
				t.Fatal(err)
			}
			theirs, err := docs.ParseCatalogue(string(text))
			if err != nil {
				t.Fatalf("read %s: %v", spec, err)
			}
			for _, r := range theirs.Rules() {
				if mine, ok := ours.Rule(r.ID); !ok {
					t.Errorf("%s has %s (%s); docs/rules.md does not", spec, r.ID, r.Kind)
				} else if mine.Kind != r.Kind {
					t.Errorf("%s has %s (%s); docs/rules.md has it as %s", spec, r.ID, r.Kind, mine.Kind)
				}
			}
			for _, r := range ours.Rules() {
				if _, ok := theirs.Rule(r.ID); !ok {
					t.Errorf("docs/rules.md has %s, which %s does not", r.ID, spec)
				}
			}
		})
	}
}

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
