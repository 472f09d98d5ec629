package control

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"eventsvc/server"
	"eventsvc/server/clientcheck"
	"eventsvc/server/clock"
	"eventsvc/server/event"
	"eventsvc/server/fault"
	"eventsvc/server/journal"
	"eventsvc/server/servertest"
)

// rig is a reference server and its control API, each on its own loopback
// port, as `eventsvc serve -control` runs them.
type rig struct {
	public, control string
	token           string
	log             *servertest.Log
}

// startEvents is how many events the rig's server starts with.
const startEvents = 3

func newRig(t *testing.T, token string) *rig {
	t.Helper()
	cfg := servertest.DemoConfig(t)
	clk := clock.NewOffset(clock.System{})
	events := event.NewMemory()
	now := time.Now()
	start := func() []event.Event { return event.Demo(startEvents, []int64{1, 2}, now) }
	events.Replace(start())
	faults := fault.NewSet(rand.Float64)
	j := journal.New(50, clk)
	checks := clientcheck.New(clk)
	srv := server.New(server.Options{Config: cfg, Clock: clk, Events: events, Journal: j, Faults: faults, LoginFailures: 3, ClientChecks: checks})
	log := &servertest.Log{}
	ctl := New(Options{
		Server: srv, Events: events, Start: start, Accounts: cfg.Accounts, Clients: cfg.Clients, Cost: bcrypt.MinCost, Clock: clk,
		Faults: faults, Journal: j, Token: token, Findings: checks,
		Logger: slog.New(slog.NewTextHandler(log, nil)),
	})
	return &rig{
		public:  servertest.New(t, srv).URL,
		control: servertest.New(t, ctl).URL,
		token:   token,
		log:     log,
	}
}

// call sends a request to the control API with its token, checks the
// answer against the control API's OpenAPI document, and returns the
// status and the decoded body.
func (r *rig) call(t *testing.T, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, r.control+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	status, b := checkedDo(t, req)
	var decoded map[string]any
	if len(b) > 0 {
		if err := json.Unmarshal(b, &decoded); err != nil {
			t.Fatalf("%s %s: the answer is not a JSON object: %v\n%s", method, path, err, b)
		}
	}
	return status, decoded
}

// do sends req and returns the status and the decoded JSON body of its
// answer (nil for none).
func do(t *testing.T, req *http.Request) (int, map[string]any) {
	t.Helper()
	resp, b := fetch(t, req)
	var body map[string]any
	if len(b) > 0 {
		if err := json.Unmarshal(b, &body); err != nil {
			t.Fatalf("%s %s: body %q is not JSON: %v", req.Method, req.URL.Path, b, err)
		}
	}
	return resp.StatusCode, body
}

// fetch sends req and returns its answer and the answer's body, read.
func fetch(t *testing.T, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// login asks the public server for tokens; it returns the status and the
// access token.
func (r *rig) login(t *testing.T, password string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, r.public+"/oauth/token", strings.NewReader(url.Values{
		"grant_type": {"password"}, "username": {"user@email.com"}, "password": {password},
	}.Encode()))
	req.SetBasicAuth("myApp", "pass")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	status, body := do(t, req)
	token, _ := body["access_token"].(string)
	return status, token
}

// public sends a request to the public server with an optional token.
func (r *rig) publicCall(t *testing.T, method, path, token, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, r.public+path, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return do(t, req)
}

func (r *rig) totalEvents(t *testing.T) int {
	t.Helper()
	status, body := r.publicCall(t, http.MethodGet, "/api/events", "", "")
	if status != http.StatusOK {
		t.Fatalf("GET /api/events = %d", status)
	}
	return int(body["page"].(map[string]any)["totalElements"].(float64))
}

const newEvent = `{"name": "Rehearsal", "description": "Before the show", "beginEnrollmentDateTime": "2026-11-01T09:00:00",
 "closeEnrollmentDateTime": "2026-11-10T17:00:00", "beginEventDateTime": "2026-11-20T18:00:00", "endEventDateTime": "2026-11-20T20:00:00"}`

func TestStateTellsTheLifetimesAndConformance(t *testing.T) {
	r := newRig(t, "")
	status, s := r.call(t, http.MethodGet, "/", "")
	if status != http.StatusOK || s["conforms"] != true || s["events"] != float64(startEvents) {
		t.Fatalf("GET / = %d %v", status, s)
	}
	lt := s["lifetimes"].(map[string]any)
	if lt["accessSeconds"] != float64(600) || lt["refreshSeconds"] != float64(3600) {
		t.Fatalf("lifetimes %v", lt)
	}
}

