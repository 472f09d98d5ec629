package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// cited are the names security.md quotes in backquotes: test and benchmark
// functions, and files of the repository.
var (
	citedFunc = regexp.MustCompile("`((?:Test|Benchmark)[A-Za-z0-9_]+)`")
	citedFile = regexp.MustCompile("`([a-z][a-z0-9_./-]*_test\\.go)`")
)

// TestSecurityPromisesCiteTestsThatExist: every test, benchmark and test
// file security.md names as holding a promise is in the repository, so
// that a promise never rests on a test that was renamed, moved or removed.
func TestSecurityPromisesCiteTestsThatExist(t *testing.T) {
	page, err := os.ReadFile("security.md")
	if err != nil {
		t.Fatal(err)
	}
	funcs := map[string]bool{}
	files := map[string]bool{}
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && d.Name() != "..") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel("..", path)
		files[filepath.ToSlash(rel)] = true
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range regexp.MustCompile(`(?m)^func ((?:Test|Benchmark)\w+)\(`).FindAllStringSubmatch(string(b), -1) {
			funcs[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range citedFunc.FindAllStringSubmatch(string(page), -1) {
		if !funcs[m[1]] {
			t.Errorf("security.md cites %s, which no test file of the repository defines", m[1])
		}
	}
	for _, m := range citedFile.FindAllStringSubmatch(string(page), -1) {
		name := m[1]
		found := files[name]
		for f := range files {
			found = found || strings.HasSuffix(f, "/"+name)
		}
		if !found {
			t.Errorf("security.md cites %s, which is no test file of the repository", name)
		}
	}
}
