package docsite

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	gherkin "github.com/cucumber/gherkin/go/v26"
	messages "github.com/cucumber/messages/go/v21"
)

// Feature is one feature file, as a reader sees it.
type Feature struct {
	Name        string
	Description string
	File        string
	Background  []Step
	Scenarios   []*Scenario
}

// Scenario is one scenario or scenario outline.
type Scenario struct {
	ID       string // HTML anchor
	Keyword  string // "Scenario" or "Scenario Outline"
	Name     string
	Feature  *Feature
	Tags     []string // inherited ones too, with their @
	Rules    []string // rule ids, such as "AUTH-6"
	Steps    []Step
	Examples []Table
}

// Kind is "spec" or "ref".
func (s *Scenario) Kind() string {
	for _, t := range s.Tags {
		if t == "@spec" || t == "@ref" {
			return t[1:]
		}
	}
	return ""
}

// Flags are the tags that say where the scenario runs: local, slow, writes.
func (s *Scenario) Flags() []string {
	var out []string
	for _, t := range s.Tags {
		switch t {
		case "@local", "@slow", "@writes":
			out = append(out, t[1:])
		}
	}
	return out
}

// Step is one step, with its data table if it has one.
type Step struct {
	Keyword string
	Text    string
	Table   Table
}

// Table is a data table or an examples table; its first row is a header
// for examples.
type Table struct {
	Name string
	Rows [][]string
}

var ruleTag = regexp.MustCompile(`^@([A-Z]+-[0-9]+)$`)

// LoadFeatures parses every *.feature file of fsys, in file name order.
func LoadFeatures(fsys fs.FS) ([]*Feature, error) {
	var names []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && path.Ext(p) == ".feature" {
			names = append(names, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []*Feature
	for _, name := range names {
		f, err := fsys.Open(name)
		if err != nil {
			return nil, err
		}
		doc, err := gherkin.ParseGherkinDocument(f, (&messages.Incrementing{}).NewId)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", name, err)
		}
		out = append(out, feature(name, doc.Feature))
	}
	return out, nil
}

func feature(file string, f *messages.Feature) *Feature {
	feat := &Feature{Name: f.Name, Description: dedent(f.Description), File: file}
	featureTags := tagNames(f.Tags)
	var add func(children []*messages.FeatureChild, tags []string)
	add = func(children []*messages.FeatureChild, tags []string) {
		for _, c := range children {
			switch {
			case c.Background != nil:
				feat.Background = steps(c.Background.Steps)
			case c.Rule != nil:
				rc := make([]*messages.FeatureChild, len(c.Rule.Children))
				for i, r := range c.Rule.Children {
					rc[i] = &messages.FeatureChild{Background: r.Background, Scenario: r.Scenario}
				}
				add(rc, append(append([]string{}, tags...), tagNames(c.Rule.Tags)...))
			case c.Scenario != nil:
				feat.Scenarios = append(feat.Scenarios, scenario(feat, c.Scenario, tags))
			}
		}
	}
	add(f.Children, featureTags)
	return feat
}

func scenario(feat *Feature, s *messages.Scenario, inherited []string) *Scenario {
	sc := &Scenario{Keyword: s.Keyword, Name: s.Name, Feature: feat, Steps: steps(s.Steps)}
	sc.Tags = append(append([]string{}, inherited...), tagNames(s.Tags)...)
	for _, t := range sc.Tags {
		if m := ruleTag.FindStringSubmatch(t); m != nil {
			sc.Rules = append(sc.Rules, m[1])
		}
	}
	for _, ex := range s.Examples {
		t := Table{Name: ex.Name}
		if ex.TableHeader != nil {
			t.Rows = append(t.Rows, cells(ex.TableHeader))
		}
		for _, row := range ex.TableBody {
			t.Rows = append(t.Rows, cells(row))
		}
		sc.Examples = append(sc.Examples, t)
	}
	sc.ID = "scenario-" + slug(strings.TrimSuffix(feat.File, ".feature")+"-"+s.Name)
	return sc
}

func steps(in []*messages.Step) []Step {
	var out []Step
	for _, st := range in {
		s := Step{Keyword: strings.TrimSpace(st.Keyword), Text: st.Text}
		if st.DataTable != nil {
			for _, row := range st.DataTable.Rows {
				s.Table.Rows = append(s.Table.Rows, cells(row))
			}
		}
		out = append(out, s)
	}
	return out
}

func cells(row *messages.TableRow) []string {
	out := make([]string, len(row.Cells))
	for i, c := range row.Cells {
		out[i] = c.Value
	}
	return out
}

func tagNames(tags []*messages.Tag) []string {
	out := make([]string, len(tags))
	for i, t := range tags {
		out[i] = t.Name
	}
	return out
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

func slug(s string) string {
	return strings.Trim(nonWord.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// dedent removes the indentation Gherkin descriptions carry.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
