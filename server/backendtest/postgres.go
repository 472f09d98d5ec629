package backendtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgresServer is a PostgreSQL cluster on 127.0.0.1 that trusts every
// local connection, tuned for tests (no fsync).
type PostgresServer struct {
	// Addr is "127.0.0.1:PORT".
	Addr string
}

// Postgres returns the test binary's PostgreSQL, starting it on first use.
func Postgres(tb testing.TB) *PostgresServer {
	tb.Helper()
	return current.postgre.get(tb, "PostgreSQL", "apt-get install postgresql")
}

// URL returns the address of database db.
func (p *PostgresServer) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", p.Addr, db)
}

// Database creates an empty database of its own for one test, dropped when
// the test ends, and returns its URL.
func (p *PostgresServer) Database(tb testing.TB) string {
	tb.Helper()
	name := uniqueName("test_")
	if err := p.exec("CREATE DATABASE " + name); err != nil {
		tb.Fatalf("backendtest: create database: %v", err)
	}
	tb.Cleanup(func() {
		if err := p.exec("DROP DATABASE " + name + " WITH (FORCE)"); err != nil {
			tb.Errorf("backendtest: drop database: %v", err)
		}
	})
	return p.URL(name)
}

// exec runs one statement in the postgres database.
func (p *PostgresServer) exec(sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, p.URL("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// postgresBin finds the directory of the newest PostgreSQL's programs.
func postgresBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("postgres"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("postgres (/usr/lib/postgresql/*/bin): %w", errNotInstalled)
}

// asPostgres makes cmd run as the postgres user when this process is
// root, since PostgreSQL refuses to run as root, and dies with this
// process.
func asPostgres(cmd *exec.Cmd, cred *syscall.Credential) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Credential: cred}
	cmd.Env = append(os.Environ(), "LC_ALL=C")
}

// postgresUser is the credential to run PostgreSQL with: the postgres
// user's when this process is root, nil (this process's) otherwise.
func postgresUser() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, PostgreSQL needs the postgres user: %w", errNotInstalled)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func startPostgres() (*PostgresServer, func(), error) {
	bin, err := postgresBin()
	if err != nil {
		return nil, nil, err
	}
	cred, err := postgresUser()
	if err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp("", "eventsvc-pg-")
	if err != nil {
		return nil, nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return nil, nil, err
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres",
		"--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync")
	asPostgres(initdb, cred)
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("initdb: %w: %s", err, out)
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	logFile, err := os.Create(filepath.Join(dir, "postgres.log"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-k", dir,
		"-p", strconv.Itoa(port), "-c", "listen_addresses=127.0.0.1",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=200", "-c", "shared_buffers=64MB")
	asPostgres(cmd, cred)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	proc, err := startProcess(cmd)
	if err != nil {
		logFile.Close()
		os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("start postgres: %w", err)
	}
	stop := func() {
		proc.stop(syscall.SIGINT, 15*time.Second) // fast shutdown
		logFile.Close()
		_ = os.RemoveAll(dir)
	}
	p := &PostgresServer{Addr: fmt.Sprintf("127.0.0.1:%d", port)}
	exited, err := proc.waitReady(func() error { return p.exec("SELECT 1") }, 60*time.Second, 100*time.Millisecond)
	switch {
	case err == nil:
		return p, stop, nil
	case exited:
		log, _ := os.ReadFile(filepath.Join(dir, "postgres.log"))
		logFile.Close()
		_ = os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("postgres exited (%v): %s", err, log)
	}
	stop()
	return nil, nil, fmt.Errorf("postgres does not answer on %s: %w", p.Addr, err)
}
