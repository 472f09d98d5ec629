package features

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	gherkin "github.com/cucumber/gherkin/go/v26"
	messages "github.com/cucumber/messages/go/v21"
)

// Set is the feature files of a folder, read once in both of the views
// their readers need: the parse tree, as a reviewer reads it (Features, and
// each feature's Scenarios), and the pickles, as godog runs them (Pickles).
type Set struct {
	Features []*Feature // in file name order
}

// Feature is one feature file.
type Feature struct {
	File        string // its path in the folder, such as "tokens.feature"
	Name        string
	Description string // without the indentation of the file
	Tags        Tags   // the feature's own
	Background  []Step // the feature's own, not a Rule block's
	Scenarios   []*Scenario
	Pickles     []*Pickle
}

// Scenario is one scenario or scenario outline of the parse tree.
type Scenario struct {
	Feature *Feature
	Keyword string // "Scenario" or "Scenario Outline", as written
	Name    string
	// Rule is the name of the Rule block it is in; empty outside one.
	Rule string
	// Tags are the feature's, the Rule block's and its own; an outline's
	// examples tables carry their own.
	Tags Tags
	// Background is the background steps it runs after: the feature's, then
	// its Rule block's.
	Background []Step
	Steps      []Step
	Examples   []Table
}

// Rules returns the ids of the rules the scenario checks: those of its own
// tags, then those its examples tables add.
func (s *Scenario) Rules() []string {
	all := append(Tags{}, s.Tags...)
	for _, t := range s.Examples {
		all = append(all, t.Tags...)
	}
	return all.Rules()
}

// Leads reports whether the scenario is one of the main checks of rule id:
// id is the first rule of its own tags or of one of its examples tables.
// Elsewhere it only touches the rule.
func (s *Scenario) Leads(id string) bool {
	for _, tags := range append([]Tags{s.Tags}, examplesTags(s.Examples)...) {
		if rules := tags.Rules(); len(rules) > 0 && rules[0] == id {
			return true
		}
	}
	return false
}

func examplesTags(tables []Table) []Tags {
	var out []Tags
	for _, t := range tables {
		out = append(out, t.Tags)
	}
	return out
}

// Step is one step of a scenario or a background, with its data table if
// it has one.
type Step struct {
	Keyword string // such as "Given", without blanks
	Text    string
	Table   Table // no rows without a data table
}

// Table is a step's data table or an outline's examples table; the first
// row of an examples table is its header.
type Table struct {
	Name string // an examples table's name
	Tags Tags   // an examples table's own tags
	Rows [][]string
}

// Pickle is what godog runs: a scenario, or one example row of an outline,
// with its placeholders filled in.
type Pickle struct {
	Feature  *Feature
	Scenario *Scenario // the scenario or outline of the parse tree it comes from
	Name     string
	Tags     Tags     // every tag it inherits: feature, Rule block, scenario, examples table
	Steps    []string // the text of each step, background steps first
	// Line is the line of its scenario, or of its example row;
	// ScenarioLine the line of its scenario or outline, which godog
	// selects by.
	Line, ScenarioLine int
	// Row is its example row's values, each "header: value"; nil for a
	// scenario.
	Row []string
	// Written are its steps as written, in the order of Steps.
	Written []WrittenStep
}

// WrittenStep is a step of a pickle as its file writes it.
type WrittenStep struct {
	Keyword string // such as "Given", without blanks
	Line    int
	// Arranges is true for a step that sets the scene (Given, and an And
	// or But after one).
	Arranges bool
}

// Load parses every *.feature file of fsys, in file name order, such as
// Load(FS) for the embedded specification.
func Load(fsys fs.FS) (*Set, error) {
	set := &Set{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".feature" {
			return err
		}
		f, err := loadFile(fsys, p)
		if err != nil {
			return err
		}
		set.Features = append(set.Features, f)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load the features: %w", err)
	}
	return set, nil
}

// Scenarios returns the scenarios and outlines of every feature, in order.
func (s *Set) Scenarios() []*Scenario {
	var out []*Scenario
	for _, f := range s.Features {
		out = append(out, f.Scenarios...)
	}
	return out
}

// Pickles returns the pickles of every feature, in order.
func (s *Set) Pickles() []*Pickle {
	var out []*Pickle
	for _, f := range s.Features {
		out = append(out, f.Pickles...)
	}
	return out
}

