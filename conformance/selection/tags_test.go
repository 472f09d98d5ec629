package selection

import (
	"errors"
	"strings"
	"testing"

	"eventsvc/docs"
	"eventsvc/features"
)

func TestTagExpressionsInBothSyntaxes(t *testing.T) {
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
		{"@spec and not @local", true},
		{"@spec and not @writes", false},
		{"@ref or @AUTH-6", true},
		{"not (@ref or @writes)", false},
		{"@spec && !(@local || @slow)", true},
		{"(@ref or @spec) and (@AUTH-6 or @API-1)", true},
		// godog's "," binds tighter than "&&"; Cucumber's "and" tighter than "or".
		{"@ref,@spec && @API-1", false},
		{"@ref or @spec and @AUTH-6", true},
		{"@ref or @spec and @API-1", false},
		{"NOT @ref AND @spec", true},
	}
	for _, tt := range tests {
		e, err := ParseTags(tt.expr)
		if err != nil {
			t.Errorf("ParseTags(%q): %v", tt.expr, err)
			continue
		}
		if got := e.Match(tags); got != tt.want {
			t.Errorf("%q matches %v: %v, want %v", tt.expr, tags, got, tt.want)
		}
	}
}

func TestTagExpressionsThatDoNotParseAreRefusedWithWhere(t *testing.T) {
	tests := map[string]string{
		"@spec &&":          `"&&" at the end has nothing after it`,
		"&& @spec":          `"&&" where a tag was expected`,
		"(@spec":            `a "(" without its ")"`,
		"@spec)":            `a ")" without its "("`,
		"spec":              `"spec" is not a tag: tags start with @ (@spec)`,
		"@spec @local":      `"@local" follows a tag without an operator`,
		"@spec & @local":    `"&" at 7: write "&&"`,
		"@spec and not":     `"not" at the end has nothing after it`,
		"@spec, ,@ref":      `"," where a tag was expected`,
		"~":                 `"~" at the end has nothing after it`,
		"@spec and (@ref)x": `"x" is not a tag`,
	}
	for expr, want := range tests {
		_, err := ParseTags(expr)
		if !errors.Is(err, ErrTags) || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseTags(%q) = %v, want an error saying %s", expr, err, want)
		}
	}
}

// godogMatch is godog v0.15's own tag filter (internal/tags), which the
// runner cannot call: the expression it is given must select the same
// scenarios as the runner's.
func godogMatch(filter string, tags []string) bool {
	has := func(tag string) bool {
		for _, t := range tags {
			if strings.ReplaceAll(t, "@", "") == tag {
				return true
			}
		}
		return false
	}
	ok := true
	for _, andTags := range strings.Split(filter, "&&") {
		okComma := false
		for _, tag := range strings.Split(andTags, ",") {
			tag = strings.ReplaceAll(strings.TrimSpace(tag), "@", "")
			okComma = has(tag) || okComma
			if tag[0] == '~' {
				okComma = !has(tag[1:]) || okComma
			}
		}
		ok = ok && okComma
	}
	return ok
}

func TestGodogIsGivenAnExpressionThatSelectsTheSameScenarios(t *testing.T) {
	set, err := features.Load(features.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, expr := range []string{
		RemoteTags, InProcessTags, "@spec and not (@local or @slow)", "(@ref or @spec) and (@AUTH-6 or @API-1)",
		"not (@spec and @writes)", "@ref or @spec and @TOK-3", "not (@TOK-1 or @TOK-3) and not @local", "@spec,@ref && ~@local",
	} {
		e, err := ParseTags(expr)
		if err != nil {
			t.Fatal(err)
		}
		g, err := e.Godog()
		if err != nil {
			t.Fatal(err)
		}
		selected := 0
		for _, p := range set.Pickles() {
			if e.Match(p.Tags) != godogMatch(g, p.Tags) {
				t.Errorf("%q as %q: godog and the runner disagree on %s %v", expr, g, p.Name, p.Tags)
			}
			if e.Match(p.Tags) {
				selected++
			}
		}
		if selected == 0 || selected == len(set.Pickles()) {
			t.Errorf("%q selects %d of %d scenarios: not a telling case", expr, selected, len(set.Pickles()))
		}
	}
}

func TestTagsNamingNothingKnownAreRefusedWithAHint(t *testing.T) {
	set, err := features.Load(features.FS)
	if err != nil {
		t.Fatal(err)
	}
	plan := Plan(set)
	catalogue, err := docs.RuleCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]string{
		"@spce && ~@local": "did you mean @spec?",
		"@AUTH-66":         "@AUTH-66, which is not a rule of docs/rules.md (its AUTH rules run from AUTH-1 to",
		"@auth-6":          "rule ids are upper case (@AUTH-6)",
		"@XYZ-1":           "there is no section XYZ",
		"@nonsense":        "which no scenario has",
	}
	for expr, want := range tests {
		e, err := ParseTags(expr)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckTags(e, plan, catalogue); !errors.Is(err, ErrTags) || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckTags(%q) = %v, want it to say %q", expr, err, want)
		}
	}
	for _, ok := range []string{RemoteTags, "@AUTH-6 or @writes", "@TOK-3 and @local"} {
		e, _ := ParseTags(ok)
		if err := CheckTags(e, plan, catalogue); err != nil {
			t.Errorf("CheckTags(%q) = %v", ok, err)
		}
	}
}
