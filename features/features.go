// Package features holds the Gherkin specification of the Event Service API,
// embedded so that the conformance binary carries it, and the one loader of
// feature files (Load), which gives both their parse tree and their pickles
// to the runner, the documentation page and the tests.
package features

import "embed"

// FS holds every *.feature file of this folder.
//
//go:embed *.feature
var FS embed.FS
