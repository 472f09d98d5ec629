//go:build linux

package container

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// podman is the podman binary and the flags of the containers it runs.
type podman struct {
	podman string
	// flags are those every container needs here: runc, as crun refuses a
	// hybrid cgroup layout; limits within this process's own, as podman's
	// defaults may be above what the machine allows; the host's network,
	// so that every address stays on loopback.
	flags []string
}

// needPodman finds podman and runc, or skips the test (fails it in CI,
// whose .ci/run installs them).
func needPodman(t *testing.T) podman {
	t.Helper()
	var missing []string
	for _, tool := range []string{"podman", "runc", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) > 0 {
		if os.Getenv("CI") != "" {
			t.Fatalf("no %s: .ci/run installs Debian's podman, buildah and runc for this test", strings.Join(missing, ", "))
		}
		t.Skipf("no %s on this machine (apt-get install podman buildah runc): this test runs in CI", strings.Join(missing, ", "))
	}
	var nofile syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &nofile); err != nil {
		t.Fatal(err)
	}
	path, _ := exec.LookPath("podman")
	return podman{podman: path, flags: []string{
		"--runtime", "runc", "--network", "host",
		"--ulimit", fmt.Sprintf("nofile=%d:%d", nofile.Cur, nofile.Cur), "--ulimit", "nproc=32768:32768",
	}}
}

// startServer starts image with args, waits until it answers /healthz and
// returns its address; the container is removed when the test ends.
func (p podman) startServer(t *testing.T, image string, args ...string) string {
	t.Helper()
	name := "eventsvc-test-" + randomHex(t, 6)
	base := "http://" + args[slices.Index(args, "-addr")+1]
	run := exec.Command(p.podman, append(append(append([]string{"run", "-d", "--name", name}, p.flags...), image, "serve", "-quiet"), args...)...)
	t.Cleanup(func() { p.remove(t, name) })
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("podman run %s: %v\n%s", image, err, out)
	}
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := client.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
	}
	logs, _ := exec.Command(p.podman, "logs", name).CombinedOutput()
	t.Fatalf("%s serve %q did not answer %s/healthz within 30 s:\n%s", image, args, base, logs)
	return ""
}

// remove removes the container name, running or not.
func (p podman) remove(t *testing.T, name string) {
	if out, err := exec.Command(p.podman, "rm", "-f", "-t", "2", name).CombinedOutput(); err != nil {
		t.Logf("podman rm %s: %v\n%s", name, err, out)
	}
}

// run runs image (with the arguments cmd, if any) to its end, with the
// podman options opts and the variables env, within three minutes, and
// returns what it wrote; the container is removed when the test ends.
func (p podman) run(t *testing.T, image string, opts, env []string, cmd ...string) ([]byte, error) {
	t.Helper()
	name := "conformance-test-" + randomHex(t, 6)
	args := append(append([]string{"run", "--name", name}, p.flags...), opts...)
	for _, e := range env {
		args = append(args, "-e", e)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	t.Cleanup(func() { p.remove(t, name) })
	return exec.CommandContext(ctx, p.podman, append(append(args, image), cmd...)...).CombinedOutput()
}

// imageConfig is the part of an image's configuration the test checks.
type imageConfig struct {
	User         string              `json:"User"`
	Entrypoint   []string            `json:"Entrypoint"`
	Cmd          []string            `json:"Cmd"`
	Env          []string            `json:"Env"`
	ExposedPorts map[string]struct{} `json:"ExposedPorts"`
	Volumes      map[string]struct{} `json:"Volumes"`
	Labels       map[string]string   `json:"Labels"`
}

// inspect returns the configuration of image.
func inspect(t *testing.T, p podman, image string) imageConfig {
	t.Helper()
	out, err := exec.Command(p.podman, "image", "inspect", "--format", "{{json .Config}}", image).Output()
	if err != nil {
		t.Fatalf("podman image inspect %s: %v", image, err)
	}
	var cfg imageConfig
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatalf("podman image inspect %s: %v\n%s", image, err, out)
	}
	return cfg
}

// exported is one entry of an image's file system.
type exported struct {
	*tar.Header
	body []byte
}

// export returns every entry of the file system of a container of image,
// by name (folders end with "/"), with the contents of the small files.
func export(t *testing.T, p podman, image string) map[string]exported {
	t.Helper()
	name := "export-test-" + randomHex(t, 6)
	if out, err := exec.Command(p.podman, "create", "--name", name, image).CombinedOutput(); err != nil {
		t.Fatalf("podman create %s: %v\n%s", image, err, out)
	}
	defer p.remove(t, name)
	var stderr bytes.Buffer
	cmd := exec.Command(p.podman, "export", name)
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	files := map[string]exported{}
	tr := tar.NewReader(stdout)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("podman export %s: %v", image, err)
		}
		e := exported{Header: h}
		if h.Typeflag == tar.TypeReg && h.Size < 1<<20 {
			if e.body, err = io.ReadAll(tr); err != nil {
				t.Fatal(err)
			}
		}
		files[strings.TrimPrefix(h.Name, "./")] = e
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("podman export %s: %v\n%s", image, err, stderr.String())
	}
	return files
}

// randomHex returns n random bytes in hex, to name containers and tags.
func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
