package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestTheREADMEsLayoutTableMatchesTheTree: the first column of the
// README's layout table names every folder at the top of the repository
// (hidden ones but .ci aside), and each folder it names is there; the
// packages under conformance/ and internal/ are each named in their row.
func TestTheREADMEsLayoutTableMatchesTheTree(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "\n## Layout\n")
	if !ok {
		t.Fatal("the README has no Layout section")
	}
	rows := map[string]string{} // by each path its first column names
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "| `") {
			if strings.HasPrefix(line, "## ") {
				break
			}
			continue
		}
		cells := strings.SplitN(line, "|", 3)
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cells[1], -1) {
			rows[strings.TrimSuffix(m[1], "/")] = cells[2]
		}
	}
	entries, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	var folders []string
	for _, e := range entries {
		if e.IsDir() && (!strings.HasPrefix(e.Name(), ".") || e.Name() == ".ci") && e.Name() != "bin" && e.Name() != "reports" && e.Name() != "dist" {
			folders = append(folders, e.Name())
		}
	}
	for _, f := range folders {
		if _, ok := rows[f]; !ok {
			t.Errorf("the layout table does not name the folder %s/", f)
		}
	}
	for path := range rows {
		if _, err := os.Stat(filepath.Join("..", filepath.FromSlash(path))); err != nil {
			t.Errorf("the layout table names %s, which is not in the repository", path)
		}
		if !strings.Contains(path, "/") && !strings.Contains(path, ".") && !slices.Contains(folders, path) {
			t.Errorf("the layout table names %s, which is not a folder at the top", path)
		}
	}
	for _, parent := range []string{"conformance", "internal"} {
		subs, err := os.ReadDir(filepath.Join("..", parent))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range subs {
			if e.IsDir() && !strings.Contains(rows[parent], "`"+e.Name()+"`") {
				t.Errorf("the %s/ row of the layout table does not name its package %s", parent, e.Name())
			}
		}
	}
}
