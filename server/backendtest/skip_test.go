package backendtest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that records Skipf and Fatalf instead of
// ending the test.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                          {}
func (r *recorder) Skipf(format string, args ...any) { r.skipped = fmt.Sprintf(format, args...) }
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
}

// A server missing on a developer's machine skips the test, saying how to
// install it; in CI, or when it is installed and fails to start, the test
// fails.
func TestAMissingServerSkipsExceptInCI(t *testing.T) {
	missing := fmt.Errorf("redis-server: %w", errNotInstalled)
	t.Setenv("CI", "")
	r := &recorder{TB: t}
	skipOrFail(r, "redis-server", "apt-get install redis-server", missing)
	if r.skipped == "" || r.failed != "" || !strings.Contains(r.skipped, "apt-get install redis-server") {
		t.Errorf("on a developer's machine: skipped %q, failed %q", r.skipped, r.failed)
	}
	t.Setenv("CI", "true")
	r = &recorder{TB: t}
	skipOrFail(r, "redis-server", "apt-get install redis-server", missing)
	if r.skipped != "" || r.failed == "" {
		t.Errorf("in CI: skipped %q, failed %q", r.skipped, r.failed)
	}
	t.Setenv("CI", "")
	r = &recorder{TB: t}
	skipOrFail(r, "PostgreSQL", "apt-get install postgresql", errors.New("initdb: exit status 1"))
	if r.skipped != "" || r.failed == "" {
		t.Errorf("installed and failing: skipped %q, failed %q", r.skipped, r.failed)
	}
}
