package conformance

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"eventsvc/docs"
	"eventsvc/features"
)

// writingStep matches the steps that create or change events on the target:
// a scenario with one must be tagged @writes, so -read-only leaves it out.
// A request that the target must refuse does not count.
var writingStep = regexp.MustCompile(`^the user (has created|creates|updates)|^the user sends (a new event|the body|an update)|^the event list has more than one page`)

// TestEveryRuleHasAScenarioAndEveryScenarioARule keeps the features and the
// rule catalogue (docs/rules.md) in step.
func TestEveryRuleHasAScenarioAndEveryScenarioARule(t *testing.T) {
	scenarios, err := LoadScenarios(features.FS)
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]docs.Rule{}
	for _, r := range docs.Rules() {
		rules[r.ID] = r
	}
	if len(rules) == 0 {
		t.Fatal("the rule catalogue lists no rules")
	}
	checked := map[string]int{}
	for _, sc := range scenarios {
		where := sc.URI + ": " + sc.Name
		ids := sc.Rules()
		if len(ids) == 0 {
			t.Errorf("%s: no rule tag", where)
		}
		spec, ref := sc.Has("@spec"), sc.Has("@ref")
		if spec == ref {
			t.Errorf("%s: needs exactly one of @spec and @ref", where)
		}
		for _, id := range ids {
			r, ok := rules[id]
			if !ok {
				t.Errorf("%s: tag @%s names no rule of docs/rules.md", where, id)
				continue
			}
			if spec && r.Kind == "ref" {
				t.Errorf("%s: a @spec scenario cannot check %s, a reference choice", where, id)
			}
			checked[id]++
		}
		if !sc.Has("@writes") && !sc.Has("@local") {
			for _, step := range sc.Steps {
				if writingStep.MatchString(step) {
					t.Errorf("%s: the step %q writes to the target, but the scenario is not tagged @writes", where, step)
				}
			}
		}
		if sc.Has("@local") && sc.Has("@slow") {
			t.Errorf("%s: @local and @slow together never run", where)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(rules)) {
		if checked[id] == 0 {
			t.Errorf("rule %s has no scenario", id)
		}
	}
}

func TestMatchTagsFollowsGodog(t *testing.T) {
	tags := []string{"@spec", "@AUTH-6", "@writes"}
	tests := []struct {
		expr string
		want bool
	}{
		{"", true},
		{"@spec", true},
		{"@ref", false},
		{"@spec && ~@local && ~@slow", true},
		{"@spec && ~@writes", false},
		{"@ref,@AUTH-6", true},
		{"~@spec", false},
		{"@ref,~@local", true},
	}
	for _, tt := range tests {
		if got := MatchTags(tt.expr, tags); got != tt.want {
			t.Errorf("MatchTags(%q) = %v, want %v", tt.expr, got, tt.want)
		}
	}
}

// TestRuleCatalogueMatchesTheSpecification compares docs/rules.md with
// the specification's RULES.md, which stands beside the checkout in CI and
// in development (../shared/spec).
func TestRuleCatalogueMatchesTheSpecification(t *testing.T) {
	rules := docs.Rules()
	ours := map[string]string{}
	for _, r := range rules {
		if strings.TrimSpace(r.Statement) == "" {
			t.Errorf("rule %s has no statement", r.ID)
		}
		ours[r.ID] = r.Kind
	}
	spec, err := os.ReadFile(filepath.Join("..", "..", "shared", "spec", "RULES.md"))
	if errors.Is(err, fs.ErrNotExist) {
		t.Skip("../shared/spec/RULES.md is not beside this checkout")
	} else if err != nil {
		t.Fatal(err)
	}
	theirs := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^\| ([A-Z]+-[0-9]+) \| (spec|ref) \|`).FindAllStringSubmatch(string(spec), -1) {
		theirs[m[1]] = m[2]
	}
	for id, kind := range theirs {
		if ours[id] != kind {
			t.Errorf("RULES.md has %s (%s); docs/rules.md has %q", id, kind, ours[id])
		}
	}
	for id := range ours {
		if _, ok := theirs[id]; !ok {
			t.Errorf("docs/rules.md has %s, which RULES.md does not", id)
		}
	}
}
