//go:build linux

package container

import (
	"archive/tar"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestTheImagesBuildRunAndPassTheSuite builds both images with `make
// image`, checks what they hold and how they are configured, that the
// suite's image checks an https target's certificate with the CA
// certificates it holds, starts the server's image and runs the suite's
// image against it: its default run, the whole selection for a deployment
// and then an exploration, then, with the server's control API, the
// @clock scenarios, which move its clock. It reads the verdicts from the
// reports the suite writes into a mounted folder. With the Go build cache
// warm it takes some 40 s, ten of them the default run's exploration; on
// a fresh machine the two builds of make image take most of two minutes.
func TestTheImagesBuildRunAndPassTheSuite(t *testing.T) {
	p := needPodman(t)
	began := time.Now()
	im := buildImages(t, p, "test-"+randomHex(t, 6))
	t.Run("configuration", im.checkConfiguration)
	t.Run("contents", im.checkContents)
	t.Run("https roots", im.checkHTTPSRoots)
	t.Run("suite against the server", im.checkSuiteAgainstServer)
	t.Run("versions", im.checkVersions)
	t.Run("the CI script runs the suite's image", im.checkCIScript)
	t.Run("clock scenarios through the control API", im.checkClockScenarios)
	t.Logf("the whole test: %s", time.Since(began).Round(time.Millisecond))
}

// images are the two images a test built, under its own tag.
type images struct {
	p                  podman
	tag, server, suite string
}

// buildImages builds both images with make image under tag, removed when
// the test ends, and checks that make image reports their sizes.
func buildImages(t *testing.T, p podman, tag string) images {
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	// Its own tag only, not latest: the test leaves the images a developer
	// built alone, and removes its own.
	build := exec.CommandContext(ctx, "make", "-s", "-C", "..", "image",
		"PODMAN="+p.podman, "VERSION="+tag, "IMAGE_TAGS="+tag)
	build.Env = append(os.Environ(), "MAKEFLAGS=")
	out, err := build.CombinedOutput()
	t.Cleanup(func() {
		rmi := exec.Command(p.podman, "rmi", "-f", "localhost/eventsvc:"+tag, "localhost/conformance:"+tag)
		if out, err := rmi.CombinedOutput(); err != nil {
			t.Logf("podman rmi: %v\n%s", err, out)
		}
	})
	if err != nil {
		t.Fatalf("make image: %v\n%s", err, out)
	}
	t.Logf("make image: %s\n%s", time.Since(began).Round(time.Millisecond), out)
	for _, name := range []string{"eventsvc", "conformance"} {
		if !regexp.MustCompile(`(?m)^localhost/` + name + `:` + tag + `: [0-9.]+ MB$`).Match(out) {
			t.Errorf("make image does not report the size of localhost/%s:%s:\n%s", name, tag, out)
		}
	}
	return images{p: p, tag: tag, server: "localhost/eventsvc:" + tag, suite: "localhost/conformance:" + tag}
}

// checkConfiguration checks how each image is configured: its user, entrypoint,
// command, port, environment, volume and labels.
func (im images) checkConfiguration(t *testing.T) {
	revision := ""
	if out, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
		revision = strings.TrimSpace(string(out))
	}
	for _, c := range []struct {
		image, title, entrypoint, cmd, port, env, volume string
	}{
		{image: im.server, title: "eventsvc", entrypoint: "/eventsvc", cmd: "serve -addr :8080", port: "8080/tcp"},
		{image: im.suite, title: "conformance", entrypoint: "/conformance", env: "CONFORMANCE_REPORT_DIR=/reports", volume: "/reports"},
	} {
		cfg := inspect(t, im.p, c.image)
		if cfg.User != "65532:65532" {
			t.Errorf("%s runs as %q; want 65532:65532", c.image, cfg.User)
		}
		if got := strings.Join(cfg.Entrypoint, " "); got != c.entrypoint {
			t.Errorf("%s: entrypoint %q; want %q", c.image, got, c.entrypoint)
		}
		if got := strings.Join(cfg.Cmd, " "); got != c.cmd {
			t.Errorf("%s: command %q; want %q", c.image, got, c.cmd)
		}
		if _, ok := cfg.ExposedPorts[c.port]; c.port != "" && !ok {
			t.Errorf("%s exposes %v; want %s", c.image, cfg.ExposedPorts, c.port)
		}
		if c.env != "" && !slices.Contains(cfg.Env, c.env) {
			t.Errorf("%s: environment %q; want %s", c.image, cfg.Env, c.env)
		}
		if _, ok := cfg.Volumes[c.volume]; c.volume != "" && !ok {
			t.Errorf("%s: volumes %v; want %s", c.image, cfg.Volumes, c.volume)
		}
		label := func(k string) string { return cfg.Labels["org.opencontainers.image."+k] }
		if label("title") != c.title || label("version") != im.tag || label("description") == "" {
			t.Errorf("%s: labels %v; want the title %s, the version %s and a description", c.image, cfg.Labels, c.title, im.tag)
		}
		if revision != "" && label("revision") != revision {
			t.Errorf("%s: revision label %q; want %s", c.image, label("revision"), revision)
		}
		if _, err := time.Parse(time.RFC3339, label("created")); err != nil {
			t.Errorf("%s: created label %q: %v", c.image, label("created"), err)
		}
		if _, ok := cfg.Labels["org.opencontainers.image.source"]; !ok {
			t.Errorf("%s: no source label in %v", c.image, cfg.Labels)
		}
	}
}

