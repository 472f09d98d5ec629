package eventsvctest_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"eventsvc/eventsvctest"
)

// libraryTimeout bounds a run of a client library's script.
const libraryTimeout = time.Minute

// needed skips t, with why and what installs it, when this machine lacks
// what a library's script needs; in CI, where .ci/run installs it, it
// fails t instead.
func needed(t *testing.T, what, installs string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("no %s: .ci/run installs it (%s)", what, installs)
	}
	t.Skipf("no %s on this machine (%s installs it): this check runs in CI", what, installs)
}

// runLibrary runs a client library's script of testdata/clients against
// srv with the demo client and user, and extra arguments, and returns its
// output and error.
func runLibrary(t *testing.T, srv *eventsvctest.Server, command, script string, extra ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), libraryTimeout)
	defer cancel()
	args := append([]string{filepath.Join("testdata", "clients", script), srv.URL, eventsvctest.ClientID, eventsvctest.ClientSecret,
		eventsvctest.User, eventsvctest.UserPassword}, extra...)
	cmd := exec.CommandContext(ctx, command, args...)
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// node returns the node command, once make client-tools has installed
// the client libraries of testdata/clients.
func node(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("node")
	if _, statErr := os.Stat(filepath.Join("testdata", "clients", "node_modules", "ketting")); err != nil || statErr != nil {
		needed(t, "node or ketting", "make client-tools, with npm")
	}
	return bin
}

// python returns a python3 that has requests-oauthlib: Debian's, whose
// package python3-requests-oauthlib holds it, or the first on PATH.
func python(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if bin, err := exec.LookPath(p); err == nil && exec.Command(bin, "-c", "import requests_oauthlib").Run() == nil {
			return bin
		}
	}
	needed(t, "python3 with requests-oauthlib", "apt-get install python3-requests-oauthlib")
	return ""
}

// TestRealClientLibrariesLeaveNoFinding: a HAL client written with
// ketting (its token through @badgateway/oauth2-client, as ketting's
// documentation says) and one written with requests-oauthlib's
// OAuth2Session (the password grant, a refresh with the client's Basic
// credentials), used as their documentation says, leave no finding; the
// test fails at its end if they do.
func TestRealClientLibrariesLeaveNoFinding(t *testing.T) {
	t.Parallel()
	for _, lib := range []struct {
		name, script string
		command      func(*testing.T) string
	}{
		{"ketting", "ketting.mjs", node},
		{"requests-oauthlib", "requests_client.py", python},
	} {
		t.Run(lib.name, func(t *testing.T) {
			t.Parallel()
			command := lib.command(t)
			srv := eventsvctest.NewServer(t, eventsvctest.Options{FailOnClientFindings: true})
			if out, err := runLibrary(t, srv, command, lib.script); err != nil {
				t.Fatalf("%s: %v\n%s", lib.script, err, out)
			}
			if n := srv.JournalCount(t, eventsvctest.JournalFilter{Path: "/api/**", Status: "2xx"}); n < 3 {
				t.Errorf("the client made %d requests to the API, want its walk", n)
			}
		})
	}
}

// TestARealLibraryMisusedIsTold: ketting's token client told to send the
// client's secret in the body (authenticationMethod client_secret_post)
// leaves a TOK-1 finding, and no other.
func TestARealLibraryMisusedIsTold(t *testing.T) {
	t.Parallel()
	command := node(t)
	srv := eventsvctest.NewServer(t, eventsvctest.Options{})
	out, err := runLibrary(t, srv, command, "ketting.mjs", "client_secret_post")
	if err == nil {
		t.Fatalf("the server took the client's credentials in the body:\n%s", out)
	}
	if got := rules(srv.ClientFindings(t)); len(got) != 1 || got[0] != "TOK-1" {
		t.Errorf("findings of %v, want TOK-1 alone", got)
	}
}
