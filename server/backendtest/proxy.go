package backendtest

import (
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"eventsvc/server/backend"

	"github.com/redis/go-redis/v9"
)

// Proxy forwards TCP connections from a loopback port to a backend, and can
// cut or stall the way to it, so that a test sees what a server does when
// its real backend is unreachable or silent, and when it comes back.
type Proxy struct {
	// Addr is the proxy's address, "127.0.0.1:PORT".
	Addr string

	target string
	ln     net.Listener

	mu    sync.Mutex
	mode  proxyMode
	conns map[net.Conn]struct{} // forwarding
	held  map[net.Conn]struct{} // stalled
	wg    sync.WaitGroup
}

type proxyMode int

const (
	forwarding proxyMode = iota
	cut                  // connections are closed at once
	stalled              // connections are accepted and never answered
)

// NewProxy starts a Proxy to target ("host:port"), closed when the test
// ends.
func NewProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{Addr: ln.Addr().String(), target: target, ln: ln, conns: map[net.Conn]struct{}{}, held: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	tb.Cleanup(p.close)
	return p
}

// Cut closes every connection through the proxy and refuses new ones, as
// if the backend had stopped.
func (p *Proxy) Cut() { p.set(cut) }

// Stall closes every connection through the proxy and holds new ones
// without an answer, as if the backend hung.
func (p *Proxy) Stall() { p.set(stalled) }

// Restore forwards new connections again, as if the backend were back.
func (p *Proxy) Restore() { p.set(forwarding) }

func (p *Proxy) set(m proxyMode) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = m
	for c := range p.held {
		_ = c.Close()
	}
	clear(p.held)
	if m != forwarding {
		for c := range p.conns {
			_ = c.Close()
		}
		clear(p.conns)
	}
}

func (p *Proxy) close() {
	_ = p.ln.Close()
	p.set(cut)
	p.wg.Wait()
}

func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mode == cut {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		mode := p.mode
		p.mu.Unlock()
		switch mode {
		case cut:
			_ = c.Close()
			continue
		case stalled:
			p.mu.Lock()
			p.held[c] = struct{}{} // closed by the next change of mode
			p.mu.Unlock()
			continue
		}
		p.wg.Add(1)
		go p.forward(c)
	}
}

func (p *Proxy) forward(c net.Conn) {
	defer p.wg.Done()
	b, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = c.Close()
		return
	}
	if !p.track(c) || !p.track(b) {
		_ = c.Close()
		_ = b.Close()
		return
	}
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(b, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, b); done <- struct{}{} }()
	<-done
	_ = c.Close()
	_ = b.Close()
	<-done
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, b)
	p.mu.Unlock()
}

// RedisBehindProxy is a client, opened as the server opens one
// (backend.OpenRedis, with timeout), of the test binary's redis-server
// through a Proxy the test cuts or stalls; the client is closed when the
// test ends.
func RedisBehindProxy(tb testing.TB, timeout time.Duration) (*RedisServer, *Proxy, *redis.Client) {
	tb.Helper()
	r := Redis(tb)
	proxy := NewProxy(tb, r.Addr)
	client, err := backend.OpenRedis("redis://"+proxy.Addr, timeout)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = client.Close() })
	return r, proxy, client
}

// CheckOutages cuts the connections p carries, then stalls them, and
// checks that each of ops, operations of a store behind p, fails at once
// with backend.ErrUnavailable naming name, all of them within most; then
// it restores p and waits, up to back, for recovered to succeed.
func (p *Proxy) CheckOutages(t *testing.T, name string, most time.Duration, ops map[string]func() error, back time.Duration, recovered func() error) {
	t.Helper()
	for _, fault := range []struct {
		name  string
		apply func()
	}{{"cut", p.Cut}, {"stalled", p.Stall}} {
		fault.apply()
		start := time.Now()
		for op, do := range ops {
			if err := do(); !errors.Is(err, backend.ErrUnavailable) || backend.Name(err) != name {
				t.Errorf("%s, %s: %v, want %s unavailable", fault.name, op, err, name)
			}
		}
		if d := time.Since(start); d > most {
			t.Errorf("%s: %d operations took %v, want at most %v", fault.name, len(ops), d, most)
		}
	}
	p.Restore()
	deadline := time.Now().Add(back)
	for {
		err := recovered()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is back and the store still fails: %v", name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