// checkContents checks the files each image holds, its CA certificates, and
// that it has no shell.
func (im images) checkContents(t *testing.T) {
	for image, want := range map[string][]string{
		im.server: {"eventsvc", "etc/ssl/certs/ca-certificates.crt"},
		im.suite:  {"conformance", "etc/ssl/certs/ca-certificates.crt", "reports/"},
	} {
		files := export(t, im.p, image)
		var names []string
		for name, h := range files {
			if h.Typeflag != tar.TypeDir {
				names = append(names, name)
			}
		}
		if w := slices.DeleteFunc(slices.Clone(want), func(n string) bool { return strings.HasSuffix(n, "/") }); !sameSet(names, w) {
			t.Errorf("%s holds the files %q; want only %q", image, names, w)
		}
		if d, ok := files["reports/"]; slices.Contains(want, "reports/") && (!ok || d.Uid != 65532 || d.Gid != 65532) {
			t.Errorf("%s: /reports is not a folder of 65532:65532 (%v)", image, d)
		}
		pool, n := parseCerts(files["etc/ssl/certs/ca-certificates.crt"].body)
		if n == 0 || pool == nil {
			t.Errorf("%s: /etc/ssl/certs/ca-certificates.crt holds no certificate", image)
		}
		run := exec.Command(im.p.podman, append(append([]string{"run", "--rm"}, im.p.flags...), "--entrypoint", "/bin/sh", image, "-c", "true")...)
		if out, err := run.CombinedOutput(); err == nil || !strings.Contains(string(out), "/bin/sh") {
			t.Errorf("%s: podman run --entrypoint /bin/sh: %v (want a failure naming /bin/sh)\n%s", image, err, out)
		}
	}
}

// checkHTTPSRoots checks that the suite's image checks an https target's
// certificate with the CA certificates it holds.
func (im images) checkHTTPSRoots(t *testing.T) {
	// An https server whose certificate only its own CA signs: the
	// suite's image reaches it once that CA is mounted where the image
	// keeps its CA certificates, and refuses it with the image's own.
	var requests atomic.Int32
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.NotFound(w, r)
	}))
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	ts.StartTLS()
	defer ts.Close()
	ca := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"BASE_URL=" + ts.URL, "CONFORMANCE_TAGS=@AUTH-2"}
	out, _ := im.p.run(t, im.suite, nil, env)
	if requests.Load() != 0 || !strings.Contains(string(out), "certificate signed by unknown authority") {
		t.Errorf("with the image's CA certificates, %d requests reached a server of an unknown CA; want none, and a certificate signed by an unknown authority:\n%s", requests.Load(), out)
	}
	out, _ = im.p.run(t, im.suite, []string{"-v", ca + ":/etc/ssl/certs/ca-certificates.crt:ro"}, env)
	if requests.Load() == 0 {
		t.Errorf("with its CA mounted on /etc/ssl/certs/ca-certificates.crt, no request reached the server:\n%s", out)
	}
}

// checkSuiteAgainstServer runs the suite's image, its default run, against
// the server's image: a pass, and an exploration after the scenarios.
func (im images) checkSuiteAgainstServer(t *testing.T) {
	started := time.Now()
	base := im.p.startServer(t, im.server, "-addr", "127.0.0.1:"+freePort(t))
	r := im.p.runSuite(t, im.suite, "BASE_URL="+base)
	if passed := r.passed(); r.Outcome != "passed" || r.Counts["failed"] != 0 || passed < 30 || r.Target != base {
		t.Errorf("the suite against %s: %s, rules %v, %d scenarios passed, against %s; want a pass of at least 30 scenarios", base, r.Outcome, r.Counts, passed, r.Target)
	}
	if n := len(r.sequences()); n == 0 {
		t.Errorf("the suite's default run against %s explored no sequence after its scenarios", base)
	}
	for _, s := range r.clock() {
		if s.Verdict != "not run" {
			t.Errorf("%q (@clock) was %s without a control API", s.Name, s.Verdict)
		}
	}
	t.Logf("server and suite: %s", time.Since(started).Round(time.Millisecond))
}