func TestResetPutsTheStartStateBack(t *testing.T) {
	r := newRig(t, "")
	_, token := r.login(t, "user")
	if status, _ := r.publicCall(t, http.MethodPost, "/api/events", token, newEvent); status != http.StatusCreated {
		t.Fatalf("create = %d", status)
	}
	_, original := r.publicCall(t, http.MethodGet, "/api/events/2", "", "")
	if status, e := r.publicCall(t, http.MethodPut, "/api/events/2", token, newEvent); status != http.StatusOK || e["name"] == original["name"] {
		t.Fatalf("update of a start event = %d %v", status, e)
	}
	for i := range 3 {
		r.login(t, "wrong-"+strconv.Itoa(i))
	}
	if status, _ := r.login(t, "user"); status != http.StatusTooManyRequests {
		t.Fatalf("after 3 failures, login = %d, want 429", status)
	}
	r.call(t, http.MethodPost, "/faults", `{"path": "/docs/**", "status": 500}`)
	r.call(t, http.MethodPost, "/clock", `{"advance": "30s"}`)

	status, s := r.call(t, http.MethodPost, "/reset", "")
	if status != http.StatusOK {
		t.Fatalf("reset = %d %v", status, s)
	}
	if s["events"] != float64(startEvents) || s["liveTokens"] != float64(0) || s["faults"] != float64(0) || s["clock"].(map[string]any)["movedSeconds"] != float64(0) {
		t.Fatalf("state after reset: %v", s)
	}
	if n := r.totalEvents(t); n != startEvents {
		t.Fatalf("%d events after reset, want %d", n, startEvents)
	}
	if _, e := r.publicCall(t, http.MethodGet, "/api/events/2", "", ""); e["name"] != original["name"] {
		t.Fatalf("event 2 after reset is named %v, want %v", e["name"], original["name"])
	}
	if status, _ := r.publicCall(t, http.MethodPost, "/api/events", token, newEvent); status != http.StatusUnauthorized {
		t.Fatalf("a token from before the reset: %d, want 401", status)
	}
	if status, _ := r.login(t, "user"); status != http.StatusOK {
		t.Fatalf("login after reset = %d, want 200 (the lockout lifted)", status)
	}
}

func TestSeedReplacesTheEvents(t *testing.T) {
	r := newRig(t, "")
	seed := `[{"name": "Seeded", "description": "One", "beginEnrollmentDateTime": "2026-11-01T09:00:00",
	  "closeEnrollmentDateTime": "2026-11-10T17:00:00", "beginEventDateTime": "2026-11-20T18:00:00",
	  "endEventDateTime": "2026-11-20T20:00:00", "manager": "user@email.com", "eventStatus": "PUBLISHED"}]`
	status, body := r.call(t, http.MethodPut, "/events", seed)
	if status != http.StatusOK || body["events"] != float64(1) {
		t.Fatalf("seed = %d %v", status, body)
	}
	status, e := r.publicCall(t, http.MethodGet, "/api/events/1", "", "")
	if status != http.StatusOK || e["name"] != "Seeded" || e["eventStatus"] != "PUBLISHED" || e["manager"].(map[string]any)["id"] != float64(2) {
		t.Fatalf("GET /api/events/1 = %d %v", status, e)
	}
	if n := r.totalEvents(t); n != 1 {
		t.Fatalf("%d events after the seed, want 1", n)
	}
	if !strings.Contains(r.log.String(), "seed: 1 events replace all") {
		t.Fatalf("the seed is not logged: %s", r.log.String())
	}
}

func TestClockMovesTokensToTheirExpiry(t *testing.T) {
	r := newRig(t, "")
	_, token := r.login(t, "user")
	status, c := r.call(t, http.MethodPost, "/clock", `{"advance": "599s"}`)
	if status != http.StatusOK || c["movedSeconds"] != float64(599) || c["moved"] != "9m59s" {
		t.Fatalf("advance = %d %v", status, c)
	}
	if status, _ := r.publicCall(t, http.MethodPost, "/api/events", token, newEvent); status != http.StatusCreated {
		t.Fatalf("after 599 s: %d, want 201", status)
	}
	r.call(t, http.MethodPost, "/clock", `{"advance": "1s"}`)
	status, body := r.publicCall(t, http.MethodPost, "/api/events", token, newEvent)
	if status != http.StatusUnauthorized || !strings.Contains(body["error_description"].(string), "expired") {
		t.Fatalf("after 600 s: %d %v, want 401 expired", status, body)
	}
	if status, c := r.call(t, http.MethodGet, "/clock", ""); status != http.StatusOK || c["movedSeconds"] != float64(600) {
		t.Fatalf("GET /clock = %d %v", status, c)
	}
}

