package control

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"eventsvc/server/fault"
)

// TestFaultRulesAreBounded: past fault.MaxRules rules, or with a pattern
// longer than fault.MaxPatternLen, a rule is refused with 400 saying
// which bound, without the whole pattern in the answer or the log.
func TestFaultRulesAreBounded(t *testing.T) {
	r := newRig(t, "")
	for i := range fault.MaxRules {
		if status, body := r.call(t, http.MethodPost, "/faults", fmt.Sprintf(`{"path": "/docs/%d", "status": 500}`, i)); status != http.StatusCreated {
			t.Fatalf("rule %d = %d %v", i+1, status, body)
		}
	}
	status, body := r.call(t, http.MethodPost, "/faults", `{"path": "/docs/one-more", "status": 500}`)
	if desc, _ := body["error_description"].(string); status != http.StatusBadRequest || !strings.Contains(desc, fmt.Sprint(fault.MaxRules)) {
		t.Fatalf("rule %d = %d %v, want 400 naming the bound", fault.MaxRules+1, status, body)
	}
	r.call(t, http.MethodDelete, "/faults", "")
	long := "/" + strings.Repeat("a", 6<<20)
	for _, rule := range []string{
		`{"path": "` + long + `", "status": 500}`,
		`{"path": "/api", "method": "` + strings.Repeat("G", 1<<20) + `", "status": 500}`,
	} {
		status, body = r.call(t, http.MethodPost, "/faults", rule)
		desc, _ := body["error_description"].(string)
		if status != http.StatusBadRequest || !strings.Contains(desc, "at most") || len(desc) > 300 {
			t.Fatalf("a rule of %d bytes = %d, %.300q; want 400 naming the bound, briefly", len(rule), status, desc)
		}
	}
	if n := len(r.log.String()); n > 64<<10 {
		t.Fatalf("the control log holds %d bytes after refusing two long rules", n)
	}
	if status, body := r.call(t, http.MethodPost, "/faults", `{"path": "/api", "latency": "3m"}`); status != http.StatusBadRequest {
		t.Fatalf("a latency of 3m = %d %v, want 400: at most %v", status, body, fault.MaxLatency)
	}
}

// waiters sends n requests for path to the public server, each on its
// own connection, and returns a channel that receives each one's status
// (0 for an error) as it is answered.
func (r *rig) waiters(t *testing.T, n int, path string) <-chan int {
	t.Helper()
	done := make(chan int, n)
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{DisableKeepAlives: true}}
	for range n {
		go func() {
			resp, err := client.Get(r.public + path)
			if err != nil {
				done <- 0
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			done <- resp.StatusCode
		}()
	}
	return done
}

// awaitAll reads n statuses from done within d, and fails unless each is
// want.
func awaitAll(t *testing.T, done <-chan int, n, want int, d time.Duration, what string) {
	t.Helper()
	deadline := time.After(d)
	for i := range n {
		select {
		case status := <-done:
			if status != want {
				t.Fatalf("%s: request %d answered %d, want %d", what, i+1, status, want)
			}
		case <-deadline:
			t.Fatalf("%s: %d of %d requests still wait after %v", what, n-i, n, d)
		}
	}
}

// waitingOn waits until n requests wait on a latency rule: the rule's
// hits count them as they begin.
func (r *rig) waitingOn(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		_, list := r.call(t, http.MethodGet, "/faults", "")
		hits := 0
		for _, f := range list["faults"].([]any) {
			hits += int(f.(map[string]any)["hits"].(float64))
		}
		if hits >= n {
			return
		}
	}
	t.Fatalf("fewer than %d requests reached the latency rule", n)
}

