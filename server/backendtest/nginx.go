package backendtest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Nginx runs Debian's nginx for one test, with servers, the text of one or
// more server blocks as a deployment writes them, inside an http block of
// the test's own (its temporary files, its logs), in the foreground and as
// one process (master_process off, so that it needs no user to switch
// to). It returns when nginx listens on every address the blocks' listen
// directives name, and stops it when the test ends. Like the backends, it
// is skipped with the reason when nginx is not installed, and fails in CI.
func Nginx(tb testing.TB, servers string) {
	tb.Helper()
	bin, err := nginxBinary()
	if err != nil {
		skipOrFail(tb, "nginx", "apt-get install nginx", err)
		return
	}
	dir := tb.TempDir()
	_ = os.Mkdir(filepath.Join(dir, "logs"), 0o700) // where nginx logs before it reads conf
	conf := filepath.Join(dir, "nginx.conf")
	text := fmt.Sprintf(`daemon off;
master_process off;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 512; }
http {
  access_log %[1]s/access.log;
  client_body_temp_path %[1]s/body;
  proxy_temp_path %[1]s/proxy;
  fastcgi_temp_path %[1]s/fastcgi;
  uwsgi_temp_path %[1]s/uwsgi;
  scgi_temp_path %[1]s/scgi;
  types { text/html html; application/json json; }
  default_type application/octet-stream;
%[2]s
}
`, dir, servers)
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", conf)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	p, err := startProcess(cmd)
	if err != nil {
		tb.Fatalf("backendtest: start nginx: %v", err)
	}
	tb.Cleanup(func() { p.stop(syscall.SIGQUIT, 5*time.Second) })
	for _, addr := range listenAddrs(servers) {
		exited, err := p.waitReady(func() error {
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err == nil {
				c.Close()
			}
			return err
		}, 10*time.Second, 20*time.Millisecond)
		switch {
		case exited:
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			tb.Fatalf("backendtest: nginx stopped at start: %s%s", out.String(), log)
		case err != nil:
			tb.Fatalf("backendtest: nginx does not listen on %s: %v", addr, err)
		}
	}
}

// nginxBinary finds nginx on the PATH, or where Debian puts it, which is
// not on the PATH of a user other than root.
func nginxBinary() (string, error) {
	if bin, err := exec.LookPath("nginx"); err == nil {
		return bin, nil
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx", nil
	}
	return "", fmt.Errorf("nginx: %w", errors.Join(errNotInstalled, exec.ErrNotFound))
}

// listenAddrs are the HOST:PORT addresses of the listen directives of
// servers.
func listenAddrs(servers string) []string {
	var out []string
	for _, line := range strings.Split(servers, "\n") {
		f := strings.Fields(strings.TrimSpace(line))
		if len(f) >= 2 && f[0] == "listen" {
			out = append(out, strings.TrimSuffix(f[1], ";"))
		}
	}
	return out
}
