package docs

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// sharedSpec is where new rules of the specification arrive: the shared
// folder beside the checkout, in development and in CI.
var sharedSpec = filepath.Join("..", "..", "shared", "spec")

// TestSpecCopyMatchesTheSharedSpecification fails when the copy of the
// specification in docs/spec differs from ../shared/spec, so that the copy
// cannot fall behind unnoticed. Without ../shared it has nothing to compare.
func TestSpecCopyMatchesTheSharedSpecification(t *testing.T) {
	if _, err := os.Stat(sharedSpec); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s is not beside this checkout: nothing to compare docs/spec with", sharedSpec)
	}
	for _, name := range []string{"event-service-api.md", "RULES.md"} {
		theirs, err := os.ReadFile(filepath.Join(sharedSpec, name))
		if err != nil {
			t.Errorf("read the shared specification: %v", err)
			continue
		}
		ours, err := os.ReadFile(filepath.Join("spec", name))
		if err != nil {
			t.Errorf("read the copy: %v", err)
			continue
		}
		if !bytes.Equal(ours, theirs) {
			t.Errorf("docs/spec/%s differs from %s: copy it again (cp %s docs/spec/)", name, filepath.Join(sharedSpec, name), filepath.Join("..", "shared", "spec", name))
		}
	}
}
