package suite

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
)

// dying is a reverse proxy in front of target that, after its first
// answers, stops answering: it resets the connections (as a target that
// was killed does), or answers as a gateway does (502 with its page).
func dying(t *testing.T, target string, after int64, gateway bool) string {
	t.Helper()
	u, _ := url.Parse(target)
	rp := httputil.NewSingleHostReverseProxy(u)
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= after {
			rp.ServeHTTP(w, r)
			return
		}
		if gateway {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			w.Write([]byte("<html><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>"))
			return
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestATargetThatStopsAnsweringIsNotAVerdict: a target killed mid-run, or
// one whose gateway answers 502 for it, ends the run as unreachable: no
// rule failed, the rules not yet checked are not run with that reason,
// and no report shows the internals of a failed request.
func TestATargetThatStopsAnsweringIsNotAVerdict(t *testing.T) {
	ref := startReference(t, target.ServerConfig{}, nil)
	for _, gateway := range []bool{false, true} {
		base := dying(t, ref, 40, gateway)
		dir := t.TempDir()
		var out bytes.Buffer
		rep, err := Run(Options{Target: target.Target{BaseURL: base, Credentials: target.DemoCredentials, RunID: "dying"},
			Tags: selection.RemoteTags, DefaultTags: true, ReportDir: dir, Output: &out})
		if !errors.Is(err, ErrUnreachable) || rep.Outcome != report.OutcomeUnreachable {
			t.Fatalf("gateway %v: Run = %v, outcome %q\n%s", gateway, err, rep.Outcome, out.String())
		}
		if n := rep.Counts()[report.Failed]; n != 0 {
			t.Errorf("gateway %v: %d rules failed\n%s", gateway, n, out.String())
		}
		unreachable := 0
		for _, s := range rep.Scenarios {
			if s.Reason == selection.ReasonUnreachable {
				unreachable++
			}
		}
		if unreachable == 0 || !strings.Contains(out.String(), "UNREACHABLE: the target did not answer") {
			t.Errorf("gateway %v: %d scenarios not run as unreachable; output:\n%s", gateway, unreachable, out.String())
		}
		if gateway && !strings.Contains(rep.Error, "502 Bad Gateway") {
			t.Errorf("the error does not say what the gateway answered: %s", rep.Error)
		}
		for _, name := range []string{report.HTMLReport, report.JSONReport, report.JUnitReport} {
			b, _ := os.ReadFile(filepath.Join(dir, name))
			if strings.Contains(string(b), "Expect()") || strings.Contains(string(b), "assertion:") {
				t.Errorf("gateway %v: %s shows the internals of a failed request", gateway, name)
			}
		}
	}
}
