package meet

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// stamped records when each connection a client dials is ready and when
// the first byte of a request is written on any of them.
type stamped struct {
	mu         sync.Mutex
	ready      []time.Time
	firstWrite time.Time
}

// dial opens a connection, the first it opens slowly: without a gate
// the other requests would be written before it is open.
func (s *stamped) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	s.mu.Lock()
	slow := len(s.ready) == 0
	s.ready = append(s.ready, time.Time{})
	i := len(s.ready) - 1
	s.mu.Unlock()
	if slow {
		time.Sleep(300 * time.Millisecond)
	}
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.ready[i] = time.Now()
	s.mu.Unlock()
	return &stampedConn{Conn: c, s: s}, nil
}

type stampedConn struct {
	net.Conn
	s *stamped
}

func (c *stampedConn) Write(p []byte) (int, error) {
	c.s.mu.Lock()
	if c.s.firstWrite.IsZero() {
		c.s.firstWrite = time.Now()
	}
	c.s.mu.Unlock()
	return c.Conn.Write(p)
}

func newClient(s *stamped) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: s.dial, DisableKeepAlives: true}}
}

func TestNoRequestIsWrittenBeforeEveryConnectionIsReady(t *testing.T) {
	srv := okServer(t)
	s := &stamped{}
	client := newClient(s)
	status := make([]int, 3)
	Send(context.Background(), len(status), 0, func(ctx context.Context, i int) {
		status[i] = statusOf(t, ctx, client, http.MethodPost, srv.URL)
	})
	for i, code := range status {
		if code != http.StatusOK {
			t.Errorf("request %d answered %d", i, code)
		}
	}
	if len(s.ready) != len(status) {
		t.Fatalf("%d connections were dialled for %d requests", len(s.ready), len(status))
	}
	for i, at := range s.ready {
		if at.After(s.firstWrite) {
			t.Errorf("connection %d was ready %v after the first request was written", i, at.Sub(s.firstWrite))
		}
	}
}

func TestARequestThatGetsNoConnectionHoldsNoOther(t *testing.T) {
	srv := okServer(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close() // its port refuses connections
	start := time.Now()
	var answered bool
	Send(context.Background(), 2, 0, func(ctx context.Context, i int) {
		url := []string{srv.URL, closed.URL}[i]
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if i == 1 {
			if err == nil {
				resp.Body.Close()
				t.Error("a closed port answered")
			}
			return
		}
		if err != nil {
			t.Error(err)
			return
		}
		resp.Body.Close()
		answered = true
	})
	if !answered {
		t.Error("the request to the open port was not answered")
	}
	if waited := time.Since(start); waited >= MaxWait {
		t.Errorf("the request waited %v for one that got no connection", waited)
	}
}

func TestARequestWhoseTransportTellsNoConnectionHoldsNoOther(t *testing.T) {
	srv := okServer(t)
	silent := roundTripper(func(r *http.Request) (*http.Response, error) {
		return http.DefaultTransport.RoundTrip(r.WithContext(context.WithoutCancel(context.Background())))
	})
	start := time.Now()
	codes := make([]int, 2)
	Send(context.Background(), 2, 0, func(ctx context.Context, i int) {
		client := []*http.Client{http.DefaultClient, {Transport: silent}}[i]
		codes[i] = statusOf(t, ctx, client, http.MethodGet, srv.URL)
	})
	if codes[0] != http.StatusOK || codes[1] != http.StatusOK {
		t.Errorf("answers %v, want two 200s", codes)
	}
	if waited := time.Since(start); waited >= MaxWait {
		t.Errorf("the request waited %v for one whose transport tells no connection", waited)
	}
}

func TestSendingNothingReturns(t *testing.T) {
	Send(context.Background(), 0, 0, func(context.Context, int) { t.Error("send called") })
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestARedirectedRequestIsHeldOnce: a request that follows a redirect
// while the gate is still shut is held at its first connection, not at
// the connection of every request it makes.
func TestARedirectedRequestIsHeldOnce(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/here", http.StatusFound)
			return
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	const hold = 500 * time.Millisecond
	var took time.Duration
	Send(context.Background(), 2, hold, func(ctx context.Context, i int) {
		if i == 1 {
			time.Sleep(4 * hold) // no request: the gate stays shut until it returns
			return
		}
		start := time.Now()
		client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		if statusOf(t, ctx, client, http.MethodGet, srv.URL+"/moved") != 0 {
			took = time.Since(start)
		}
	})
	if took >= 2*hold {
		t.Errorf("the redirected request took %v: held at each of its two connections for %v", took, hold)
	}
	if took < hold {
		t.Errorf("the redirected request took %v: not held at all for the other, whose connection never came", took)
	}
}

// statusOf sends method to address by client and returns the answer's
// status, or 0 when it got none, which fails the test.
func statusOf(t *testing.T, ctx context.Context, client *http.Client, method, address string) int {
	req, _ := http.NewRequestWithContext(ctx, method, address, nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Error(err)
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// okServer answers every request "ok", until the test ends.
func okServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	t.Cleanup(srv.Close)
	return srv
}
