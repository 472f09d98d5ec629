package server

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
)

// What a value k was sent as.
const (
	loadIntentCreate = iota + 1
	loadIntentManagerUpdate
	loadIntentOtherUpdate
)

var loadIntentNames = map[int]string{
	loadIntentCreate:        "creation body",
	loadIntentManagerUpdate: "manager's update",
	loadIntentOtherUpdate:   "non-manager's refused update",
}

// loadWrite is one write the server accepted, with the moments (on the
// test's logical clock) its request was sent and its answer received.
type loadWrite struct {
	k          int
	sent, recv uint64
}

// loadRecord is what the test knows of one created event.
type loadRecord struct {
	id       int64
	user     int
	create   loadWrite
	accepted []loadWrite // updates answered 200
	refused  []int       // values of updates answered 403
}

// loadIntent is what a value k was sent as, registered before sending.
type loadIntent struct {
	kind    int
	user    int
	eventID int64 // 0 for a creation not answered yet
}

// loadRead is one event as a read showed it.
type loadRead struct {
	id         int64
	k          int
	sent, recv uint64
	where      string
}

type loadState struct {
	t       *testing.T
	base    string
	client  *http.Client
	ctx     context.Context
	cancel  context.CancelFunc
	seq     atomic.Uint64 // logical clock: one tick per request sent or answered
	nextK   atomic.Int64
	errs    atomic.Int64
	abortMu sync.Once
	aborted atomic.Bool
	budget  atomic.Bool

	managerIDs []int64 // account id of each loadUsers entry

	mu       sync.Mutex
	statuses map[string]map[int]int
	intents  map[int]loadIntent
	records  map[int64]*loadRecord
	byUser   [][]int64 // created event ids per user, in creation order
	reads    []loadRead
	grants   int
	refreshs int
}

func (st *loadState) errorf(format string, args ...any) {
	st.t.Helper()
	switch n := st.errs.Add(1); {
	case n <= loadMaxErrors:
		st.t.Errorf(format, args...)
	case n == loadMaxErrors+1:
		st.t.Errorf("more failures left out")
	}
}

// abort stops the load on a transport error; later errors caused by the
// cancellation are not reported.
func (st *loadState) abort(format string, args ...any) {
	st.t.Helper()
	st.abortMu.Do(func() {
		st.aborted.Store(true)
		st.t.Errorf("transport error, load stopped: "+format, args...)
		st.cancel()
	})
}

func (st *loadState) tick() uint64 { return st.seq.Add(1) }

type loadResponse struct {
	status     int
	header     http.Header
	body       []byte
	sent, recv uint64
}

// do sends one request and counts its status. ok is false after a
// transport error (the load is then stopped).
func (st *loadState) do(ctx context.Context, kind, method, path, bearer, contentType string, body []byte, basic bool) (r loadResponse, ok bool) {
	st.t.Helper()
	var rd io.Reader = http.NoBody
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, st.base+path, rd)
	if err != nil {
		st.abort("%s: build %s %s: %v", kind, method, path, err)
		return r, false
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	if basic {
		req.SetBasicAuth(loadClientID, loadClientSecret)
	}
	r.sent = st.tick()
	resp, err := st.client.Do(req)
	if err != nil {
		if ctx.Err() == nil || !st.aborted.Load() {
			st.abort("%s: %s %s: %v", kind, method, path, err)
		}
		return r, false
	}
	defer resp.Body.Close()
	r.body, err = io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	r.recv = st.tick()
	if err != nil {
		if ctx.Err() == nil || !st.aborted.Load() {
			st.abort("%s: %s %s: reading the answer (status %d): %v", kind, method, path, resp.StatusCode, err)
		}
		return r, false
	}
	r.status, r.header = resp.StatusCode, resp.Header
	st.mu.Lock()
	if st.statuses[kind] == nil {
		st.statuses[kind] = map[int]int{}
	}
	st.statuses[kind][r.status]++
	st.mu.Unlock()
	if r.status >= 500 {
		st.errorf("%s: %s %s answered %d: %s", kind, method, path, r.status, loadSnippet(r.body))
	}
	return r, true
}

// expect reports an unexpected status.
func (st *loadState) expect(kind, method, path string, r loadResponse, want int) bool {
	st.t.Helper()
	if r.status == want {
		return true
	}
	if r.status < 500 { // a 5xx is reported by do
		st.errorf("%s: %s %s answered %d, want %d: %s", kind, method, path, r.status, want, loadSnippet(r.body))
	}
	return false
}

func loadSnippet(b []byte) string {
	const n = 300
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// checkRead checks an event as a read showed it (during the load or after):
// exactly one body, sent for this event by its manager, never a refused
// one. It records the read for the ordering check at the end.
func (st *loadState) checkRead(v loadView, where string, r loadResponse) {
	st.t.Helper()
	k, diff := loadCheckContent(v)
	if diff != "" {
		st.errorf("%s: event %d: %s", where, v.ID, diff)
		return
	}
	st.mu.Lock()
	in, known := st.intents[k]
	st.reads = append(st.reads, loadRead{id: v.ID, k: k, sent: r.sent, recv: r.recv, where: where})
	st.mu.Unlock()
	switch {
	case !known:
		st.errorf("%s: event %d shows value k=%d, which the test never sent", where, v.ID, k)
	case in.kind == loadIntentOtherUpdate:
		st.errorf("%s: event %d shows k=%d, the body of an update by a non-manager (%s) that was refused with 403 (or is being refused)",
			where, v.ID, k, loadUsers[in.user].email)
	case in.eventID != 0 && in.eventID != v.ID:
		st.errorf("%s: event %d shows k=%d, a body sent for event %d", where, v.ID, k, in.eventID)
	case v.Manager.ID != st.managerIDs[in.user]:
		st.errorf("%s: event %d: manager.id = %d, want %d (%s, who sent k=%d)", where, v.ID, v.Manager.ID, st.managerIDs[in.user], loadUsers[in.user].email, k)
	}
}

// register allocates a fresh value k and records what it is sent as.
func (st *loadState) register(kind, user int, id int64) int {
	k := int(st.nextK.Add(1))
	st.mu.Lock()
	st.intents[k] = loadIntent{kind: kind, user: user, eventID: id}
	st.mu.Unlock()
	return k
}
