package suite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"eventsvc/conformance/target"
	"eventsvc/server/backendtest"
	"eventsvc/server/secret"
)

// replicaTags selects what a remote run of the reference server checks:
// the specification and the reference choices (@spec and @ref), without
// the in-process server or real-time waits.
const replicaTags = "@spec,@ref && ~@local && ~@slow"

// replica is one eventsvc process.
type replica struct {
	addr     string
	cmd      *exec.Cmd
	done     chan error
	log      *syncWriter
	stopOnce sync.Once
}

// syncWriter is a buffer that a process writes to while a test may read
// it.
type syncWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// stop stops the replica as an orchestrator does (SIGTERM: the requests in
// flight are finished) and waits for it; once.
func (r *replica) stop(t *testing.T) {
	t.Helper()
	r.stopOnce.Do(func() { r.stopNow(t) })
}

func (r *replica) stopNow(t *testing.T) {
	t.Helper()
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("replica %s: %v\n%s", r.addr, err, r.log)
		}
	case <-time.After(20 * time.Second):
		_ = r.cmd.Process.Kill()
		<-r.done
		t.Errorf("replica %s did not stop on SIGTERM", r.addr)
	}
}

// buildEventsvc builds bin/eventsvc's program into dir, under the race
// detector when the tests run under it (raceBuild).
func buildEventsvc(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "eventsvc")
	args := []string{"build", "-o", bin}
	if raceBuild {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "./cmd/eventsvc")...)
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/eventsvc: %v\n%s", err, out)
	}
	return bin
}

// replicaConfig writes a configuration with the demo client and accounts,
// hashed at bcrypt's lowest cost so that the run stays quick, and a third
// account for the lockout check.
func replicaConfig(t *testing.T, dir string) string {
	t.Helper()
	hash := func(s string) string {
		h, err := secret.Hash([]byte(s), 4)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	d := target.DemoCredentials
	cfg := map[string]any{
		"clients": []map[string]any{{"clientId": d.ClientID, "clientSecret": hash(d.ClientSecret),
			"authorizedGrantTypes": []string{"password", "refresh_token"}, "scopes": []string{"read", "write"}, "resourceIds": []string{"event"}}},
		"accounts": []map[string]any{
			{"email": d.OtherUsername, "password": hash(d.OtherPass), "roles": []string{"ADMIN", "USER"}},
			{"email": d.Username, "password": hash(d.Password), "roles": []string{"USER"}},
			{"email": "third@email.com", "password": hash("third"), "roles": []string{"USER"}},
		},
	}
	b, _ := json.Marshal(cfg)
	path := filepath.Join(dir, "config.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// startReplica starts bin serve on a free loopback port with args and
// waits until it answers.
func startReplica(t *testing.T, bin string, args ...string) *replica {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	r := &replica{addr: addr, log: &syncWriter{}, done: make(chan error, 1)}
	r.cmd = exec.Command(bin, append([]string{"serve", "-addr", addr}, args...)...)
	r.cmd.Stdout, r.cmd.Stderr = r.log, r.log
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.done <- r.cmd.Wait() }()
	t.Cleanup(func() { r.stop(t) })
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/api"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica on %s does not answer:\n%s", addr, r.log)
		}
	}
}

// roundRobin is a load balancer of the test's own: each request goes to
// the next replica; when a replica fails it before any answer (it refuses
// the connection, or closes it unread, as a replica that is stopping does
// with a connection it has not started to read), the request goes to the
// next one, as a balancer's "next upstream on error" does. It keeps no
// connection open between requests and passes the Host header on, so
// that the links the replicas build lead back to it.
type roundRobin struct {
	addrs     []string
	next      atomic.Uint64
	transport *http.Transport
	served    []atomic.Int64
}

func newRoundRobin(addrs ...string) *roundRobin {
	return &roundRobin{addrs: addrs, transport: &http.Transport{DisableKeepAlives: true}, served: make([]atomic.Int64, len(addrs))}
}

func (p *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	start := p.next.Add(1)
	var lastErr error
	for i := range p.addrs {
		n := int((start + uint64(i)) % uint64(len(p.addrs)))
		out := r.Clone(r.Context())
		out.RequestURI = ""
		out.URL.Scheme, out.URL.Host = "http", p.addrs[n]
		out.Host = r.Host
		out.Body = io.NopCloser(bytes.NewReader(body))
		out.ContentLength = int64(len(body))
		resp, err := p.transport.RoundTrip(out)
		if err != nil {
			lastErr = err
			continue // no answer: the next replica
		}
		p.served[n].Add(1)
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
		resp.Body.Close()
		return
	}
	http.Error(w, fmt.Sprintf("no replica answers: %v", lastErr), http.StatusBadGateway)
}