func TestTokensAreListedMasked(t *testing.T) {
	r := newRig(t, "")
	_, token := r.login(t, "user")
	status, body := r.call(t, http.MethodGet, "/tokens", "")
	tokens, _ := body["tokens"].([]any)
	if status != http.StatusOK || len(tokens) != 2 {
		t.Fatalf("GET /tokens = %d %v", status, body)
	}
	first := tokens[0].(map[string]any)
	if first["kind"] != "access" || first["user"] != "user@email.com" || first["client"] != "myApp" || first["issued"] == nil || first["expires"] == nil {
		t.Fatalf("token %v", first)
	}
	raw, _ := json.Marshal(body)
	if strings.Contains(string(raw), token) || strings.Contains(string(raw), token[:10]) {
		t.Fatalf("GET /tokens shows a token: %s", raw)
	}
}

func TestJournalShowsTheLastRequestsMasked(t *testing.T) {
	r := newRig(t, "")
	_, token := r.login(t, "user")
	r.publicCall(t, http.MethodGet, "/api/events?size=2", token, "")
	status, body := r.call(t, http.MethodGet, "/journal?limit=1", "")
	entries, _ := body["entries"].([]any)
	if status != http.StatusOK || len(entries) != 1 {
		t.Fatalf("GET /journal?limit=1 = %d %v", status, body)
	}
	last := entries[0].(map[string]any)
	if last["method"] != "GET" || last["path"] != "/api/events" || last["query"] != "size=2" || last["status"] != float64(200) {
		t.Fatalf("last entry %v", last)
	}
	_, body = r.call(t, http.MethodGet, "/journal", "")
	raw, _ := json.Marshal(body)
	if len(body["entries"].([]any)) != 2 || strings.Contains(string(raw), token) || strings.Contains(string(raw), "password=user") {
		t.Fatalf("the whole journal: %s", raw)
	}
	if !strings.Contains(string(raw), "Bearer ***") || !strings.Contains(string(raw), `password=***`) {
		t.Fatalf("the journal does not show the masked credentials: %s", raw)
	}
}

func TestFaultsApplyToThePublicServerAndCanBeCleared(t *testing.T) {
	r := newRig(t, "")
	status, rule := r.call(t, http.MethodPost, "/faults", `{"method": "GET", "path": "/api/events", "status": 503}`)
	if status != http.StatusCreated || rule["id"] != float64(1) || rule["fraction"] != float64(1) {
		t.Fatalf("add = %d %v", status, rule)
	}
	status, body := r.publicCall(t, http.MethodGet, "/api/events", "", "")
	if status != http.StatusServiceUnavailable || body["error"] != "injected_fault" {
		t.Fatalf("GET /api/events with the fault = %d %v", status, body)
	}
	if status, _ := r.publicCall(t, http.MethodGet, "/api", "", ""); status != http.StatusOK {
		t.Fatalf("GET /api, which no rule matches = %d", status)
	}
	r.call(t, http.MethodPost, "/faults", `{"path": "/api", "drop": true, "fraction": 0.5}`)
	_, list := r.call(t, http.MethodGet, "/faults", "")
	faults := list["faults"].([]any)
	if len(faults) != 2 || faults[0].(map[string]any)["hits"] != float64(1) {
		t.Fatalf("GET /faults = %v", list)
	}
	if status, body := r.call(t, http.MethodDelete, "/faults/1", ""); status != http.StatusOK || body["removed"] != float64(1) {
		t.Fatalf("DELETE /faults/1 = %d %v", status, body)
	}
	if status, body := r.call(t, http.MethodDelete, "/faults/1", ""); status != http.StatusNotFound || body["error"] != "not_found" {
		t.Fatalf("DELETE /faults/1 again = %d %v", status, body)
	}
	if status, body := r.call(t, http.MethodDelete, "/faults", ""); status != http.StatusOK || body["cleared"] != float64(1) {
		t.Fatalf("DELETE /faults = %d %v", status, body)
	}
	if status, _ := r.publicCall(t, http.MethodGet, "/api/events", "", ""); status != http.StatusOK {
		t.Fatalf("GET /api/events after clearing = %d", status)
	}
	for _, want := range []string{"faults: added rule 1: GET /api/events", "faults: removed rule 1", "faults: cleared 1 rules"} {
		if !strings.Contains(r.log.String(), want) {
			t.Errorf("the log does not say %q: %s", want, r.log.String())
		}
	}
}

