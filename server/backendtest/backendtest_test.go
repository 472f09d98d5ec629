package backendtest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func TestRedisAnswers(t *testing.T) {
	r := Redis(t)
	opts, err := redis.ParseURL(r.URL)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	key := r.Prefix(t) + "k"
	if err := c.Set(ctx, key, "v", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Get(ctx, key).Result(); err != nil || v != "v" {
		t.Fatalf("get: %q, %v", v, err)
	}
	if Redis(t) != r {
		t.Error("a second call starts another server")
	}
}

func TestPostgresGivesEachTestADatabase(t *testing.T) {
	p := Postgres(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, b := p.Database(t), p.Database(t)
	if a == b {
		t.Fatal("two tests share a database")
	}
	conn, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE TABLE t (x int)"); err != nil {
		t.Fatal(err)
	}
	var v string
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	t.Logf("PostgreSQL %s at %s", v, p.Addr)
}

func TestProxyCutsStallsAndRestores(t *testing.T) {
	r := Redis(t)
	p := NewProxy(t, r.Addr)
	c := redis.NewClient(&redis.Options{Addr: p.Addr, MaxRetries: -1, DialTimeout: 300 * time.Millisecond, ReadTimeout: 300 * time.Millisecond})
	defer c.Close()
	ping := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return c.Ping(ctx).Err()
	}
	if err := ping(); err != nil {
		t.Fatalf("through the proxy: %v", err)
	}
	p.Cut()
	if err := ping(); err == nil {
		t.Fatal("cut, and Redis still answers")
	}
	p.Stall()
	start := time.Now()
	if err := ping(); err == nil {
		t.Fatal("stalled, and Redis still answers")
	}
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Errorf("stalled, the ping failed after %v, before its timeout", d)
	}
	p.Restore()
	var err error
	for i := 0; i < 3; i++ { // a connection closed by the stall may be tried first
		if err = ping(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("restored: %v", err)
	}
}
