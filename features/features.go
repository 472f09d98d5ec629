// Package features holds the Gherkin specification of the Event Service API,
// embedded so that the conformance binary carries it.
package features

import "embed"

// FS holds every *.feature file of this folder.
//
//go:embed *.feature
var FS embed.FS
