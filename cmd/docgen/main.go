// Command docgen writes the API documentation page (docsite.Path) from the
// features, the rule catalogue and requests to an in-process reference
// server. Run it from the module root: `make docs`.
package main

import (
	"fmt"
	"os"

	"eventsvc/conformance/explore"
	"eventsvc/features"
	"eventsvc/internal/docsite"
)

func main() {
	exchanges, err := docsite.Record()
	if err != nil {
		fmt.Fprintf(os.Stderr, "docgen: %v\n", err)
		os.Exit(1)
	}
	page, err := docsite.Render(features.FS, exchanges, explore.Rules())
	if err != nil {
		fmt.Fprintf(os.Stderr, "docgen: %v\n", err)
		os.Exit(1)
	}
	if err := os.WriteFile(docsite.Path, page, 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "docgen: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s (%d bytes, %d examples)\n", docsite.Path, len(page), len(exchanges))
}
