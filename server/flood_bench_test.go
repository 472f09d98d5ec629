package server

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"testing"
)

// BenchmarkLoginUnderAFlood is one password grant of the demo user from
// 127.0.0.2, with the demo credentials and their bcrypt cost (10), while 8
// connections from 127.0.0.1 send token requests with a new client id each
// time (a "+" in it, for a second bcrypt of the id as sent), which the
// per-name lockout cannot stop: with the token endpoint's budget per
// address ("budget") and without ("no-budget"), beside no flood at all
// ("quiet"). It also reports how many flood requests were answered, and
// how many of them with 429.
func BenchmarkLoginUnderAFlood(b *testing.B) {
	conf := demoConfig(b)
	for _, bc := range []struct {
		name  string
		flood bool
		rate  float64
	}{
		{"quiet", false, 0},
		{"no-budget", true, -1},
		{"budget", true, 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			addr, _ := listenWith(b, Options{Config: conf, TokenRate: bc.rate})
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			var mu sync.Mutex
			answered, refused := 0, 0
			if bc.flood {
				for g := 0; g < 8; g++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						c := clientFrom("127.0.0.1")
						defer c.CloseIdleConnections()
						for i := 0; ctx.Err() == nil; i++ {
							a, err := postToken(c, addr, "flood+"+strconv.Itoa(g)+"-"+strconv.Itoa(i), "secret", unknownLogin, nil)
							if err != nil {
								continue
							}
							mu.Lock()
							answered++
							if a.status == http.StatusTooManyRequests {
								refused++
							}
							mu.Unlock()
						}
					}()
				}
			}
			user := clientFrom("127.0.0.2")
			defer user.CloseIdleConnections()
			for b.Loop() {
				a, err := postToken(user, addr, "myApp", "pass", userLogin("user"), nil)
				if err != nil {
					b.Fatal(err)
				}
				if a.status != http.StatusOK {
					b.Fatalf("login: status %d", a.status)
				}
			}
			b.StopTimer()
			cancel()
			wg.Wait()
			b.ReportMetric(float64(answered), "flood-answers")
			b.ReportMetric(float64(refused), "flood-429s")
		})
	}
}
