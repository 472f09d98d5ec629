package backendtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisServer is a redis-server on 127.0.0.1, without persistence.
type RedisServer struct {
	// Addr is "127.0.0.1:PORT".
	Addr string
	// URL is "redis://127.0.0.1:PORT/0".
	URL string
}

// Redis returns the test binary's redis-server, starting it on first use.
func Redis(tb testing.TB) *RedisServer {
	tb.Helper()
	return current.redis.get(tb, "redis-server", "apt-get install redis-server")
}

// Prefix returns a key prefix of its own for one test, so that tests
// sharing the server share no key.
func (r *RedisServer) Prefix(tb testing.TB) string {
	return uniqueName("test-") + ":"
}

func startRedis() (*RedisServer, func(), error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, nil, fmt.Errorf("redis-server: %w", errNotInstalled)
	}
	dir, err := os.MkdirTemp("", "eventsvc-redis-")
	if err != nil {
		return nil, nil, err
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", dir, "--logfile", dir+"/redis.log")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	p, err := startProcess(cmd)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("start redis-server: %w", err)
	}
	stop := func() {
		p.stop(syscall.SIGTERM, 10*time.Second)
		_ = os.RemoveAll(dir)
	}
	r := &RedisServer{Addr: fmt.Sprintf("127.0.0.1:%d", port)}
	r.URL = "redis://" + r.Addr + "/0"
	c := redis.NewClient(&redis.Options{Addr: r.Addr, MaxRetries: -1})
	defer c.Close()
	exited, err := p.waitReady(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return c.Ping(ctx).Err()
	}, 20*time.Second, 50*time.Millisecond)
	switch {
	case err == nil:
		return r, stop, nil
	case exited:
		log, _ := os.ReadFile(dir + "/redis.log")
		_ = os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("redis-server exited (%v): %s", err, log)
	}
	stop()
	return nil, nil, fmt.Errorf("redis-server does not answer on %s: %w", r.Addr, err)
}
