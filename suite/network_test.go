package suite

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
	"eventsvc/server"
	"eventsvc/server/backendtest"
)

func TestADeploymentBehindAPrivateCAIsReachedWithCAFile(t *testing.T) {
	caFile, leaf := testCA(t)
	// The proxy in front is the server's trusted one: its X-Forwarded-Proto
	// makes the links https.
	ref, err := url.Parse(startReference(t, target.ServerConfig{}, func(o *server.Options) {
		o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		o.ForwardedHost = true
	}))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(ref)
		r.SetXForwarded() // the server builds https links
		r.Out.Host = r.In.Host
	}})
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{leaf}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are the point
	srv.StartTLS()
	defer srv.Close()

	run := func(vars map[string]string) error {
		vars["BASE_URL"] = srv.URL
		o, err := FromEnv(lookup(vars))
		if err != nil {
			return err
		}
		o.Tags, o.Output = "@SVC-1", io.Discard
		_, err = Run(o)
		return err
	}
	if err := run(map[string]string{}); !errors.Is(err, target.ErrPreflight) || !strings.Contains(err.Error(), "-ca-file or CONFORMANCE_CA_FILE") {
		t.Errorf("without the CA: %v, want a preflight error that points at -ca-file", err)
	}
	if err := run(map[string]string{"CONFORMANCE_CA_FILE": caFile}); err != nil {
		t.Errorf("with the CA: %v", err)
	}
	if _, err := FromEnv(lookup(map[string]string{"CONFORMANCE_CA_FILE": filepath.Join(t.TempDir(), "none.pem")})); !errors.Is(err, ErrUsage) {
		t.Errorf("a CA file that does not exist: %v", err)
	}
}

func TestTheStandardProxyVariablesAreHonoured(t *testing.T) {
	// The proxy in front is the server's trusted one: its X-Forwarded-Proto
	// makes the links https.
	ref, err := url.Parse(startReference(t, target.ServerConfig{}, func(o *server.Options) {
		o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		o.ForwardedHost = true
	}))
	if err != nil {
		t.Fatal(err)
	}
	// The target's name resolves nowhere: only the proxy knows where it is.
	const name = "conformance-target.test"
	var proxied atomic.Int64
	proxy := httptest.NewServer(&httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			proxied.Add(1)
			r.Out.URL.Scheme, r.Out.URL.Host = "http", ref.Host
			r.Out.Host = r.In.Host // the server builds its links from it
		},
		Transport: &http.Transport{Proxy: nil},
	})
	defer proxy.Close()
	base := "http://" + name + ":" + ref.Port()

	o, err := FromEnv(lookup(map[string]string{"BASE_URL": base, "HTTP_PROXY": proxy.URL}))
	if err != nil {
		t.Fatal(err)
	}
	o.Tags, o.Output = "@SVC-1 or @API-1", io.Discard
	if _, err := Run(o); err != nil {
		t.Fatalf("through the proxy: %v", err)
	}
	if proxied.Load() < 3 {
		t.Errorf("the proxy saw %d requests", proxied.Load())
	}

	o, err = FromEnv(lookup(map[string]string{"BASE_URL": base, "HTTP_PROXY": proxy.URL, "NO_PROXY": name}))
	if err != nil {
		t.Fatal(err)
	}
	o.Output = io.Discard
	if _, err := Run(o); !errors.Is(err, target.ErrPreflight) {
		t.Errorf("with NO_PROXY naming the target: %v, want it unreachable", err)
	}
}

func TestTheRequestTimeoutIsAnOption(t *testing.T) {
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	o, err := FromEnv(lookup(map[string]string{"BASE_URL": slow.URL, "CONFORMANCE_TIMEOUT": "100ms"}))
	if err != nil {
		t.Fatal(err)
	}
	if o.Target.Timeout != 100*time.Millisecond {
		t.Errorf("the scenarios' timeout is %v", o.Target.Timeout)
	}
	o.Output = io.Discard
	start := time.Now()
	_, err = Run(o)
	if !errors.Is(err, target.ErrPreflight) || !strings.Contains(err.Error(), "no answer within 100ms") {
		t.Errorf("Run = %v", err)
	}
	if time.Since(start) > 1500*time.Millisecond {
		t.Errorf("the run waited %v for a 100ms timeout", time.Since(start))
	}
	if _, err := FromEnv(lookup(map[string]string{"CONFORMANCE_TIMEOUT": "soon"})); !errors.Is(err, ErrUsage) {
		t.Errorf("CONFORMANCE_TIMEOUT=soon: %v", err)
	}
}