// loadFile parses one feature file into both views.
func loadFile(fsys fs.FS, name string) (*Feature, error) {
	r, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	ids := (&messages.Incrementing{}).NewId
	doc, err := gherkin.ParseGherkinDocument(r, ids)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", name, err)
	}
	if doc.Feature == nil {
		return nil, fmt.Errorf("parse %s: no feature", name)
	}
	f := &Feature{
		File:        name,
		Name:        doc.Feature.Name,
		Description: dedent(doc.Feature.Description),
		Tags:        tagNames(doc.Feature.Tags),
	}
	byID := map[string]*Scenario{} // AST node id → scenario, for the pickles
	at := nodes{line: map[string]int{}, keyword: map[string]string{}, row: map[string][]string{}}
	add := func(s *messages.Scenario, rule string, tags Tags, background []Step) {
		at.scenario(s)
		sc := &Scenario{
			Feature:    f,
			Keyword:    s.Keyword,
			Name:       s.Name,
			Rule:       rule,
			Tags:       append(append(Tags{}, tags...), tagNames(s.Tags)...),
			Background: background,
			Steps:      steps(s.Steps),
		}
		for _, ex := range s.Examples {
			t := Table{Name: ex.Name, Tags: tagNames(ex.Tags)}
			if ex.TableHeader != nil {
				t.Rows = append(t.Rows, cells(ex.TableHeader))
			}
			for _, row := range ex.TableBody {
				t.Rows = append(t.Rows, cells(row))
			}
			sc.Examples = append(sc.Examples, t)
		}
		f.Scenarios = append(f.Scenarios, sc)
		byID[s.Id] = sc
	}
	for _, c := range doc.Feature.Children {
		switch {
		case c.Background != nil:
			at.steps(c.Background.Steps)
			f.Background = steps(c.Background.Steps)
		case c.Scenario != nil:
			add(c.Scenario, "", f.Tags, f.Background)
		case c.Rule != nil:
			tags := append(append(Tags{}, f.Tags...), tagNames(c.Rule.Tags)...)
			background := f.Background
			for _, rc := range c.Rule.Children {
				switch {
				case rc.Background != nil:
					at.steps(rc.Background.Steps)
					background = append(append([]Step{}, f.Background...), steps(rc.Background.Steps)...)
				case rc.Scenario != nil:
					add(rc.Scenario, c.Rule.Name, tags, background)
				}
			}
		}
	}
	for _, p := range gherkin.Pickles(*doc, name, ids) {
		f.Pickles = append(f.Pickles, at.pickle(f, byID, p))
	}
	return f, nil
}

// nodes are the lines of the nodes of a parse tree, by id: of each
// scenario, step and example row, with each step's keyword and each
// row's values.
type nodes struct {
	line    map[string]int
	keyword map[string]string
	row     map[string][]string
}

// scenario notes the lines of s, its steps and its example rows.
func (n nodes) scenario(s *messages.Scenario) {
	n.line[s.Id] = int(s.Location.Line)
	n.steps(s.Steps)
	for _, ex := range s.Examples {
		for _, row := range ex.TableBody {
			n.line[row.Id] = int(row.Location.Line)
			var vals []string
			for i, c := range row.Cells {
				h := ""
				if ex.TableHeader != nil && i < len(ex.TableHeader.Cells) {
					h = ex.TableHeader.Cells[i].Value
				}
				vals = append(vals, h+": "+c.Value)
			}
			n.row[row.Id] = vals
		}
	}
}

// steps notes the lines and keywords of steps.
func (n nodes) steps(steps []*messages.Step) {
	for _, st := range steps {
		n.line[st.Id], n.keyword[st.Id] = int(st.Location.Line), strings.TrimSpace(st.Keyword)
	}
}

// pickle is p of feature f, its scenario found in byID, with the lines
// its nodes are written at.
func (n nodes) pickle(f *Feature, byID map[string]*Scenario, p *messages.Pickle) *Pickle {
	pk := &Pickle{Feature: f, Name: p.Name}
	if len(p.AstNodeIds) > 0 {
		pk.Scenario = byID[p.AstNodeIds[0]]
		pk.Line = n.line[p.AstNodeIds[0]]
		pk.ScenarioLine = pk.Line
	}
	if len(p.AstNodeIds) > 1 {
		row := p.AstNodeIds[len(p.AstNodeIds)-1]
		pk.Line, pk.Row = n.line[row], n.row[row]
	}
	for _, t := range p.Tags {
		pk.Tags = append(pk.Tags, t.Name)
	}
	for _, st := range p.Steps {
		pk.Steps = append(pk.Steps, st.Text)
		w := WrittenStep{Arranges: st.Type == messages.PickleStepType_CONTEXT}
		if len(st.AstNodeIds) > 0 {
			w.Keyword, w.Line = n.keyword[st.AstNodeIds[0]], n.line[st.AstNodeIds[0]]
		}
		pk.Written = append(pk.Written, w)
	}
	return pk
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

func tagNames(tags []*messages.Tag) Tags {
	out := make(Tags, len(tags))
	for i, t := range tags {
		out[i] = t.Name
	}
	return out
}

// dedent removes the indentation Gherkin descriptions carry.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
