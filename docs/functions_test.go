package docs

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The bounds of issue 43, "Smaller and clean": a function or method of
// at most maxFuncLines lines, from its func to its closing brace, and a
// Go file of at most maxFileLines lines, tests included.
const (
	maxFuncLines = 120
	maxFileLines = 500
)

// TestNoFunctionOrFileIsTooLong parses every tracked Go file of the
// repository, tests included, and names each function or method over
// maxFuncLines lines and each file over maxFileLines lines.
func TestNoFunctionOrFileIsTooLong(t *testing.T) {
	out, err := exec.Command("git", "-C", "..", "ls-files", "-z", "*.go").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		src, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(name)))
		if os.IsNotExist(err) {
			continue // deleted in the work tree
		}
		if err != nil {
			t.Error(err)
			continue
		}
		long, err := tooLong(name, src)
		if err != nil {
			t.Error(err)
		}
		for _, l := range long {
			t.Error(l)
		}
	}
}

// TestTooLongNamesLongFunctionsAndFiles: the test above can fail, and
// counts as it says.
func TestTooLongNamesLongFunctionsAndFiles(t *testing.T) {
	// fn is a function of n lines, func and closing brace included.
	fn := func(name string, n int) string {
		return "func " + name + "() {\n" + strings.Repeat("\t_ = 0\n", n-2) + "}\n"
	}
	method := "type T struct{}\n\nfunc (T) M() {\n" + strings.Repeat("\t_ = 0\n", maxFuncLines-1) + "}\n"
	src := "package p\n\n" + fn("fits", maxFuncLines) + "\n" + fn("over", maxFuncLines+1) + "\n" + method
	long, err := tooLong("p/p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		fmt.Sprintf("p/p.go:%d: over has %d lines, over %d", maxFuncLines+4, maxFuncLines+1, maxFuncLines),
		fmt.Sprintf("p/p.go:%d: T.M has %d lines, over %d", 2*maxFuncLines+8, maxFuncLines+1, maxFuncLines),
	}
	if strings.Join(long, "\n") != strings.Join(want, "\n") {
		t.Errorf("tooLong =\n%s\nwant\n%s", strings.Join(long, "\n"), strings.Join(want, "\n"))
	}

	big := "package p\n" + strings.Repeat("\n", maxFileLines-1)
	if long, err := tooLong("p/fits.go", []byte(big)); err != nil || len(long) != 0 {
		t.Errorf("a file of %d lines: %v, %v; want it to fit", maxFileLines, long, err)
	}
	long, err = tooLong("p/big.go", []byte(big+"\n"))
	if want := fmt.Sprintf("p/big.go has %d lines, over %d", maxFileLines+1, maxFileLines); err != nil || len(long) != 1 || long[0] != want {
		t.Errorf("a file of %d lines: %v, %v; want %q", maxFileLines+1, long, err, want)
	}

	if _, err := tooLong("p/bad.go", []byte("package p\nfunc {")); err == nil {
		t.Error("a file that does not parse is not refused")
	}
}

// tooLong says what is too long in the Go source src of the file name:
// the file, over maxFileLines lines, and each function or method over
// maxFuncLines lines, from its func to its closing brace.
func tooLong(name string, src []byte) ([]string, error) {
	var long []string
	lines := strings.Count(string(src), "\n")
	if len(src) > 0 && src[len(src)-1] != '\n' {
		lines++
	}
	if lines > maxFileLines {
		long = append(long, fmt.Sprintf("%s has %d lines, over %d", name, lines, maxFileLines))
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return long, fmt.Errorf("parse: %w", err)
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		first, last := fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line
		if n := last - first + 1; n > maxFuncLines {
			long = append(long, fmt.Sprintf("%s:%d: %s has %d lines, over %d", name, first, funcName(fd), n, maxFuncLines))
		}
	}
	return long, nil
}

// funcName is the name of a function, or of a method with its receiver's
// type: "serve", "Server.Serve".
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
			continue
		case *ast.IndexExpr:
			typ = x.X
			continue
		case *ast.IndexListExpr:
			typ = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fd.Name.Name
		}
		return fd.Name.Name
	}
}
