package docs

import (
	"go/build"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// imported are the packages importPackage read, by import path.
var imported sync.Map

// importPackage is build.Import of path from dir, read once: the tests
// walk the same packages many times.
func importPackage(path, dir string) (*build.Package, error) {
	if pkg, ok := imported.Load(path); ok {
		return pkg.(*build.Package), nil
	}
	pkg, err := build.Import(path, dir, 0)
	if err != nil {
		return nil, err
	}
	imported.Store(path, pkg)
	return pkg, nil
}

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
		pkg, err := importPackage(path, dir)
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

// testDeps returns every package of the module that the tests of path
// import, directly or not, but path itself, with the chain that leads to
// each from path's tests. known keeps what deps found of each import.
func testDeps(t *testing.T, path string, known map[string]map[string][]string) map[string][]string {
	t.Helper()
	pkg, err := importPackage(path, "..")
	if err != nil {
		t.Fatalf("import %s: %v", path, err)
	}
	seen := map[string][]string{}
	for _, imp := range append(pkg.TestImports, pkg.XTestImports...) {
		if imp == path || !strings.HasPrefix(imp, "eventsvc") {
			continue
		}
		if known[imp] == nil {
			known[imp] = deps(t, imp)
		}
		for dep, via := range known[imp] {
			if _, ok := seen[dep]; !ok {
				seen[dep] = append([]string{path + " (its tests)"}, via...)
			}
		}
	}
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

// TestImportsPointOneWay: the suite's runner (package suite) assembles its
// parts, the packages under conformance/, and none of them imports it,
// nor do their tests (a test of a whole run is the runner's); the steps
// hold step definitions and import no runner, and no part imports them;
// nothing under internal/ imports the suite; the reports do not import
// the server.
func TestImportsPointOneWay(t *testing.T) {
	forbid := func(pkg string, banned func(string) bool, why string) {
		t.Helper()
		for dep, via := range deps(t, pkg) {
			if dep != pkg && banned(dep) {
				t.Errorf("%s imports %s (through %s): %s", pkg, dep, strings.Join(append(via[1:], dep), " → "), why)
			}
		}
	}
	isRunner := func(p string) bool { return p == "eventsvc/suite" }
	isSuite := func(p string) bool {
		return p == "eventsvc/steps" || isRunner(p) || strings.HasPrefix(p, "eventsvc/conformance/")
	}
	parts := packagesUnder(t, "conformance")
	if len(parts) < 10 {
		t.Fatalf("only %d packages under conformance/: %v", len(parts), parts)
	}
	if !slices.Contains(packagesUnder(t, "suite"), "eventsvc/suite") {
		t.Fatal("no runner in suite/")
	}
	isSteps := func(p string) bool { return p == "eventsvc/steps" }
	known := map[string]map[string][]string{}
	for _, p := range parts {
		if isRunner(p) {
			t.Errorf("the runner %s is under conformance/, among its parts", p)
			continue
		}
		forbid(p, isRunner, "the runner's parts never import the runner")
		forbid(p, isSteps, "the runner alone drives the steps, which hold step definitions only")
		for dep, via := range testDeps(t, p, known) {
			if isRunner(dep) {
				t.Errorf("the tests of %s import %s (through %s): a part is tested without the runner, which tests whole runs", p, dep, strings.Join(append(via, dep), " → "))
			}
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
	paths := regexp.MustCompile("`((?:cmd|conformance|suite|steps|internal|features|docs|server)/[\\w./-]*|[\\w-]+\\.go)`").FindAllStringSubmatch(string(b), -1)
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
