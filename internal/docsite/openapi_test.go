package docsite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"eventsvc/docs/openapi"
)

// TestThePageLinksToTheOpenAPIDocument: client developers find the
// machine-readable description from the documentation page.
func TestThePageLinksToTheOpenAPIDocument(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", Path))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `href="`+openapi.Path+`"`) {
		t.Fatalf("%s has no link to %s", Path, openapi.Path)
	}
}
