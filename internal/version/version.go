// Package version tells which build of the project is running: its
// version, the revision it was built from and when. The release build sets
// them at link time (the Makefile's LDFLAGS):
//
//	go build -ldflags "-X eventsvc/internal/version.Version=v1.2.3 -X eventsvc/internal/version.Revision=… -X eventsvc/internal/version.Date=…"
//
// Otherwise they come from the build information the go command records
// (runtime/debug.ReadBuildInfo): the module's version and the VCS stamp.
package version

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// Link-time strings, set with -ldflags -X; empty unless the build sets them.
// Nothing assigns them at run time.
var (
	// Version is the release, such as v1.2.3 or the output of git describe.
	Version string
	// Revision is the commit the build was made from.
	Revision string
	// Date is when the build was made, RFC 3339 in UTC.
	Date string
)

// Unknown is what Info holds for a revision or a date nothing records,
// and Dev the version of a build that records none.
const (
	Unknown = "unknown"
	Dev     = "dev"
)

// Info is a build's version, revision and date.
type Info struct {
	Version  string `json:"version"`
	Revision string `json:"revision"`
	Date     string `json:"date"`
}

// Get returns the running program's Info: each link-time string that is
// set, and otherwise what its build information records.
func Get() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return resolve(Info{Version: Version, Revision: Revision, Date: Date}, bi)
}

// resolve combines the link-time strings with the build information bi
// (nil when there is none): a link-time string wins; then the module's
// version (not "(devel)"), vcs.revision and vcs.time; a modified checkout
// (vcs.modified) marks a version that does not say so with "+dirty".
func resolve(linked Info, bi *debug.BuildInfo) Info {
	var stamped Info
	modified := false
	if bi != nil {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			stamped.Version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				stamped.Revision = s.Value
			case "vcs.time":
				stamped.Date = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if stamped.Version == "" {
		stamped.Version = Dev
	}
	if modified && !strings.Contains(stamped.Version, "dirty") {
		stamped.Version += "+dirty"
	}
	return Info{
		Version:  first(linked.Version, stamped.Version),
		Revision: first(linked.Revision, stamped.Revision, Unknown),
		Date:     first(linked.Date, stamped.Date, Unknown),
	}
}

// String is the one-line form the banner and the reports show: the
// version, the revision's first 12 characters and the date.
func (i Info) String() string {
	rev := i.Revision
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return i.Version + " (revision " + rev + ", built " + i.Date + ")"
}

// Text is what a version command prints: program and version on the first
// line, then the whole revision, the date and the Go toolchain.
func (i Info) Text(program string) string {
	return program + " " + i.Version + "\n" +
		"revision " + i.Revision + "\n" +
		"built    " + i.Date + "\n" +
		"go       " + runtime.Version() + "\n"
}

func first(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
