package conformance

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"

	gherkin "github.com/cucumber/gherkin/go/v26"
	messages "github.com/cucumber/messages/go/v21"
)

// Scenario is one scenario of the features, or one example row of a
// scenario outline, with every tag it inherits.
type Scenario struct {
	Feature string   // the feature's name
	Name    string   // the scenario's name
	URI     string   // the feature file
	Tags    []string // with their @, such as "@spec", "@AUTH-6"
	Steps   []string // the text of each step, background steps first
}

var ruleTag = regexp.MustCompile(`^@([A-Z]+-[0-9]+)$`)

// Rules returns the rule ids the scenario is tagged with, such as "AUTH-6".
func (s Scenario) Rules() []string {
	var ids []string
	for _, t := range s.Tags {
		if m := ruleTag.FindStringSubmatch(t); m != nil {
			ids = append(ids, m[1])
		}
	}
	return ids
}

// Has reports whether the scenario carries tag, given with its @.
func (s Scenario) Has(tag string) bool {
	for _, t := range s.Tags {
		if t == tag {
			return true
		}
	}
	return false
}

// LoadScenarios parses every *.feature file of fsys.
func LoadScenarios(fsys fs.FS) ([]Scenario, error) {
	var out []Scenario
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".feature" {
			return err
		}
		f, err := fsys.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		ids := (&messages.Incrementing{}).NewId
		doc, err := gherkin.ParseGherkinDocument(f, ids)
		if err != nil {
			return fmt.Errorf("parse %s: %w", p, err)
		}
		for _, pickle := range gherkin.Pickles(*doc, p, ids) {
			sc := Scenario{Feature: doc.Feature.Name, Name: pickle.Name, URI: p}
			for _, t := range pickle.Tags {
				sc.Tags = append(sc.Tags, t.Name)
			}
			for _, st := range pickle.Steps {
				sc.Steps = append(sc.Steps, st.Text)
			}
			out = append(out, sc)
		}
		return nil
	})
	return out, err
}

// MatchTags reports whether tags satisfy a godog v0.15 tag expression, with
// the same behat-style rules godog applies: "&&" joins terms that must all
// hold, "," joins alternatives, "~" negates; no parentheses.
func MatchTags(expr string, tags []string) bool {
	if strings.TrimSpace(expr) == "" {
		return true
	}
	has := func(tag string) bool {
		for _, t := range tags {
			if strings.TrimPrefix(t, "@") == tag {
				return true
			}
		}
		return false
	}
	for _, term := range strings.Split(expr, "&&") {
		ok := false
		for _, alt := range strings.Split(term, ",") {
			alt = strings.ReplaceAll(strings.TrimSpace(alt), "@", "")
			if neg, found := strings.CutPrefix(alt, "~"); found {
				ok = ok || !has(neg)
			} else {
				ok = ok || has(alt)
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
