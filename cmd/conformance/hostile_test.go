package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"eventsvc/conformance/report/reporttest"
	"eventsvc/eventsvctest"
)

// anEvent is the path of one event, whose GET the scenarios of @API-7 and
// the explorer's reads send, and the preflight does not.
var anEvent = regexp.MustCompile(`^/api/events/[0-9]+$`)

// hostile starts a reference server behind a proxy that answers every GET
// of one event with answer, and returns the proxy's address.
func hostile(t *testing.T, answer http.HandlerFunc) string {
	t.Helper()
	ref := eventsvctest.NewServer(t, eventsvctest.Options{}) // the demo events, which @API-7 reads
	u, err := url.Parse(ref.URL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && anEvent.MatchString(r.URL.Path) {
			answer(w, r)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// drip sends the headers of an event, then one byte a second, until the
// client goes.
func drip(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/hal+json")
	w.WriteHeader(http.StatusOK)
	for {
		if _, err := w.Write([]byte(" ")); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// TestAnAnswerThatDripsFailsTheRunAsCut: a target that sends an event's
// headers, then a byte a second, does not pass: the scenario that reads it
// fails with the answer cut at the timeout, blaming no rule, and the run
// exits 1.
func TestAnAnswerThatDripsFailsTheRunAsCut(t *testing.T) {
	base := hostile(t, drip)
	dir := t.TempDir()
	var out, errs bytes.Buffer
	start := time.Now()
	code := run([]string{"-base-url", base, "-report-dir", dir, "-tags", "@API-7", "-timeout", "2s"}, env(nil), &out, &errs)
	t.Logf("exit %d after %s", code, time.Since(start).Round(time.Millisecond))
	if code != exitFailed || strings.Contains(out.String(), "PASSED") {
		t.Fatalf("exit %d, want %d (failed)\n%s%s", code, exitFailed, out.String(), errs.String())
	}
	if !strings.Contains(errs.String(), "1 answer cut") {
		t.Errorf("stderr does not say an answer was cut: %q", errs.String())
	}
	doc := reporttest.Read(t, dir)
	if doc.Outcome != "failed" {
		t.Errorf("outcome %q", doc.Outcome)
	}
	cut := 0
	for _, s := range doc.Scenarios {
		f := s.Failure
		if f == nil || !f.AnswerCut {
			continue
		}
		cut++
		if !strings.Contains(f.Message, "was cut at ") || !strings.Contains(f.Message, "-timeout, CONFORMANCE_TIMEOUT") || len(s.Blamed) != 0 {
			t.Errorf("%s: the failure %q blames %v; want the cut at the timeout, and no rule", s.Place, f.Message, s.Blamed)
		}
		if !strings.Contains(f.Exchange, "Content-Type: application/hal+json") {
			t.Errorf("%s: the exchange does not show the answer's headers:\n%s", s.Place, f.Exchange)
		}
	}
	if cut == 0 {
		t.Errorf("no scenario failed with an answer cut:\n%s", out.String())
	}
}
