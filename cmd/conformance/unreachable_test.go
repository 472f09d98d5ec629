package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"eventsvc/server"
	"eventsvc/server/servertest"
)

// TestATargetThatDiesMidRunExits4: a reference server whose connections
// reset after its first answers, as a killed one's do, ends the run with
// exit status 4 and reports that say so.
func TestATargetThatDiesMidRunExits4(t *testing.T) {
	ref := servertest.New(t, server.New(server.Options{Config: servertest.DemoConfig(t)}))
	u, _ := url.Parse(ref.URL)
	rp := httputil.NewSingleHostReverseProxy(u)
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 30 {
			rp.ServeHTTP(w, r)
			return
		}
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	var out, errs bytes.Buffer
	code := run([]string{"-base-url", srv.URL, "-report-dir", dir, "-read-only"}, env(nil), &out, &errs)
	if code != exitUnreachable || !strings.Contains(errs.String(), "the target stopped answering") {
		t.Fatalf("exit %d, stderr %q\n%s", code, errs.String(), out.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "conformance.json"))
	if err != nil || !strings.Contains(string(b), `"outcome": "unreachable"`) {
		t.Errorf("conformance.json of a run whose target died: %v\n%.500s", err, b)
	}
}