// TestBadInputIsRefusedAndChangesNothing: every bad write gets 400 with a
// body that says what was wrong, and the server's state is as before.
func TestBadInputIsRefusedAndChangesNothing(t *testing.T) {
	r := newRig(t, "")
	r.call(t, http.MethodPost, "/faults", `{"path": "/docs/x", "status": 500}`)
	_, before := r.call(t, http.MethodGet, "/", "")
	for _, c := range []struct{ method, path, body, want string }{
		{"POST", "/faults", `{"path": "/api",`, "not valid JSON"},
		{"POST", "/faults", `{"path": "/api", "status": 503, "colour": "red"}`, `unknown field "colour"`},
		{"POST", "/faults", `{"path": "/api", "latency": "-2s"}`, "must not be negative"},
		{"POST", "/faults", `{"path": "/api", "status": 503, "fraction": 1.5}`, "at most 1"},
		{"POST", "/faults", ``, "empty"},
		{"POST", "/clock", `{"advance": "-1h"}`, "must not be negative"},
		{"POST", "/clock", `{"advance": "soon"}`, "not a duration"},
		{"POST", "/clock", `{"advanc": "1h"}`, `unknown field "advanc"`},
		{"POST", "/clock", `{}`, "advance is required"},
		{"POST", "/clock", `["1h"]`, "one JSON object"},
		{"POST", "/clock", `{"advance": "1h"} {}`, "nothing after it"},
		{"PUT", "/events", `[{"name": "Only a name"}]`, "event 0 of the seed"},
		{"PUT", "/events", `[` + strings.TrimSuffix(newEvent, "}") + `, "manager": "nobody@example.com"}]`, "nobody@example.com"},
		{"PUT", "/events", `{"name": "not a list"}`, "JSON array"},
		{"PUT", "/events", `[{]`, "JSON array"},
		{"GET", "/journal?limit=-1", ``, "limit"},
	} {
		status, body := r.call(t, c.method, c.path, c.body)
		desc, _ := body["error_description"].(string)
		if status != http.StatusBadRequest || body["error"] != "invalid_request" || !strings.Contains(desc, c.want) {
			t.Errorf("%s %s %s = %d %v, want 400 saying %q", c.method, c.path, c.body, status, body, c.want)
		}
	}
	status, body := r.call(t, http.MethodPut, "/events", `[`+newEvent+`, {"name": ""}]`)
	if status != http.StatusBadRequest || body["content"] == nil {
		t.Fatalf("a seed with one invalid event = %d %v, want 400 listing the problems", status, body)
	}
	_, after := r.call(t, http.MethodGet, "/", "")
	delete(before, "clock")
	delete(after, "clock")
	b, _ := json.Marshal(before)
	a, _ := json.Marshal(after)
	if string(a) != string(b) {
		t.Fatalf("bad input changed the state:\nbefore %s\nafter  %s", b, a)
	}
	if n := r.totalEvents(t); n != startEvents {
		t.Fatalf("%d events after refused seeds, want %d", n, startEvents)
	}
	if !strings.Contains(r.log.String(), "refused: ") {
		t.Errorf("refused writes are not logged: %s", r.log.String())
	}
}

func TestUnknownAddressesAndMethods(t *testing.T) {
	r := newRig(t, "")
	if status, body := r.call(t, http.MethodGet, "/nothing", ""); status != http.StatusNotFound || body["error"] != "not_found" {
		t.Errorf("GET /nothing = %d %v", status, body)
	}
	if status, body := r.call(t, http.MethodPatch, "/clock", "{}"); status != http.StatusMethodNotAllowed && status != http.StatusNotFound {
		t.Errorf("PATCH /clock = %d %v", status, body)
	}
}

