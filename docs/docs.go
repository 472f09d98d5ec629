// Package docs holds what people read about the project; rules.md, the rule
// catalogue, is embedded for the conformance runner's per-rule summary.
package docs

import (
	_ "embed"
	"regexp"
)

// RuleCatalogue is docs/rules.md.
//
//go:embed rules.md
var RuleCatalogue string

// Rule is one entry of the rule catalogue.
type Rule struct {
	ID        string // such as "AUTH-6"
	Kind      string // "spec" or "ref"
	Statement string
}

var ruleRow = regexp.MustCompile(`(?m)^\| ([A-Z]+-[0-9]+) \| (spec|ref) \| (.+) \|$`)

// Rules returns the catalogue's rules in the order it lists them.
func Rules() []Rule {
	var rules []Rule
	for _, m := range ruleRow.FindAllStringSubmatch(RuleCatalogue, -1) {
		rules = append(rules, Rule{ID: m[1], Kind: m[2], Statement: m[3]})
	}
	return rules
}
