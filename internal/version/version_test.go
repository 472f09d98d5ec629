package version

import (
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	vcs := func(settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "eventsvc", Version: "(devel)"}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	withVersion := func(v string, bi *debug.BuildInfo) *debug.BuildInfo { bi.Main.Version = v; return bi }
	const rev = "6f0896d1a2b3c4d5e6f708192a3b4c5d6e7f8091"
	for _, tc := range []struct {
		name   string
		linked Info
		bi     *debug.BuildInfo
		want   Info
	}{
		{"nothing known", Info{}, nil, Info{"dev", "unknown", "unknown"}},
		{"no build information", Info{"v1.2.3", "abc", "2026-11-24T10:00:00Z"}, nil, Info{"v1.2.3", "abc", "2026-11-24T10:00:00Z"}},
		{"a devel build without VCS", Info{}, vcs(), Info{"dev", "unknown", "unknown"}},
		{"the VCS stamp", Info{}, vcs("vcs.revision", rev, "vcs.time", "2026-11-24T09:00:00Z", "vcs.modified", "false"),
			Info{"dev", rev, "2026-11-24T09:00:00Z"}},
		{"a modified checkout", Info{}, vcs("vcs.revision", rev, "vcs.modified", "true"), Info{"dev+dirty", rev, "unknown"}},
		{"the module version the go command stamps", Info{},
			withVersion("v0.0.0-20261124090000-6f0896d1a2b3+dirty", vcs("vcs.revision", rev, "vcs.modified", "true")),
			Info{"v0.0.0-20261124090000-6f0896d1a2b3+dirty", rev, "unknown"}},
		{"go install of a tagged module", Info{}, withVersion("v1.4.0", vcs()), Info{"v1.4.0", "unknown", "unknown"}},
		{"link-time strings win", Info{"v9.9.9", "feedface", "2026-01-02T03:04:05Z"},
			withVersion("v1.4.0", vcs("vcs.revision", rev, "vcs.time", "2026-11-24T09:00:00Z", "vcs.modified", "true")),
			Info{"v9.9.9", "feedface", "2026-01-02T03:04:05Z"}},
		{"each link-time string alone", Info{Version: "v9.9.9"}, vcs("vcs.revision", rev, "vcs.time", "2026-11-24T09:00:00Z"),
			Info{"v9.9.9", rev, "2026-11-24T09:00:00Z"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := resolve(tc.linked, tc.bi); got != tc.want {
				t.Errorf("resolve(%+v) = %+v, want %+v", tc.linked, got, tc.want)
			}
		})
	}
}

func TestString(t *testing.T) {
	for _, tc := range []struct {
		in   Info
		want string
	}{
		{Info{"v1.2.3", "6f0896d1a2b3c4d5e6f708192a3b4c5d6e7f8091", "2026-11-24T09:00:00Z"}, "v1.2.3 (revision 6f0896d1a2b3, built 2026-11-24T09:00:00Z)"},
		{Info{"dev", "unknown", "unknown"}, "dev (revision unknown, built unknown)"},
		{Info{"v1.2.3", "abc", "unknown"}, "v1.2.3 (revision abc, built unknown)"},
	} {
		if got := tc.in.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestText(t *testing.T) {
	got := Info{"v1.2.3", "6f0896d1a2b3c4d5e6f708192a3b4c5d6e7f8091", "2026-11-24T09:00:00Z"}.Text("eventsvc")
	for _, want := range []string{"eventsvc v1.2.3\n", "revision 6f0896d1a2b3c4d5e6f708192a3b4c5d6e7f8091\n", "built    2026-11-24T09:00:00Z\n", "go       go1."} {
		if !strings.Contains(got, want) {
			t.Errorf("Text lacks %q:\n%s", want, got)
		}
	}
}

// TestLinkTimeStrings builds a small program with the -X flags the
// Makefile passes: the names it sets must be this package's.
func TestLinkTimeStrings(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "printversion")
	build := exec.Command("go", "build", "-o", bin, "-ldflags",
		"-X eventsvc/internal/version.Version=v9.9.9-test -X eventsvc/internal/version.Revision=0123abcd -X eventsvc/internal/version.Date=2026-11-24T10:00:00Z",
		"./testdata/printversion")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), "v9.9.9-test (revision 0123abcd, built 2026-11-24T10:00:00Z)\n"; got != want {
		t.Errorf("a binary built with -X prints %q, want %q", got, want)
	}
}
