package servertest_test

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"eventsvc/server"
	"eventsvc/server/config"
	"eventsvc/server/servertest"
)

func demoServer(t *testing.T) *server.Server {
	t.Helper()
	cfg, err := config.Demo()
	if err != nil {
		t.Fatal(err)
	}
	return server.New(server.Options{Config: cfg})
}

// get fetches url and returns its status.
func get(t *testing.T, url string) int {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second}
	defer c.CloseIdleConnections()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// checkStopped fails the test if anything listens at addr, or if the port
// cannot be listened on again.
func checkStopped(t *testing.T, addr string) {
	t.Helper()
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Fatalf("%s still accepts connections", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("the port is not free: %v", err)
	}
	ln.Close()
}

func TestStartServesOnLoopbackUntilClose(t *testing.T) {
	r, err := servertest.Start(demoServer(t))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.URL, "http://127.0.0.1:") || r.URL != "http://"+r.Addr {
		t.Errorf("URL %q, Addr %q; want http://127.0.0.1:PORT and 127.0.0.1:PORT", r.URL, r.Addr)
	}
	if code := get(t, r.URL+"/api"); code != http.StatusOK {
		t.Errorf("GET /api: status %d, want 200", code)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	checkStopped(t, r.Addr)
	if err := r.Close(); err != nil {
		t.Errorf("second Close() = %v, want nil", err)
	}
}

func TestNewClosesWhenTheTestEnds(t *testing.T) {
	var addr string
	t.Run("serve", func(t *testing.T) {
		r := servertest.New(t, demoServer(t))
		addr = r.Addr
		if code := get(t, r.URL+"/api"); code != http.StatusOK {
			t.Errorf("GET /api: status %d, want 200", code)
		}
	})
	checkStopped(t, addr)
}

// stub is a Server whose Serve and Shutdown fail as told.
type stub struct {
	serveErr, shutdownErr error
	stop                  chan struct{}
}

func (s *stub) Serve(ln net.Listener) error {
	<-s.stop
	return s.serveErr // and leaves ln open
}

func (s *stub) Shutdown() error {
	close(s.stop)
	return s.shutdownErr
}

func TestCloseReportsAndFreesThePort(t *testing.T) {
	errServe, errShutdown := errors.New("serve failed"), errors.New("shutdown failed")
	for _, tt := range []struct {
		name string
		stub stub
		want error
	}{
		{"no error", stub{}, nil},
		{"serve fails", stub{serveErr: errServe}, errServe},
		{"shutdown fails", stub{shutdownErr: errShutdown, serveErr: errServe}, errShutdown},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.stub.stop = make(chan struct{})
			r, err := servertest.Start(&tt.stub)
			if err != nil {
				t.Fatal(err)
			}
			err = r.Close()
			if tt.want == nil && err != nil || !errors.Is(err, tt.want) {
				t.Fatalf("Close() = %v, want %v", err, tt.want)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "servertest: ") {
				t.Errorf("Close() = %q, want the prefix servertest: ", err)
			}
			checkStopped(t, r.Addr)
			if again := r.Close(); again != err {
				t.Errorf("second Close() = %v, want %v again", again, err)
			}
		})
	}
}
