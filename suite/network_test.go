package suite

import (
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"eventsvc/conformance/target"
	"eventsvc/server"
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
