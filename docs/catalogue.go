package docs

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Kind says who makes a rule.
type Kind string

// The kinds of rule.
const (
	// Spec is a rule the specification states: every deployment must obey it.
	Spec Kind = "spec"
	// Ref is a choice of the reference server where the specification is
	// silent.
	Ref Kind = "ref"
)

// Section is one section of a rule catalogue, written as the heading
// "## AUTH — authorization rules of the resource server".
type Section struct {
	Code  string // such as "AUTH"; the prefix of its rules' ids
	Title string // such as "authorization rules of the resource server"
}

// Rule is one rule of a catalogue.
type Rule struct {
	ID      string // such as "AUTH-6"
	Kind    Kind
	Text    string // the statement, in Markdown
	Section Section
}

// Catalogue is a parsed rule catalogue: its sections and its rules, in the
// order it lists them, each rule once.
type Catalogue struct {
	sections []Section
	rules    []Rule
	index    map[string]int // rule id → position in rules
}

// sectionHeading is the heading that opens a section of rules.
var sectionHeading = regexp.MustCompile(`^## ([A-Z]+) — (.+)$`)

// ParseCatalogue reads a rule catalogue in the format of docs/rules.md and
// of the specification's RULES.md: under each "## CODE — title" heading, a
// Markdown table whose rows are "| CODE-n | spec or ref | statement |" after
// a header row. It refuses a table row outside such a section, a rule row
// it cannot read, with an id that does not belong to its section or with an
// id seen before, a section code seen before, and a catalogue without rules.
func ParseCatalogue(text string) (*Catalogue, error) {
	c := &Catalogue{index: map[string]int{}}
	lines := strings.Split(text, "\n")
	var section *Section
	var errs []error
	for i, line := range lines {
		line = strings.TrimRight(line, " \t\r")
		if strings.HasPrefix(line, "#") {
			section = nil
			if m := sectionHeading.FindStringSubmatch(line); m != nil {
				s := Section{Code: m[1], Title: m[2]}
				if slices.ContainsFunc(c.sections, func(o Section) bool { return o.Code == s.Code }) {
					errs = append(errs, fmt.Errorf("line %d: section %s appears twice", i+1, s.Code))
				}
				c.sections = append(c.sections, s)
				section = &s
			}
			continue
		}
		if !strings.HasPrefix(line, "|") || isDelimiterRow(line) {
			continue
		}
		if i+1 < len(lines) && isDelimiterRow(lines[i+1]) {
			continue // a header row
		}
		r, err := parseRow(line, section)
		if err == nil {
			if _, seen := c.index[r.ID]; seen {
				err = fmt.Errorf("rule %s is listed twice", r.ID)
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("line %d: %w", i+1, err))
			continue
		}
		c.index[r.ID] = len(c.rules)
		c.rules = append(c.rules, r)
	}
	if len(c.rules) == 0 && len(errs) == 0 {
		errs = append(errs, errors.New("no rules"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return c, nil
}

// parseRow reads one rule row of a table in section.
func parseRow(line string, section *Section) (Rule, error) {
	if section == nil {
		return Rule{}, fmt.Errorf("a table row outside a \"## CODE — title\" section: %q", line)
	}
	cells := strings.SplitN(strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|"), "|", 3)
	if len(cells) != 3 {
		return Rule{}, fmt.Errorf("a rule row needs three cells (id, kind, statement): %q", line)
	}
	r := Rule{
		ID:   strings.TrimSpace(cells[0]),
		Kind: Kind(strings.TrimSpace(cells[1])),
		Text: strings.TrimSpace(cells[2]),
	}
	r.Section = *section
	n, ok := strings.CutPrefix(r.ID, section.Code+"-")
	if number, err := strconv.Atoi(n); !ok || err != nil || number < 1 || strconv.Itoa(number) != n {
		return Rule{}, fmt.Errorf("%q is not a rule id of section %s (%s-1, %s-2…)", r.ID, section.Code, section.Code, section.Code)
	}
	if r.Kind != Spec && r.Kind != Ref {
		return Rule{}, fmt.Errorf("rule %s: kind %q is neither %s nor %s", r.ID, r.Kind, Spec, Ref)
	}
	if r.Text == "" {
		return Rule{}, fmt.Errorf("rule %s has no statement", r.ID)
	}
	return r, nil
}

// isDelimiterRow reports whether line is the row that follows a Markdown
// table's header, such as "|---|---|---|".
func isDelimiterRow(line string) bool {
	line = strings.TrimSpace(line)
	return strings.HasPrefix(line, "|") && strings.Contains(line, "-") && strings.Trim(line, "|-: ") == ""
}

// Sections returns the catalogue's sections in its order.
func (c *Catalogue) Sections() []Section {
	return slices.Clone(c.sections)
}

// Rules returns the catalogue's rules in its order.
func (c *Catalogue) Rules() []Rule {
	return slices.Clone(c.rules)
}

// Rule returns the rule with the given id, such as "AUTH-6".
func (c *Catalogue) Rule(id string) (Rule, bool) {
	i, ok := c.index[id]
	if !ok {
		return Rule{}, false
	}
	return c.rules[i], true
}
