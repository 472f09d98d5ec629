package backendtest

import "testing"

// NewRedis starts a redis-server of the test's own, stopped and removed
// when the test ends: for a package with one test that needs it, which
// then needs no TestMain.
func NewRedis(tb testing.TB) *RedisServer {
	tb.Helper()
	r, stop, err := startRedis()
	own(tb, "redis-server", "apt-get install redis-server", stop, err)
	return r
}

// NewPostgres starts a PostgreSQL of the test's own, stopped and removed
// when the test ends, as NewRedis does.
func NewPostgres(tb testing.TB) *PostgresServer {
	tb.Helper()
	p, stop, err := startPostgres()
	own(tb, "PostgreSQL", "apt-get install postgresql", stop, err)
	return p
}

func own(tb testing.TB, what, install string, stop func(), err error) {
	tb.Helper()
	if err != nil {
		skipOrFail(tb, what, install, err)
	}
	tb.Cleanup(stop)
}
