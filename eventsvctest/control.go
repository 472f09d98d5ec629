package eventsvctest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"eventsvc/server/control"
)

// State is the state of the server the control API tells: its token
// lifetimes and whether it conforms, its clock, and how many events, live
// tokens, fault rules and journal entries it holds.
type State = control.State

// Clock is the server's clock as the control API tells it: its time, and
// how far it has been moved forward.
type Clock = control.Clock

// State returns the server's state (GET /).
func (s *Server) State(tb testing.TB) State {
	tb.Helper()
	return answer[State](tb, s, http.MethodGet, "/", nil)
}

// Reset puts the server back as it started (POST /reset): its start
// events, accounts and clients, no token, no lockout, no fault rule, an
// empty journal, the clock not moved. It returns the state after.
func (s *Server) Reset(tb testing.TB) State {
	tb.Helper()
	return s.reset(tb, "start")
}

// ResetToSnapshot is Reset with the events Snapshot kept in place of the
// start events (POST /reset {"to": "snapshot"}). It fails tb when no
// snapshot was taken.
func (s *Server) ResetToSnapshot(tb testing.TB) State {
	tb.Helper()
	return s.reset(tb, "snapshot")
}

// reset puts the server back (POST /reset) to what to names: "start" or
// "snapshot".
func (s *Server) reset(tb testing.TB, to string) State {
	tb.Helper()
	return answer[State](tb, s, http.MethodPost, "/reset", struct {
		To string `json:"to"`
	}{to})
}

// Snapshot keeps the events as they are now (POST /snapshot), for
// ResetToSnapshot, and returns how many it kept.
func (s *Server) Snapshot(tb testing.TB) int {
	tb.Helper()
	return member[int](tb, s, http.MethodPost, "/snapshot", nil, "events")
}

// Clock returns the server's clock (GET /clock).
func (s *Server) Clock(tb testing.TB) Clock {
	tb.Helper()
	return answer[Clock](tb, s, http.MethodGet, "/clock", nil)
}

// AdvanceClock moves the server's clock forward by d (POST /clock), so
// that tokens expire and lockouts end without waiting, and returns the
// clock after. The clock never moves back; Reset puts it back.
func (s *Server) AdvanceClock(tb testing.TB, d time.Duration) Clock {
	tb.Helper()
	return answer[Clock](tb, s, http.MethodPost, "/clock", struct {
		Advance string `json:"advance"`
	}{d.String()})
}

// maxAnswer bounds the answer of the control API a call reads: the
// journal's 500 entries with their bodies fit.
const maxAnswer = 64 << 20

// call sends in, as JSON when it is not nil, to the control API, and
// reads the answer into out when it is not nil. It fails tb, and reports
// false, when the request cannot be sent or the control API refuses it.
func (s *Server) call(tb testing.TB, method, path string, in, out any) bool {
	tb.Helper()
	var body strings.Builder
	if in != nil {
		if err := json.NewEncoder(&body).Encode(in); err != nil {
			tb.Fatalf("eventsvctest: %s %s: write the body: %v", method, path, err)
			return false
		}
	}
	req, err := http.NewRequest(method, s.ControlURL+path, strings.NewReader(body.String()))
	if err != nil {
		tb.Fatalf("eventsvctest: %s %s: %v", method, path, err)
		return false
	}
	if in != nil {
		// The control API takes a write's body only as JSON
		// (docs/control-api.md).
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.client.Do(req)
	if err != nil {
		tb.Fatalf("eventsvctest: %s %s: %v", method, path, err)
		return false
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(io.LimitReader(resp.Body, maxAnswer))
	if resp.StatusCode >= 300 {
		var e struct {
			Code        string `json:"error"`
			Description string `json:"error_description"`
		}
		if err := dec.Decode(&e); err != nil || e.Description == "" {
			tb.Fatalf("eventsvctest: %s %s: the control API answered %s", method, path, resp.Status)
			return false
		}
		tb.Fatalf("eventsvctest: %s %s: the control API answered %s, %s: %s", method, path, resp.Status, e.Code, e.Description)
		return false
	}
	if out != nil {
		if err := dec.Decode(out); err != nil {
			tb.Fatalf("eventsvctest: %s %s: read the answer: %v", method, path, err)
			return false
		}
	}
	return true
}