// TestALatencyWaitEndsWhenItsRuleGoes: requests waiting on a rule's
// latency get the real answer at once when the rule is removed, and when
// the server is reset.
func TestALatencyWaitEndsWhenItsRuleGoes(t *testing.T) {
	r := newRig(t, "")
	const n = 10
	for _, end := range []struct{ name, method, path string }{
		{"DELETE /faults/{id}", http.MethodDelete, "/faults/%v"},
		{"DELETE /faults", http.MethodDelete, "/faults"},
		{"POST /reset", http.MethodPost, "/reset"},
	} {
		_, rule := r.call(t, http.MethodPost, "/faults", `{"path": "/api", "latency": "1m"}`)
		done := r.waiters(t, n, "/api")
		r.waitingOn(t, n)
		path := end.path
		if strings.Contains(path, "%v") {
			path = fmt.Sprintf(path, rule["id"])
		}
		if status, body := r.call(t, end.method, path, ""); status != http.StatusOK {
			t.Fatalf("%s = %d %v", end.name, status, body)
		}
		awaitAll(t, done, n, http.StatusOK, 3*time.Second, end.name)
	}
}

// TestALatencyWaitEndsWhenTheClientLeaves: clients that close their
// connection while a latency rule holds their request free it within a
// second or so, long before the latency ends: the journal records each
// as left, and their requests reach no handler.
func TestALatencyWaitEndsWhenTheClientLeaves(t *testing.T) {
	r := newRig(t, "")
	r.call(t, http.MethodPost, "/faults", `{"path": "/api/events", "latency": "1m"}`)
	const n = 50
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", strings.TrimPrefix(r.public, "http://"))
			if err != nil {
				t.Error(err)
				return
			}
			io.WriteString(c, "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
			time.Sleep(200 * time.Millisecond)
			c.Close()
		}()
	}
	wg.Wait()
	left := 0
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && left < n; time.Sleep(50 * time.Millisecond) {
		_, body := r.call(t, http.MethodGet, "/journal", "")
		left = 0
		for _, e := range body["entries"].([]any) {
			if e.(map[string]any)["clientLeft"] == true {
				left++
			}
		}
	}
	if left != n {
		t.Fatalf("%d of %d clients that left are recorded as left after 5 s; the others still hold their wait", left, n)
	}
}

// TestAnInvalidSeedIsAnsweredBriefly: a seed of more than
// event.MaxSeedEvents items is refused before they are read, and one of
// invalid events lists the problems of the first event.MaxSeedProblems
// only, counting the others in "more": the answer is never much larger
// than the seed (it was 290 times larger).
func TestAnInvalidSeedIsAnsweredBriefly(t *testing.T) {
	r := newRig(t, "")
	huge := "[" + strings.TrimSuffix(strings.Repeat("{},", 150_000), ",") + "]"
	status, body := r.call(t, http.MethodPut, "/events", huge)
	if desc, _ := body["error_description"].(string); status != http.StatusBadRequest || !strings.Contains(desc, "at most 10000 events") || len(mustJSON(t, body)) > 1000 {
		t.Fatalf("a seed of 150,000 items = %d %.300s", status, mustJSON(t, body))
	}
	many := "[" + strings.TrimSuffix(strings.Repeat("{},", 250), ",") + "]"
	status, body = r.call(t, http.MethodPut, "/events", many)
	problems, _ := body["content"].([]any)
	if status != http.StatusBadRequest || len(problems) != 100 || body["more"] != float64(150) {
		t.Fatalf("a seed of 250 invalid events = %d, %d problems listed, more %v; want 400, 100 and 150", status, len(problems), body["more"])
	}
	if answer, seed := len(mustJSON(t, body)), len(many); answer > 200*seed {
		t.Fatalf("the answer is %d bytes for a seed of %d", answer, seed)
	}
	if n := r.totalEvents(t); n != startEvents {
		t.Fatalf("%d events after refused seeds, want %d", n, startEvents)
	}
}

