// Package docsite renders the API documentation served at
// /docs/index.html: the features as readable documentation, grouped by the
// rules of the specification, with request and answer examples recorded
// from the reference server. `make docs` writes it; a test fails when the
// committed page is not what the features and the server give today.
package docsite

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io/fs"
	"regexp"
	"slices"
	"strings"

	"eventsvc/docs"
	"eventsvc/features"
)

// Path is where the page is committed, from the module root.
const Path = "docs/static/docs/index.html"

// Anchors are the sections the server's profile links point at, with the
// overview sections.
var Anchors = []string{
	"overview-authentication", "overview-errors",
	"resources-index-access", "resources-events-list", "resources-events-create",
	"resources-events-get", "resources-events-update",
}

//go:embed page.html.tmpl
var pageTemplate string

// RuleSection is one section of the rule catalogue, such as AUTH.
type RuleSection struct {
	Code, Title string
	Rules       []*RuleDoc
}

// RuleDoc is one rule with the scenarios that check it. A scenario that
// checks several rules is written out under the first and linked from the
// others.
type RuleDoc struct {
	docs.Rule
	Scenarios []ScenarioView
	SeeAlso   []*features.Scenario
	// Explored is whether `conformance explore` checks the rule too.
	Explored bool
}

// page is what the template renders.
type page struct {
	Sections  []*RuleSection
	Exchanges map[string][]Exchange
	Count     int
}

// Render builds the page from the feature files of fsys, the rule
// catalogue and the recorded exchanges, marking the rules explored lists
// (those an exploration checks: the suite's, which cmd/docgen gives).
func Render(fsys fs.FS, exchanges []Exchange, explored []string) ([]byte, error) {
	set, err := features.Load(fsys)
	if err != nil {
		return nil, err
	}
	p := page{Exchanges: map[string][]Exchange{}}
	for _, e := range exchanges {
		p.Exchanges[e.Anchor] = append(p.Exchanges[e.Anchor], e)
	}
	catalogue, err := docs.RuleCatalogue()
	if err != nil {
		return nil, err
	}
	sections := map[string]*RuleSection{}
	for _, s := range catalogue.Sections() {
		sections[s.Code] = &RuleSection{Code: s.Code, Title: s.Title}
		p.Sections = append(p.Sections, sections[s.Code])
	}
	rules := map[string]*RuleDoc{}
	for _, r := range catalogue.Rules() {
		rules[r.ID] = &RuleDoc{Rule: r, Explored: slices.Contains(explored, r.ID)}
		sections[r.Section.Code].Rules = append(sections[r.Section.Code].Rules, rules[r.ID])
	}
	for _, sc := range set.Scenarios() {
		p.Count++
		for _, id := range sc.Rules() {
			rd, ok := rules[id]
			if !ok {
				return nil, fmt.Errorf("%s: scenario %q names rule %s, which docs/rules.md does not list", sc.Feature.File, sc.Name, id)
			}
			if sc.Leads(id) {
				rd.Scenarios = append(rd.Scenarios, view(sc, id))
			} else {
				rd.SeeAlso = append(rd.SeeAlso, sc)
			}
		}
	}
	t, err := template.New("page").Funcs(template.FuncMap{
		"paragraphs": paragraphs,
		"code":       code,
		"first":      leadRule,
		"anchor":     anchor,
	}).Parse(pageTemplate)
	if err != nil {
		return nil, fmt.Errorf("parse the page template: %w", err)
	}
	var out bytes.Buffer
	if err := t.Execute(&out, p); err != nil {
		return nil, fmt.Errorf("render the page: %w", err)
	}
	return out.Bytes(), nil
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

// ScenarioView is a scenario as the page writes it under one rule: an
// outline shows only the examples tables that check that rule.
type ScenarioView struct {
	*features.Scenario
	// Examples are the tables the rule's article shows: under a rule of
	// the scenario's own tags, the tables that name no rule or name it;
	// under a rule only a table names, the tables that name it.
	Examples []features.Table
	// Anchor is the view's HTML id: the scenario's anchor under the first
	// rule it leads, with the rule's id added under the others.
	Anchor string
}

func view(sc *features.Scenario, id string) ScenarioView {
	v := ScenarioView{Scenario: sc, Anchor: anchor(sc)}
	if id != leadRule(sc) {
		v.Anchor += "-" + strings.ToLower(id)
	}
	own := slices.Contains(sc.Tags.Rules(), id)
	for _, t := range sc.Examples {
		if rules := t.Tags.Rules(); slices.Contains(rules, id) || own && len(rules) == 0 {
			v.Examples = append(v.Examples, t)
		}
	}
	return v
}

// anchor is the HTML id of a scenario: its file and its name.
func anchor(sc *features.Scenario) string {
	s := strings.ToLower(strings.TrimSuffix(sc.Feature.File, ".feature") + "-" + sc.Name)
	return "scenario-" + strings.Trim(nonWord.ReplaceAllString(s, "-"), "-")
}

// paragraphs splits a description at blank lines.
func paragraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "\n\n") {
		if p = strings.TrimSpace(strings.ReplaceAll(p, "\n", " ")); p != "" {
			out = append(out, p)
		}
	}
	return out
}

var backticks = regexp.MustCompile("`([^`]+)`")

// code renders `text` in a catalogue statement as <code>.
func code(s string) template.HTML {
	return template.HTML(backticks.ReplaceAllString(template.HTMLEscapeString(s), "<code>$1</code>"))
}

// leadRule is the first rule sc leads, under which the page writes it out.
func leadRule(sc *features.Scenario) string {
	for _, id := range sc.Rules() {
		if sc.Leads(id) {
			return id
		}
	}
	return ""
}
