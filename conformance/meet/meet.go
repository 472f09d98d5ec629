// Package meet sends requests so that they meet at the target: each is
// held at the moment its connection is ready (dialled, tunnelled through
// a proxy, its TLS handshake done) until every other request's is too,
// and all are then written together. What a connection costs to open
// then comes before that moment instead of between the requests, and
// requests that must meet at the target to show a race do, even from a
// busy machine. Tools of web security call this last-moment
// synchronisation; with HTTP/1.1 the moment is before the first byte.
//
// The moment a connection is ready is told by the transport through
// [httptrace.ClientTrace.GotConn], which [net/http.Transport] calls for
// HTTP/1.1 and HTTP/2 alike. A request whose transport never calls it
// counts as ready once it is answered, so that no request waits for it;
// and no request waits at the gate longer than its hold (Send).
package meet

import (
	"context"
	"net/http/httptrace"
	"sync"
	"time"
)

// MaxWait is the longest a request waits at the gate for the others: a
// connection that takes longer to open is not waited for.
const MaxWait = 5 * time.Second

// Send calls send(ctx, i) for each i below n, each from a goroutine of
// its own, and returns when all have returned. Each gets a context,
// derived from ctx, that its request must carry: it holds the request at
// the moment its connection is ready until every other's is ready or has
// returned, ctx is done, or hold has passed (MaxWait when hold is zero or
// longer): a caller whose requests have a time of their own gives a part
// of it, so that the wait does not use it up. A send that makes more than
// one request (a redirect followed, a retry) is held at its first
// connection only.
func Send(ctx context.Context, n int, hold time.Duration, send func(ctx context.Context, i int)) {
	if hold <= 0 || hold > MaxWait {
		hold = MaxWait
	}
	g := &gate{left: n, open: make(chan struct{})}
	if n == 0 {
		close(g.open)
	}
	var done sync.WaitGroup
	for i := range n {
		done.Add(1)
		go func() {
			defer done.Done()
			var once sync.Once
			arrive := func() (first bool) {
				once.Do(func() { g.arrive(); first = true })
				return first
			}
			defer arrive()
			trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) {
				if arrive() {
					g.wait(ctx, hold)
				}
			}}
			send(httptrace.WithClientTrace(ctx, trace), i)
		}()
	}
	done.Wait()
}

// gate opens once every request has arrived.
type gate struct {
	mu   sync.Mutex
	left int           // requests not arrived yet
	open chan struct{} // closed when left reaches 0
}

func (g *gate) arrive() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.left--; g.left == 0 {
		close(g.open)
	}
}

// wait returns once the gate is open, ctx is done, or hold has passed.
func (g *gate) wait(ctx context.Context, hold time.Duration) {
	timer := time.NewTimer(hold)
	defer timer.Stop()
	select {
	case <-g.open:
	case <-ctx.Done():
	case <-timer.C:
	}
}
