package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

func TestServeRefusesBadProxyLogAndMetricsFlags(t *testing.T) {
	expectRefused(t, []refusal{
		{[]string{"-trusted-proxy", "10.0.0.0/33"}, exitUsage, "-trusted-proxy"},
		{[]string{"-forwarded-header", "X-Real-IP"}, exitUsage, `-forwarded-header must be X-Forwarded-For or Forwarded, not "X-Real-IP"`},
		{[]string{"-forwarded-header", ""}, exitUsage, "-forwarded-header must be"},
		{[]string{"-trusted-proxy", "10.0.0.1", "-trusted-proxy", "proxy.internal"}, exitUsage, `-trusted-proxy "proxy.internal"`},
		{[]string{"-log-format", "xml"}, exitUsage, "-log-format must be text or json"},
	}, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if code, stderr := runSafely(t, []string{"serve", "-addr", "127.0.0.1:0", "-metrics", ln.Addr().String()}); code != exitError || !strings.Contains(stderr, "-metrics") {
		t.Errorf("-metrics on a port in use: exit %d, stderr %q", code, stderr)
	}
}

// TestServeLogsJSONAndServesMetricsApart: -log-format json writes one JSON
// object a request, with the client's address and no secret; -metrics
// serves /metrics on its own listener, and the public port does not.
func TestServeLogsJSONAndServesMetricsApart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	metricsAddr := ln.Addr().String()
	ln.Close()
	s := launchServe(t, "-log-format", "json", "-metrics", metricsAddr, "-demo-events", "3")
	req, _ := http.NewRequest("POST", s.base+"/oauth/token", strings.NewReader("grant_type=password&username=user%40email.com&password=s3cret-wrong"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("myApp", "pass")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	get := func(url string) (int, string) {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := get("http://" + metricsAddr + "/metrics"); status != http.StatusOK || !strings.Contains(body, `eventsvc_token_grants_total{grant_type="password",outcome="invalid_grant"} 1`) || !strings.Contains(body, "eventsvc_events 3") {
		t.Errorf("-metrics: %d %.400s", status, body)
	}
	if status, _ := get(s.base + "/metrics"); status == http.StatusOK {
		t.Error("the public port serves the metrics")
	}
	s.stop()
	lines := strings.Split(strings.TrimSpace(s.errs.String()), "\n")
	requests := 0
	for _, line := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a log line is not JSON: %q", line)
		}
		if rec["msg"] == "request" {
			requests++
			if rec["remote"] != "127.0.0.1" || rec["method"] == nil || rec["status"] == nil {
				t.Errorf("request line %q lacks its fields", line)
			}
		}
	}
	if requests < 2 {
		t.Errorf("%d request lines: %q", requests, s.errs.String())
	}
	if strings.Contains(s.errs.String(), "s3cret-wrong") {
		t.Error("the log shows a password")
	}
}
