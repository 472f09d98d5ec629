package features

import (
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

const tokensFeature = `@spec
Feature: Tokens
    The token endpoint gives tokens
  to clients.

  Background:
    Given the demo client

  Scenario: A token for a user
    When the user asks for a token with
      | grant_type | password |
    Then the answer is 200

  @TOK-3
  Rule: Every parameter is required

    Background:
      Given the user's password

    @writes
    Scenario Outline: Without <parameter> there is no token
      When the user asks for a token without <parameter>
      Then the answer is <status>

      @TOK-11
      Examples: the user's
        | parameter | status |
        | username  | 400    |
        | password  | 400    |

      Examples:
        | parameter | status |
        | grant     | 401    |
`

func load(t *testing.T, files fs.FS) *Set {
	t.Helper()
	set, err := Load(files)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func TestLoadReadsTheParseTree(t *testing.T) {
	set := load(t, fstest.MapFS{"tokens.feature": {Data: []byte(tokensFeature)}})
	if len(set.Features) != 1 {
		t.Fatalf("%d features, want 1", len(set.Features))
	}
	f := set.Features[0]
	if f.File != "tokens.feature" || f.Name != "Tokens" || f.Description != "The token endpoint gives tokens\nto clients." {
		t.Errorf("feature %q (%s): %q", f.Name, f.File, f.Description)
	}
	demo := Step{Keyword: "Given", Text: "the demo client"}
	if !reflect.DeepEqual(f.Background, []Step{demo}) {
		t.Errorf("feature background %+v", f.Background)
	}
	if len(f.Scenarios) != 2 {
		t.Fatalf("%d scenarios, want 2", len(f.Scenarios))
	}
	plain, outline := f.Scenarios[0], f.Scenarios[1]
	if plain.Feature != f || plain.Keyword != "Scenario" || plain.Rule != "" {
		t.Errorf("scenario %+v", plain)
	}
	want := []Step{
		{Keyword: "When", Text: "the user asks for a token with", Table: Table{Rows: [][]string{{"grant_type", "password"}}}},
		{Keyword: "Then", Text: "the answer is 200"},
	}
	if !reflect.DeepEqual(plain.Steps, want) {
		t.Errorf("steps %+v", plain.Steps)
	}
	if !reflect.DeepEqual(plain.Tags, Tags{"@spec"}) || !reflect.DeepEqual(plain.Background, []Step{demo}) {
		t.Errorf("scenario tags %v, background %+v", plain.Tags, plain.Background)
	}

	if outline.Keyword != "Scenario Outline" || outline.Name != "Without <parameter> there is no token" || outline.Rule != "Every parameter is required" {
		t.Errorf("outline %q %q in rule %q", outline.Keyword, outline.Name, outline.Rule)
	}
	if !reflect.DeepEqual(outline.Tags, Tags{"@spec", "@TOK-3", "@writes"}) {
		t.Errorf("outline tags %v, want the feature's, the Rule block's and its own", outline.Tags)
	}
	if want := []Step{demo, {Keyword: "Given", Text: "the user's password"}}; !reflect.DeepEqual(outline.Background, want) {
		t.Errorf("outline background %+v, want the feature's and the Rule block's", outline.Background)
	}
	examples := []Table{
		{Name: "the user's", Tags: Tags{"@TOK-11"}, Rows: [][]string{{"parameter", "status"}, {"username", "400"}, {"password", "400"}}},
		{Name: "", Tags: Tags{}, Rows: [][]string{{"parameter", "status"}, {"grant", "401"}}},
	}
	if !reflect.DeepEqual(outline.Examples, examples) {
		t.Errorf("examples %+v", outline.Examples)
	}
	if got := set.Scenarios(); !reflect.DeepEqual(got, f.Scenarios) {
		t.Errorf("Set.Scenarios %v", got)
	}
}

func TestLoadExpandsOutlinesIntoOnePicklePerExampleRow(t *testing.T) {
	set := load(t, fstest.MapFS{"tokens.feature": {Data: []byte(tokensFeature)}})
	f := set.Features[0]
	pickles := set.Pickles()
	if !reflect.DeepEqual(pickles, f.Pickles) {
		t.Errorf("Set.Pickles differs from the feature's")
	}
	type view struct {
		name  string
		tags  Tags
		steps []string
	}
	want := []view{
		{"A token for a user", Tags{"@spec"}, []string{"the demo client", "the user asks for a token with", "the answer is 200"}},
		{"Without username there is no token", Tags{"@spec", "@TOK-3", "@writes", "@TOK-11"},
			[]string{"the demo client", "the user's password", "the user asks for a token without username", "the answer is 400"}},
		{"Without password there is no token", Tags{"@spec", "@TOK-3", "@writes", "@TOK-11"},
			[]string{"the demo client", "the user's password", "the user asks for a token without password", "the answer is 400"}},
		{"Without grant there is no token", Tags{"@spec", "@TOK-3", "@writes"},
			[]string{"the demo client", "the user's password", "the user asks for a token without grant", "the answer is 401"}},
	}
	if len(pickles) != len(want) {
		t.Fatalf("%d pickles, want %d", len(pickles), len(want))
	}
	for i, p := range pickles {
		if got := (view{p.Name, p.Tags, p.Steps}); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("pickle %d:\n%+v, want\n%+v", i, got, want[i])
		}
		wantScenario := f.Scenarios[min(i, 1)]
		if p.Feature != f || p.Scenario != wantScenario {
			t.Errorf("pickle %d: feature %p, scenario %q", i, p.Feature, p.Scenario.Name)
		}
	}
}

func TestLoadReadsFeatureFilesInNameOrderAndNothingElse(t *testing.T) {
	set := load(t, fstest.MapFS{
		"b.feature":       {Data: []byte("Feature: B\n  Scenario: b\n    Given b\n")},
		"a.feature":       {Data: []byte("Feature: A\n  Scenario: a\n    Given a\n")},
		"more/c.feature":  {Data: []byte("Feature: C\n  Scenario: c\n    Given c\n")},
		"notes.md":        {Data: []byte("Feature: not one\n")},
		"a.feature.orig":  {Data: []byte("not Gherkin")},
		"empty.directory": {Mode: fs.ModeDir | 0o755},
	})
	var files []string
	for _, f := range set.Features {
		files = append(files, f.File)
	}
	if want := []string{"a.feature", "b.feature", "more/c.feature"}; !reflect.DeepEqual(files, want) {
		t.Errorf("files %v, want %v", files, want)
	}
}

func TestLoadRefusesAFileItCannotParse(t *testing.T) {
	_, err := Load(fstest.MapFS{
		"good.feature": {Data: []byte("Feature: good\n  Scenario: s\n    Given a\n")},
		"bad.feature":  {Data: []byte("Feature: bad\n  Scenario: s\n    Given a\n  | a | b\n  Nonsense line\n")},
	})
	if err == nil || !strings.Contains(err.Error(), "parse bad.feature") {
		t.Errorf("error %v, want one naming bad.feature", err)
	}
	if _, err := Load(fstest.MapFS{"empty.feature": {Data: []byte("# only a comment\n")}}); err == nil {
		t.Error("a file without a feature loads")
	}
}

// TestLoadReadsTheSpecification: the embedded features load, and every
// pickle comes from a scenario of the parse tree, one per example row.
func TestLoadReadsTheSpecification(t *testing.T) {
	set := load(t, FS)
	if len(set.Features) == 0 {
		t.Fatal("no features")
	}
	rows := 0
	for _, sc := range set.Scenarios() {
		if len(sc.Examples) == 0 {
			rows++
		}
		for _, ex := range sc.Examples {
			rows += len(ex.Rows) - 1
		}
	}
	for _, p := range set.Pickles() {
		if p.Scenario == nil {
			t.Errorf("%s: pickle %q comes from no scenario", p.Feature.File, p.Name)
		}
	}
	if got := len(set.Pickles()); got != rows {
		t.Errorf("%d pickles, want %d (one per scenario and example row)", got, rows)
	}
}

// TestScenarioRulesIncludeThoseOfItsExamples: an outline whose examples
// tables name the rules checks each of them, and leads the first rule of
// its own tags and of each table.
func TestScenarioRulesIncludeThoseOfItsExamples(t *testing.T) {
	set := load(t, fstest.MapFS{"f.feature": {Data: []byte(`Feature: F
  @spec @A-1 @B-1
  Scenario Outline: Many cases <x>
    When <x>
    Then it holds

    @C-1 @D-1
    Examples: first
      | x |
      | a |

    @E-1
    Examples: second
      | x |
      | b |
`)}})
	sc := set.Scenarios()[0]
	if got, want := sc.Rules(), []string{"A-1", "B-1", "C-1", "D-1", "E-1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Rules() = %v, want %v", got, want)
	}
	for id, want := range map[string]bool{"A-1": true, "B-1": false, "C-1": true, "D-1": false, "E-1": true, "F-1": false} {
		if got := sc.Leads(id); got != want {
			t.Errorf("Leads(%s) = %v, want %v", id, got, want)
		}
	}
}