// api is a small client of one base URL for the checks beside the suite.
type api struct {
	t    *testing.T
	base string
}

func (a api) do(method, path, token string, form url.Values, body string) (int, map[string]any) {
	a.t.Helper()
	var rd io.Reader
	if form != nil {
		rd = strings.NewReader(form.Encode())
	} else if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, a.base+path, rd)
	switch {
	case form != nil:
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(target.DemoCredentials.ClientID, target.DemoCredentials.ClientSecret)
	case body != "":
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := (&http.Client{Timeout: 15 * time.Second}).Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func (a api) login(username, password string) (access, refresh string) {
	a.t.Helper()
	status, body := a.do("POST", "/oauth/token", "", url.Values{"grant_type": {"password"}, "username": {username}, "password": {password}}, "")
	if status != http.StatusOK {
		a.t.Fatalf("login %s on %s: %d %v", username, a.base, status, body)
	}
	return body["access_token"].(string), body["refresh_token"].(string)
}

const replicaEvent = `{"name":"replica %d","description":"written through the balancer","beginEnrollmentDateTime":"2026-11-01T10:00:00","closeEnrollmentDateTime":"2026-11-02T10:00:00","beginEventDateTime":"2026-11-03T10:00:00","endEventDateTime":"2026-11-04T10:00:00","location":"Room 1"}`

// TestTwoReplicasOnOneRedisAndOnePostgreSQL is the proof that replicas
// share one state: two eventsvc processes on one Redis and one PostgreSQL,
// behind a round-robin balancer of the test's own, pass the whole remote
// suite (@spec and @ref); a token of replica A works on B; a refresh on A
// revokes the replaced token on B; failed logins spread over both lock
// out after 10 in all; and stopping one replica while events are written
// loses none.
func TestTwoReplicasOnOneRedisAndOnePostgreSQL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Redis, PostgreSQL and two server processes")
	}
	rs, pg := backendtest.NewRedis(t), backendtest.NewPostgres(t)
	dir := t.TempDir()
	bin := buildEventsvc(t, dir)
	args := []string{"-config", replicaConfig(t, dir), "-redis", rs.URL, "-database", pg.Database(t),
		"-demo-events", "0", "-token-rate", "0", "-quiet"}
	a, b := startReplica(t, bin, args...), startReplica(t, bin, args...)
	rr := newRoundRobin(a.addr, b.addr)
	balancer := httptest.NewServer(rr)
	defer balancer.Close()

	t.Run("the remote suite passes through the balancer", func(t *testing.T) {
		var out bytes.Buffer
		_, err := Run(Options{
			Target: target.Target{BaseURL: balancer.URL, Credentials: target.DemoCredentials, RunID: "replicas"},
			Tags:   replicaTags, Output: &out, NoSummary: true,
		})
		if err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		if rr.served[0].Load() == 0 || rr.served[1].Load() == 0 {
			t.Fatalf("the balancer sent %d and %d requests to the replicas", rr.served[0].Load(), rr.served[1].Load())
		}
		t.Logf("%d and %d requests served by the replicas; %s", rr.served[0].Load(), rr.served[1].Load(), lastLine(out.String(), "scenarios"))
	})

	onA, onB := api{t, "http://" + a.addr}, api{t, "http://" + b.addr}
	t.Run("a token of replica A works on B", func(t *testing.T) {
		onA.t, onB.t = t, t
		access, _ := onA.login(target.DemoCredentials.Username, target.DemoCredentials.Password)
		status, body := onB.do("POST", "/api/events", access, nil, fmt.Sprintf(replicaEvent, 0))
		if status != http.StatusCreated {
			t.Fatalf("create on B with A's token: %d %v", status, body)
		}
	})
	t.Run("a refresh on A revokes the replaced token on B", func(t *testing.T) {
		onA.t, onB.t = t, t
		access, refresh := onB.login(target.DemoCredentials.Username, target.DemoCredentials.Password)
		status, body := onA.do("POST", "/oauth/token", "", url.Values{"grant_type": {"refresh_token"}, "token": {refresh}}, "")
		if status != http.StatusOK {
			t.Fatalf("refresh on A: %d %v", status, body)
		}
		if status, _ := onB.do("POST", "/api/events", access, nil, fmt.Sprintf(replicaEvent, 0)); status != http.StatusUnauthorized {
			t.Fatalf("the replaced token on B: %d, want 401", status)
		}
		if status, _ := onB.do("POST", "/api/events", body["access_token"].(string), nil, fmt.Sprintf(replicaEvent, 0)); status != http.StatusCreated {
			t.Fatalf("the new token on B: %d, want 201", status)
		}
	})
	t.Run("failed logins over both replicas lock out after 10 in all", func(t *testing.T) {
		onA.t, onB.t = t, t
		for i := range 10 {
			wrong := url.Values{"grant_type": {"password"}, "username": {"third@email.com"}, "password": {fmt.Sprintf("wrong-%d", i)}}
			if status, body := []api{onA, onB}[i%2].do("POST", "/oauth/token", "", wrong, ""); status != http.StatusBadRequest {
				t.Fatalf("wrong password %d: %d %v", i+1, status, body)
			}
		}
		right := url.Values{"grant_type": {"password"}, "username": {"third@email.com"}, "password": {"third"}}
		for name, r := range map[string]api{"A": onA, "B": onB} {
			if status, body := r.do("POST", "/oauth/token", "", right, ""); status != http.StatusTooManyRequests {
				t.Errorf("the right password on %s after 10 wrong over both: %d %v, want 429", name, status, body)
			}
		}
	})
	t.Run("stopping a replica while events are written loses none", func(t *testing.T) {
		writeWhileAReplicaStops(t, api{t, balancer.URL}, b)
	})
}