// dying is a reverse proxy in front of target that, after its first
// answers, stops answering: it resets the connections (as a target that
// was killed does), or answers as a gateway does (502 with its page).
func dying(t *testing.T, target string, after int64, gateway bool) string {
	t.Helper()
	rp := proxyTo(t, target)
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

// fencedBlocks returns the text of the fenced blocks of the Markdown file
// that open with ```lang, in order.
func fencedBlocks(t *testing.T, file, lang string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?ms)^```"+lang+"\n(.*?)^```").FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	return out
}

// servePrefixCommands are the eventsvc serve commands of the section of
// docs/deploying.md on a path prefix, as server options for a server
// whose public address is public (the documented host's stand-in).
func servePrefixCommands(t *testing.T, public string) map[string]func(*server.Options) {
	t.Helper()
	out := map[string]func(*server.Options){}
	for _, block := range fencedBlocks(t, "../docs/deploying.md", "sh") {
		line := strings.TrimSpace(block)
		if !strings.HasPrefix(line, "eventsvc serve -addr 127.0.0.1:8080 ") || strings.Contains(line, "\n") {
			continue
		}
		args := strings.Fields(strings.TrimPrefix(line, "eventsvc serve -addr 127.0.0.1:8080 "))
		var set []func(*server.Options)
		for i := 0; i < len(args); i++ {
			switch args[i] {
			case "-forwarded-host":
				set = append(set, func(o *server.Options) { o.ForwardedHost = true })
			case "-trusted-proxy":
				i++
				p := netip.MustParsePrefix(args[i] + "/32")
				set = append(set, func(o *server.Options) { o.TrustedProxies = append(o.TrustedProxies, p) })
			case "-public-url":
				i++
				u := strings.Replace(args[i], "https://staging.example", public, 1)
				set = append(set, func(o *server.Options) { o.PublicURL = u })
			default:
				t.Fatalf("docs/deploying.md: %q: the test does not know the flag %s", line, args[i])
			}
		}
		out[line] = func(o *server.Options) {
			for _, f := range set {
				f(o)
			}
		}
	}
	if len(out) != 2 {
		t.Fatalf("docs/deploying.md has %d eventsvc serve commands for a path prefix, want the two of its section", len(out))
	}
	return out
}

// TestTheDocumentedNginxBlocksServeTheAPIUnderAPrefix runs the nginx
// blocks of docs/deploying.md as written (their ports and certificate
// the test's own), TLS ending at nginx, in front of a reference server
// started as each of the documented commands starts it, and requires a
// default remote run against the prefixed address to pass: every link
// the server writes leads where it should through the proxy.
func TestTheDocumentedNginxBlocksServeTheAPIUnderAPrefix(t *testing.T) {
	blocks := fencedBlocks(t, "../docs/deploying.md", "nginx")
	if len(blocks) != 2 {
		t.Fatalf("docs/deploying.md has %d nginx blocks, want the plain one and ingress-nginx's", len(blocks))
	}
	caFile, leaf := testCA(t)
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	keyDER, err := x509.MarshalPKCS8PrivateKey(leaf.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leaf.Certificate[0]}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	for i, block := range blocks {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		front := ln.Addr().String()
		ln.Close()
		for command, options := range servePrefixCommands(t, "https://"+front) {
			t.Run(fmt.Sprintf("block %d, %s", i+1, command), func(t *testing.T) {
				ref := startReference(t, target.ServerConfig{}, options)
				conf := regexp.MustCompile(`listen 443 ssl`).ReplaceAllString(block, "listen "+front+" ssl")
				conf = strings.NewReplacer(
					"/etc/ssl/certs/staging.example.pem", certFile,
					"/etc/ssl/private/staging.example.key", keyFile,
					"127.0.0.1:8080", strings.TrimPrefix(ref, "http://"),
				).Replace(conf)
				if conf == block || !strings.Contains(conf, certFile) {
					t.Fatalf("the block does not read as the test expects:\n%s", block)
				}
				backendtest.Nginx(t, conf)
				o, err := FromEnv(lookup(map[string]string{"BASE_URL": "https://" + front + "/events-service", "CONFORMANCE_CA_FILE": caFile}))
				if err != nil {
					t.Fatal(err)
				}
				var out strings.Builder
				o.Output, o.ReportDir = &out, t.TempDir()
				if _, err := Run(o); err != nil {
					t.Fatalf("a remote run through nginx: %v\n%s", err, failedSteps(out.String()))
				}
			})
		}
	}
}
