package docs

import (
	"go/build"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// deps returns every package of the module that path imports, directly or
// not (tests aside), with the chain that leads to each.
func deps(t *testing.T, path string) map[string][]string {
	t.Helper()
	seen := map[string][]string{}
	var walk func(path, dir string, via []string)
	walk = func(path, dir string, via []string) {
		if _, ok := seen[path]; ok || !strings.HasPrefix(path, "eventsvc") {
			return
		}
		seen[path] = via
		pkg, err := build.Import(path, dir, 0)
		if err != nil {
			t.Fatalf("import %s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			walk(imp, pkg.Dir, append(append([]string(nil), via...), path))
		}
	}
	walk(path, "..", nil)
	return seen
}

// packagesUnder lists the packages of the module under dir.
func packagesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	var walk func(path, d string)
	walk = func(path, d string) {
		if _, err := build.ImportDir(d, 0); err == nil {
			out = append(out, path)
		}
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if e.IsDir() && e.Name() != "testdata" && !strings.HasPrefix(e.Name(), ".") && e.Name() != "node_modules" {
				walk(path+"/"+e.Name(), d+"/"+e.Name())
			}
		}
	}
	walk("eventsvc/"+dir, "../"+dir)
	return out
}

// TestImportsPointOneWay: the suite's runner (package conformance)
// assembles its parts, and none of them imports it; the steps hold step
// definitions and import no runner; nothing under internal/ imports the
// suite; the reports do not import the server.
func TestImportsPointOneWay(t *testing.T) {
	forbid := func(pkg string, banned func(string) bool, why string) {
		t.Helper()
		for dep, via := range deps(t, pkg) {
			if dep != pkg && banned(dep) {
				t.Errorf("%s imports %s (through %s): %s", pkg, dep, strings.Join(append(via[1:], dep), " → "), why)
			}
		}
	}
	isRunner := func(p string) bool { return p == "eventsvc/conformance" }
	isSuite := func(p string) bool { return p == "eventsvc/steps" || strings.HasPrefix(p, "eventsvc/conformance") }
	parts := packagesUnder(t, "conformance")
	if len(parts) < 10 {
		t.Fatalf("only %d packages under conformance/: %v", len(parts), parts)
	}
	for _, p := range parts {
		if !isRunner(p) {
			forbid(p, isRunner, "the runner's parts never import the runner")
		}
	}
	forbid("eventsvc/steps", isRunner, "the steps are driven by the runner")
	for _, p := range packagesUnder(t, "internal") {
		forbid(p, isSuite, "what the server and the suite share imports neither")
	}
	forbid("eventsvc/conformance/report", func(p string) bool { return strings.HasPrefix(p, "eventsvc/server") }, "the reports read what a run found, not the server")
}

// TestTheArchitecturePageNamesWhatIsThere: every file and folder the page
// of how a run flows (architecture.md) names is in the tree, so that the
// page cannot go on describing code that moved.
func TestTheArchitecturePageNamesWhatIsThere(t *testing.T) {
	b, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	paths := regexp.MustCompile("`((?:cmd|conformance|steps|internal|features|docs|server)/[\\w./-]*|[\\w-]+\\.go)`").FindAllStringSubmatch(string(b), -1)
	if len(paths) < 20 {
		t.Fatalf("the page names %d paths", len(paths))
	}
	var files []string
	_ = filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
			files = append(files, filepath.ToSlash(strings.TrimPrefix(p, "../")))
		}
		return nil
	})
	for _, m := range paths {
		p := m[1]
		if strings.Contains(p, "/") {
			if _, err := os.Stat(filepath.Join("..", strings.TrimSuffix(p, "/"))); err != nil {
				t.Errorf("architecture.md names %s, which is not there", p)
			}
			continue
		}
		found := false
		for _, f := range files {
			found = found || strings.HasSuffix(f, "/"+p)
		}
		if !found {
			t.Errorf("architecture.md names %s, which no folder holds", p)
		}
	}
}
