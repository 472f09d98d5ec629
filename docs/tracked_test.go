package docs

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// maxTracked is the size past which a tracked file outside a testdata
// folder is taken for a build output.
const maxTracked = 1 << 20

// executableMagic are the first bytes of the executables a build makes:
// ELF, Mach-O (32- and 64-bit, either byte order, and universal) and PE.
var executableMagic = [][]byte{
	[]byte("\x7fELF"),
	{0xfe, 0xed, 0xfa, 0xce}, {0xce, 0xfa, 0xed, 0xfe},
	{0xfe, 0xed, 0xfa, 0xcf}, {0xcf, 0xfa, 0xed, 0xfe},
	{0xca, 0xfe, 0xba, 0xbe},
	[]byte("MZ"),
}

// TestNoBuildOutputIsTracked: nothing built is tracked. A tracked file is
// at most 1 MiB, unless it is under a testdata folder, and none is an
// executable by its first bytes (scripts with a run bit are fine: they
// start with "#!").
func TestNoBuildOutputIsTracked(t *testing.T) {
	out, err := exec.Command("git", "-C", "..", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		path := filepath.Join("..", filepath.FromSlash(name))
		info, err := os.Lstat(path)
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the work tree, or a link
		}
		if info.Size() > maxTracked && !underTestdata(name) {
			t.Errorf("%s is tracked and has %d bytes (over 1 MiB outside testdata): a build output? Delete it and ignore it in .gitignore", name, info.Size())
		}
		if magic := firstBytes(t, path, 4); isExecutable(magic) {
			t.Errorf("%s is tracked and is an executable (it starts with % x): delete it and ignore it in .gitignore", name, magic)
		}
	}
}

// TestExecutablesAreToldByTheirFirstBytes: the test above can fail.
func TestExecutablesAreToldByTheirFirstBytes(t *testing.T) {
	for _, b := range []string{"\x7fELF\x02", "\xcf\xfa\xed\xfe", "\xca\xfe\xba\xbe", "MZ\x90\x00"} {
		if !isExecutable([]byte(b)) {
			t.Errorf("% x is not told as an executable", b)
		}
	}
	for _, b := range []string{"#!/usr/bin/env bash\n", "package docs", "", "M"} {
		if isExecutable([]byte(b)) {
			t.Errorf("%q is told as an executable", b)
		}
	}
	if !underTestdata("server/event/testdata/big.json") || underTestdata("eventsvc") {
		t.Error("testdata folders are not told apart")
	}
}

func underTestdata(name string) bool {
	return strings.HasPrefix(name, "testdata/") || strings.Contains(name, "/testdata/")
}

func isExecutable(head []byte) bool {
	for _, m := range executableMagic {
		if bytes.HasPrefix(head, m) {
			return true
		}
	}
	return false
}

func firstBytes(t *testing.T, path string, n int) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, n)
	k, _ := f.Read(buf)
	return buf[:k]
}
