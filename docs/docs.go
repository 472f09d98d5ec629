// Package docs holds what people read about the project: the rule
// catalogue (rules.md), embedded and parsed here for the conformance runner,
// the coverage test and the documentation page; the guides; and a copy of
// the specification (spec/).
package docs

import (
	_ "embed"
	"fmt"
	"sync"
)

// rulesFile is docs/rules.md.
//
//go:embed rules.md
var rulesFile string

// ruleCatalogue parses rulesFile on first use.
var ruleCatalogue = sync.OnceValues(func() (*Catalogue, error) {
	c, err := ParseCatalogue(rulesFile)
	if err != nil {
		return nil, fmt.Errorf("read docs/rules.md: %w", err)
	}
	return c, nil
})

// RuleCatalogue returns the rule catalogue, docs/rules.md, parsed once.
func RuleCatalogue() (*Catalogue, error) {
	return ruleCatalogue()
}
