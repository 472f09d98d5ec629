package servertest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestLogTakesWritesFromManyGoroutines(t *testing.T) {
	var l Log
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fmt.Fprintf(&l, "line %d\n", i)
		}()
	}
	wg.Wait()
	if n := strings.Count(l.String(), "\n"); n != 50 {
		t.Fatalf("%d lines, want 50", n)
	}
}

func TestDemoConfigLogsInTheDemoAccounts(t *testing.T) {
	cfg := DemoConfig(t)
	for _, a := range [][2]string{{"user@email.com", "user"}, {"admin@email.com", "admin"}} {
		if _, err := cfg.Accounts.Authenticate(a[0], a[1]); err != nil {
			t.Errorf("%s: %v", a[0], err)
		}
	}
}
