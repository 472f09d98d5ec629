package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// link is a Markdown link's target: [text](target).
var link = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestLinksStayInsideTheRepository follows every relative link of the
// README and of docs/: each must name a file or folder of the repository,
// so that a checkout reads whole without anything beside it.
func TestLinksStayInsideTheRepository(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := filepath.Glob(filepath.Join("spec", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(append([]string{filepath.Join("..", "README.md")}, pages...), spec...)
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(text), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			abs, err := filepath.Abs(filepath.Join(filepath.Dir(page), target))
			if err != nil {
				t.Fatal(err)
			}
			if rel, err := filepath.Rel(root, abs); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				t.Errorf("%s: the link %s points outside the repository", page, m[1])
				continue
			}
			if _, err := os.Stat(abs); err != nil {
				t.Errorf("%s: the link %s names nothing: %v", page, m[1], err)
			}
		}
	}
}