// writeWhileAReplicaStops writes events through the balancer via from
// four writers at once, stops replica b a third of the way through, and
// checks that every event answered 201 is listed, once.
func writeWhileAReplicaStops(t *testing.T, via api, b *replica) {
	access, _ := via.login(target.DemoCredentials.OtherUsername, target.DemoCredentials.OtherPass)
	const writers, perWriter = 4, 25
	var mu sync.Mutex
	created := map[string]bool{}
	before := totalEvents(t, via, access)
	var failed atomic.Int64
	var wg sync.WaitGroup
	var sent atomic.Int64
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				status, body := via.do("POST", "/api/events", access, nil, fmt.Sprintf(replicaEvent, w*1000+i))
				sent.Add(1)
				if status != http.StatusCreated {
					failed.Add(1)
					t.Errorf("create %d/%d: %d %v", w, i, status, body)
					continue
				}
				mu.Lock()
				created[fmt.Sprint(body["id"])] = true
				mu.Unlock()
			}
		})
	}
	for sent.Load() < writers*perWriter/3 {
		time.Sleep(5 * time.Millisecond)
	}
	b.stop(t)
	wg.Wait()
	if len(created) != writers*perWriter || failed.Load() > 0 {
		t.Fatalf("%d events created, %d refused; want %d created", len(created), failed.Load(), writers*perWriter)
	}
	listed := listedIDs(via, access)
	for id := range created {
		if !listed[id] {
			t.Errorf("event %s was created (201) and is gone", id)
		}
	}
	if after := totalEvents(t, via, access); after-before != len(created) {
		t.Errorf("%d events more after %d creates answered 201: a create was applied twice or lost", after-before, len(created))
	}
}

// listedIDs are the ids of the events the list at via holds, read page
// by page.
func listedIDs(via api, access string) map[string]bool {
	listed := map[string]bool{}
	for page := 0; ; page++ {
		status, body := via.do("GET", fmt.Sprintf("/api/events?size=100&page=%d", page), access, nil, "")
		emb, _ := body["_embedded"].(map[string]any)
		items, _ := emb["eventList"].([]any)
		if status != http.StatusOK || len(items) == 0 {
			return listed
		}
		for _, it := range items {
			listed[fmt.Sprint(it.(map[string]any)["id"])] = true
		}
	}
}

// totalEvents is the list's totalElements.
func totalEvents(t *testing.T, via api, access string) int {
	t.Helper()
	status, body := via.do("GET", "/api/events?size=1", access, nil, "")
	page, _ := body["page"].(map[string]any)
	total, ok := page["totalElements"].(float64)
	if status != http.StatusOK || !ok {
		t.Fatalf("list: %d %v", status, body)
	}
	return int(total)
}

// lastLine returns the last line of out that contains word.
func lastLine(out, word string) string {
	lines := strings.Split(out, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], word) {
			return strings.TrimSpace(lines[i])
		}
	}
	return ""
}