// TestTheClockNeverMovesBack: advances that would take the clock past
// clock.MaxMoved in all are refused and change nothing; two advances of
// 2562047h overflowed a duration and moved it back, so that an expired
// token worked again.
func TestTheClockNeverMovesBack(t *testing.T) {
	r := newRig(t, "")
	_, token := r.login(t, "user")
	if status, _ := r.call(t, http.MethodPost, "/clock", `{"advance": "11m"}`); status != http.StatusOK {
		t.Fatalf("advance 11m = %d", status)
	}
	for i := range 2 {
		status, body := r.call(t, http.MethodPost, "/clock", `{"advance": "2562047h"}`)
		if desc, _ := body["error_description"].(string); status != http.StatusBadRequest || !strings.Contains(desc, "at most") {
			t.Fatalf("advance 2562047h, %d: %d %v, want 400 naming the bound", i+1, status, body)
		}
	}
	if status, c := r.call(t, http.MethodGet, "/clock", ""); status != http.StatusOK || c["movedSeconds"] != float64(660) {
		t.Fatalf("GET /clock after refused advances = %d %v, want moved 11m", status, c)
	}
	if status, _ := r.publicCall(t, http.MethodPost, "/api/events", token, newEvent); status != http.StatusUnauthorized {
		t.Fatalf("the expired token after refused advances: %d, want 401", status)
	}
}

// raw sends a request to the public server and returns its answer, its
// body read.
func (r *rig) raw(t *testing.T, method, path, auth, contentType, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, r.public+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestFaultsATestCanCountOn: a rule that fires once after one request,
// answers a real RFC 6749 error to refresh grants only, and a sequence of
// a 429 with Retry-After then the real answer; each removes itself when
// spent, and a query parameter picks the page it applies to.
func TestFaultsATestCanCountOn(t *testing.T) {
	r := newRig(t, "")
	statuses := func(n int, method, path string) []int {
		var out []int
		for range n {
			resp, _ := r.raw(t, method, path, "", "", "")
			out = append(out, resp.StatusCode)
		}
		return out
	}
	if status, added := r.call(t, http.MethodPost, "/faults", `{"method": "GET", "path": "/api/events", "after": 1, "times": 1, "status": 503}`); status != http.StatusCreated {
		t.Fatalf("POST /faults = %d %v", status, added)
	}
	if got := statuses(4, "GET", "/api/events"); fmt.Sprint(got) != "[200 503 200 200]" {
		t.Fatalf("after 1, times 1: %v", got)
	}
	if _, listed := r.call(t, http.MethodGet, "/faults", ""); len(listed["faults"].([]any)) != 0 {
		t.Fatalf("the spent rule is still listed: %v", listed)
	}

	r.call(t, http.MethodPost, "/faults", `{"path": "/oauth/token", "grantType": "refresh_token", "times": 1, "status": 400,
		"body": {"error": "invalid_grant", "error_description": "the refresh token expired"}}`)
	form := "application/x-www-form-urlencoded"
	basic := "Basic bXlBcHA6cGFzcw==" // myApp:pass, the demo client
	if resp, _ := r.raw(t, "POST", "/oauth/token", basic, form, "grant_type=password&username=user%40email.com&password=user"); resp.StatusCode != http.StatusOK {
		t.Fatalf("a password grant met the refresh grant's rule: %d", resp.StatusCode)
	}
	resp, body := r.raw(t, "POST", "/oauth/token", basic, form, "grant_type=refresh_token&token=whatever")
	var oauthErr struct{ Error string }
	if resp.StatusCode != http.StatusBadRequest || json.Unmarshal([]byte(body), &oauthErr) != nil || oauthErr.Error != "invalid_grant" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("the injected invalid_grant: %d %s %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}

	r.call(t, http.MethodPost, "/faults", `{"path": "/api/events", "query": {"page": "1"}, "sequence": [
		{"status": 429, "headers": {"Retry-After": "1"}, "body": "slow down"}, {}, {"status": 500}]}`)
	resp, body = r.raw(t, "GET", "/api/events?page=1", "", "", "")
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" || body != "slow down" {
		t.Fatalf("the sequence's first answer: %d Retry-After %q %q", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if got := statuses(1, "GET", "/api/events"); fmt.Sprint(got) != "[200]" {
		t.Fatalf("a page without page=1 met the rule: %v", got)
	}
	if got := statuses(3, "GET", "/api/events?page=1"); fmt.Sprint(got) != "[200 500 200]" {
		t.Fatalf("the sequence's other answers: %v", got)
	}
}