// checkVersions checks the version each image's binary prints.
func (im images) checkVersions(t *testing.T) {
	for _, c := range []struct {
		name, image string
		args        []string
	}{{"eventsvc", im.server, []string{"version"}}, {"conformance", im.suite, []string{"-version"}}} {
		out, err := im.p.run(t, c.image, nil, nil, c.args...)
		if err != nil || !strings.HasPrefix(string(out), c.name+" "+im.tag+"\n") {
			t.Errorf("%s %s: %v\n%s\nwant %q on the first line", c.image, strings.Join(c.args, " "), err, out, c.name+" "+im.tag)
		}
	}
}

// checkCIScript runs ci/conformance.sh, as the GitHub action and the GitLab
// template run it, in image mode with this machine's podman flags; the
// exploration left out by its variable, which the script passes on.
func (im images) checkCIScript(t *testing.T) {
	// ci/conformance.sh, as the GitHub action and the GitLab template
	// run it, in image mode with this machine's podman flags; the
	// exploration left out by its variable, which the script passes on.
	base := im.p.startServer(t, im.server, "-addr", "127.0.0.1:"+freePort(t))
	for _, c := range []struct {
		secret string
		want   int
	}{{"pass", 0}, {"not-the-secret", 2}} {
		reports := filepath.Join(t.TempDir(), "reports")
		script := exec.Command("sh", filepath.Join("..", "ci", "conformance.sh"))
		script.Env = append(os.Environ(), "SUITE_MODE=image", "SUITE_IMAGE="+im.suite, "CONTAINER_ENGINE="+im.p.podman,
			"CONTAINER_RUN_FLAGS="+strings.Join(im.p.flags, " "), "BASE_URL="+base, "CONFORMANCE_TAGS=@TOK-5",
			"CONFORMANCE_CLIENT_SECRET="+c.secret, "CONFORMANCE_REPORT_DIR="+reports, "CONFORMANCE_EXPLORE=0")
		out, _ := script.CombinedOutput()
		if got := script.ProcessState.ExitCode(); got != c.want {
			t.Errorf("ci/conformance.sh with the client secret %q: exit %d, want %d:\n%s", c.secret, got, c.want, out)
		}
		if strings.Contains(string(out), "not-the-secret") {
			t.Errorf("ci/conformance.sh wrote the client secret:\n%s", out)
		}
		b, err := os.ReadFile(filepath.Join(reports, "conformance.json"))
		var r suiteRun
		if err != nil || json.Unmarshal(b, &r) != nil {
			t.Errorf("ci/conformance.sh with the client secret %q wrote no conformance.json in %s: %v\n%s", c.secret, reports, err, out)
		}
		if n := len(r.sequences()); n > 0 {
			t.Errorf("ci/conformance.sh with CONFORMANCE_EXPLORE=0: the suite's image explored %d sequences", n)
		}
	}
}

// checkClockScenarios runs the @clock scenarios of the suite's image against
// the server's image with its control API, which moves its clock.
func (im images) checkClockScenarios(t *testing.T) {
	started := time.Now()
	control := "127.0.0.1:" + freePort(t)
	base := im.p.startServer(t, im.server, "-addr", "127.0.0.1:"+freePort(t), "-control", control)
	r := im.p.runSuite(t, im.suite, "BASE_URL="+base, "CONTROL_URL=http://"+control, "CONFORMANCE_TAGS=@clock and (@spec or @ref)", "CONFORMANCE_EXPLORE=0")
	clock := r.clock()
	if r.Outcome != "passed" || r.Counts["failed"] != 0 || len(clock) < 5 {
		t.Errorf("the @clock scenarios: %s, %v, %d of them; want a pass of at least 5", r.Outcome, r.Counts, len(clock))
	}
	for _, s := range clock {
		if s.Verdict != "passed" {
			t.Errorf("%q (@clock) was %s (%s); want passed", s.Name, s.Verdict, s.NotRunReason)
		}
	}
	if r.passed() != len(clock) {
		t.Errorf("%d scenarios passed; want only the %d @clock ones", r.passed(), len(clock))
	}
	t.Logf("server with its control API and the @clock scenarios: %s", time.Since(started).Round(time.Millisecond))
}

// parseCerts returns the pool of the PEM certificates in b and their count.
func parseCerts(b []byte) (*x509.CertPool, int) {
	pool, n := x509.NewCertPool(), 0
	for {
		var block *pem.Block
		if block, b = pem.Decode(b); block == nil {
			return pool, n
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, n
		}
		pool.AddCert(c)
		n++
	}
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// freePort returns a TCP port free on 127.0.0.1 a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}