func TestTheTokenIsRequiredWhenSet(t *testing.T) {
	const secretToken = "control-token-for-tests"
	r := newRig(t, secretToken)
	for _, header := range []string{"", "Bearer wrong", "Basic " + secretToken, "Bearer " + secretToken + "x"} {
		req, _ := http.NewRequest(http.MethodPost, r.control+"/reset", nil)
		if header != "" {
			req.Header.Set("Authorization", header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != `Bearer realm="control"` || !strings.Contains(string(b), "unauthorized") {
			t.Errorf("Authorization %q: %d %s %q", header, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), b)
		}
		if strings.Contains(string(b), secretToken) {
			t.Errorf("the answer shows the token: %s", b)
		}
	}
	if status, _ := r.call(t, http.MethodGet, "/", ""); status != http.StatusOK {
		t.Fatalf("with the token: %d", status)
	}
	if strings.Contains(r.log.String(), secretToken) {
		t.Fatalf("the log shows the token: %s", r.log.String())
	}
}

func TestCheckAddressKeepsTheControlAPIOnLoopbackWithoutAToken(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:9090", "localhost:9090", "[::1]:9090", "127.0.0.2:0"} {
		if err := CheckAddress(addr, ""); err != nil {
			t.Errorf("CheckAddress(%q, no token) = %v", addr, err)
		}
	}
	for _, addr := range []string{":9090", "0.0.0.0:9090", "[::]:9090", "192.168.1.2:9090", "example.com:9090"} {
		if err := CheckAddress(addr, ""); err == nil {
			t.Errorf("CheckAddress(%q, no token) = nil", addr)
		}
		if err := CheckAddress(addr, "a-token-of-16-ch"); err != nil {
			t.Errorf("CheckAddress(%q, a token) = %v", addr, err)
		}
		if err := CheckAddress(addr, "x"); !errors.Is(err, ErrWeakToken) {
			t.Errorf("CheckAddress(%q, a one-character token) = %v, want ErrWeakToken", addr, err)
		}
	}
	if err := CheckAddress("127.0.0.1:9090", "fifteen-charact"); !errors.Is(err, ErrWeakToken) {
		t.Errorf("CheckAddress(loopback, a 15-character token) = %v, want ErrWeakToken", err)
	}
	if err := CheckAddress("9090", ""); err == nil {
		t.Error("CheckAddress without a port separator = nil")
	}
}

// TestResetToASnapshot: a test seeds, takes a snapshot, changes things,
// and resets to the snapshot; a reset to start still brings back the
// start events; a reset to a snapshot never taken, or to anything else,
// is refused and changes nothing.
func TestResetToASnapshot(t *testing.T) {
	r := newRig(t, "")
	if status, body := r.call(t, http.MethodPost, "/reset", `{"to": "snapshot"}`); status != http.StatusConflict {
		t.Fatalf("reset to a snapshot never taken = %d %v", status, body)
	}
	one := `"description": "d", "beginEnrollmentDateTime": "2026-11-23T10:00:00", "closeEnrollmentDateTime": "2026-11-24T10:00:00", "beginEventDateTime": "2026-11-25T10:00:00", "endEventDateTime": "2026-11-25T18:00:00"`
	seed := `[{"name": "Seeded one", ` + one + `}, {"name": "Seeded two", ` + one + `}]`
	if status, body := r.call(t, http.MethodPut, "/events", seed); status != http.StatusOK {
		t.Fatalf("seed = %d %v", status, body)
	}
	if status, body := r.call(t, http.MethodPost, "/snapshot", ""); status != http.StatusOK || body["events"] != float64(2) {
		t.Fatalf("snapshot = %d %v", status, body)
	}
	_, token := r.login(t, "user")
	r.publicCall(t, http.MethodPost, "/api/events", token, `{"name": "Made after the snapshot", `+one+`}`)
	if n := r.totalEvents(t); n != 3 {
		t.Fatalf("%d events after a creation, want 3", n)
	}
	for body, want := range map[string]string{`{"to": "yesterday"}`: `"start"`, `{"to": "start", "also": 1}`: "unknown field"} {
		status, answer := r.call(t, http.MethodPost, "/reset", body)
		if desc, _ := answer["error_description"].(string); status != http.StatusBadRequest || !strings.Contains(desc, want) {
			t.Errorf("reset %s = %d %q", body, status, desc)
		}
	}
	if n := r.totalEvents(t); n != 3 {
		t.Fatalf("refused resets changed the events: %d", n)
	}
	if status, body := r.call(t, http.MethodPost, "/reset", `{"to": "snapshot"}`); status != http.StatusOK || body["events"] != float64(2) {
		t.Fatalf("reset to the snapshot = %d %v", status, body)
	}
	if _, body := r.publicCall(t, http.MethodGet, "/api/events/2", "", ""); body["name"] != "Seeded two" {
		t.Fatalf("after the reset to the snapshot, event 2 is %v", body)
	}
	if status, body := r.call(t, http.MethodPost, "/reset", ""); status != http.StatusOK || body["events"] != float64(startEvents) {
		t.Fatalf("reset to start = %d %v", status, body)
	}
}
