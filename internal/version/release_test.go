package version

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMakeReleaseArchivesBinariesThatKnowTheirVersion runs `make release`
// for linux/amd64 alone: SHA256SUMS holds the archive's checksum, and the
// archive holds the README and both binaries, which print the version,
// revision and date the release was given.
func TestMakeReleaseArchivesBinariesThatKnowTheirVersion(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no make: .ci/run installs Debian's make package")
		}
		t.Skip("no make on this machine (apt-get install make): this check runs in CI")
	}
	dist := t.TempDir()
	const (
		ver  = "v9.9.9-test"
		rev  = "0123456789abcdef0123456789abcdef01234567"
		date = "2026-11-24T10:00:00Z"
	)
	cmd := exec.Command("make", "-s", "-C", "../..", "release", "PLATFORMS=linux/amd64", "DIST="+dist,
		"VERSION="+ver, "REVISION="+rev, "DATE="+date)
	cmd.Env = append(os.Environ(), "MAKEFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make release: %v\n%s", err, out)
	}
	name := "eventsvc_" + ver + "_linux_amd64"
	entries, err := os.ReadDir(dist)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		files = append(files, e.Name())
	}
	if got, want := strings.Join(files, " "), "SHA256SUMS "+name+".tar.gz"; got != want {
		t.Fatalf("dist holds %q, want %q", got, want)
	}

	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	archive, err := os.ReadFile(filepath.Join(dist, name+".tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(archive)
	if got, want := string(sums), hex.EncodeToString(sum[:])+"  "+name+".tar.gz\n"; got != want {
		t.Errorf("SHA256SUMS is %q, want %q (sha256sum -c reads that form)", got, want)
	}
	if sha, err := exec.LookPath("sha256sum"); err == nil {
		check := exec.Command(sha, "-c", "SHA256SUMS")
		check.Dir = dist
		if out, err := check.CombinedOutput(); err != nil {
			t.Errorf("sha256sum -c SHA256SUMS: %v\n%s", err, out)
		}
	}

	unpacked := t.TempDir()
	got := untar(t, filepath.Join(dist, name+".tar.gz"), unpacked)
	for _, want := range []string{name + "/README.md", name + "/eventsvc", name + "/conformance", name + "/docs/running-against-a-deployment.md"} {
		if !got[want] {
			t.Errorf("the archive lacks %s; it holds %v", want, got)
		}
	}
	for _, run := range [][]string{{"eventsvc", "version"}, {"conformance", "-version"}} {
		out, err := exec.Command(filepath.Join(unpacked, name, run[0]), run[1:]...).CombinedOutput()
		if err != nil {
			t.Errorf("%v: %v\n%s", run, err, out)
			continue
		}
		// The first three lines: the fourth names the Go toolchain.
		want := strings.Join(strings.SplitAfter((Info{ver, rev, date}).Text(run[0]), "\n")[:3], "")
		if !strings.HasPrefix(string(out), want) {
			t.Errorf("%v printed %q, want it to start %q", run, out, want)
		}
	}
}

// untar unpacks the regular files of a .tar.gz into dir, and returns
// their names.
func untar(t *testing.T, path, dir string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := filepath.Clean(h.Name)
		if strings.HasPrefix(name, "..") || filepath.IsAbs(name) {
			t.Fatalf("the archive holds %q, outside its folder", h.Name)
		}
		names[filepath.ToSlash(name)] = true
		out := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			t.Fatal(err)
		}
		w, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o755|0o600)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(w, tr); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
