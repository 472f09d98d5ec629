package explore

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"eventsvc/conformance/explore/flawed"
	"eventsvc/conformance/report"
	"eventsvc/conformance/target"
)

// The bounds of an exploration: its budgets of events and wrong logins,
// its time, read-only, and the target's: a lockout, an outage.

// counter counts the requests a target gets, by kind.
type counter struct {
	mu           sync.Mutex
	creations    int // POST /api/events
	writes       int // POST and PUT under /api
	failedLogins int // token requests with wrong credentials, refused
}

// wrongCredentials reports whether a token request sends credentials
// other than the demo client's and accounts': a failed login, which a
// lockout counts. One refused for its method, its parameters' place or
// its scope, with the right credentials, is none.
func wrongCredentials(r *http.Request, form url.Values) bool {
	c := target.DemoCredentials
	if id, secret, ok := r.BasicAuth(); ok {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		if id != c.ClientID || secret != c.ClientSecret {
			return true
		}
	}
	if form.Get("grant_type") != "password" {
		return false
	}
	user, pass := form.Get("username"), form.Get("password")
	return !(strings.EqualFold(user, c.Username) && pass == c.Password || strings.EqualFold(user, c.OtherUsername) && pass == c.OtherPass)
}

func (c *counter) seen(r *http.Request, body []byte, status int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	form, _ := url.ParseQuery(string(body))
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/api/events":
		c.creations++
		c.writes++
	case r.Method == http.MethodPost && r.URL.Path == "/oauth/token":
		if status != http.StatusOK && wrongCredentials(r, form) {
			c.failedLogins++
		}
	case r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodOptions && r.URL.Path != "/oauth/token":
		c.writes++
	}
}

func TestExplorationStaysWithinItsBudgets(t *testing.T) {
	var c counter
	base := flawed.StartProxy(t, flawed.Named(t, "a body with markup fails the server"), c.seen)
	var out bytes.Buffer
	_, err := Run(context.Background(), Options{Target: remote(base), Seed: 1, MaxActions: 300, MaxEvents: 40, FailedLogins: 2, Output: &out})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	if c.creations > 40 || c.failedLogins > 2 {
		t.Errorf("the run sent %d creations (budget 40) and %d wrong logins (budget 2)", c.creations, c.failedLogins)
	}
	if !strings.Contains(out.String(), "40 events, 2 failed logins") {
		t.Errorf("the budgets are not announced at the start:\n%s", out.String())
	}
}

func TestMaxTimeEndsTheExploration(t *testing.T) {
	var out bytes.Buffer
	start := time.Now()
	rep, err := Run(context.Background(), Options{Target: inProcess(t), Seed: 9, MaxActions: 1_000_000, MaxTime: 700 * time.Millisecond, Output: &out})
	if err != nil {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	if took := time.Since(start); took > 10*time.Second || len(rep.Scenarios) == 0 {
		t.Fatalf("a run of 700ms took %s and ran %d sequences", took, len(rep.Scenarios))
	}
}

func TestAReadOnlyExplorationWritesNothing(t *testing.T) {
	var c counter
	base := flawed.StartProxy(t, flawed.Flaw{Name: "none"}, c.seen)
	var out bytes.Buffer
	rep, err := Run(context.Background(), Options{Target: remote(base), Seed: 4, MaxActions: 200, ReadOnly: true, Output: &out})
	if err != nil {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	if c.writes != 0 {
		t.Errorf("a read-only exploration sent %d writes", c.writes)
	}
	if len(actionsOf(rep)) < 150 {
		t.Errorf("a read-only exploration ran %d actions", len(actionsOf(rep)))
	}
}

// forward sends r on to the server at base, and its answer back.
func forward(w http.ResponseWriter, r *http.Request, base string) {
	req, _ := http.NewRequest(r.Method, base+r.URL.RequestURI(), r.Body)
	req.Header = r.Header.Clone()
	req.Host = r.Host
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

func TestALockoutThrottlesTheExploration(t *testing.T) {
	ref := flawed.Start(t, flawed.Flaw{Name: "none"})
	var calls sync.Map
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := calls.LoadOrStore(r.URL.Path, new(atomic.Int64))
		if n.(*atomic.Int64).Add(1) > 120 && r.URL.Path == "/api/events" {
			w.Header().Set("Retry-After", "300")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		forward(w, r, ref)
	}))
	defer srv.Close()
	var out bytes.Buffer
	rep, err := Run(context.Background(), Options{Target: remote(srv.URL), Seed: 3, MaxActions: 300, Output: &out})
	if !errors.Is(err, ErrThrottled) || rep == nil || rep.Outcome != report.OutcomeThrottled || rep.Findings() != 0 {
		t.Fatalf("Run = %v, report %+v\n%s", err, rep, out.String())
	}
	if len(rep.Scenarios) == 0 {
		t.Fatalf("the run was throttled before any sequence\n%s", out.String())
	}
}

func TestATargetThatStopsAnsweringEndsTheExplorationAsUnreachable(t *testing.T) {
	ref := flawed.Start(t, flawed.Flaw{Name: "none"})
	var mu sync.Mutex
	served, down := 0, false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		served++
		if served > 250 { // the setup, and the links of its answers the audit follows, done
			down = true
		}
		isDown := down
		mu.Unlock()
		if isDown {
			w.WriteHeader(http.StatusBadGateway)
			w.Write([]byte("<html>upstream connect error</html>"))
			return
		}
		forward(w, r, ref)
	}))
	defer srv.Close()
	var out bytes.Buffer
	start := time.Now()
	rep, err := Run(context.Background(), Options{Target: remote(srv.URL), Seed: 6, Output: &out})
	if !errors.Is(err, ErrUnreachable) || rep == nil || rep.Outcome != report.OutcomeUnreachable || rep.Findings() != 0 {
		t.Fatalf("Run = %v, report %+v\n%s", err, rep, out.String())
	}
	if time.Since(start) > 30*time.Second {
		t.Errorf("the run went on for %s after the target went down", time.Since(start))
	}
}
