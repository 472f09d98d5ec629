package target

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"os"

	"golang.org/x/net/http/httpproxy"
)

// Network are the settings of the connections to the target.
type Network struct {
	// CAFile is a PEM file of certificates to trust besides the system's:
	// the CA of a deployment behind a private one.
	CAFile string
	// Proxy is the proxy configuration, as the standard variables
	// HTTPS_PROXY, HTTP_PROXY and NO_PROXY (or their lower-case forms) give
	// it. Requests to loopback addresses never use a proxy.
	Proxy httpproxy.Config
}

// ProxyFromEnv reads the standard proxy variables through lookup.
func ProxyFromEnv(lookup func(string) (string, bool)) httpproxy.Config {
	get := func(names ...string) string {
		for _, n := range names {
			if v, ok := lookup(n); ok && v != "" {
				return v
			}
		}
		return ""
	}
	return httpproxy.Config{
		HTTPProxy:  get("HTTP_PROXY", "http_proxy"),
		HTTPSProxy: get("HTTPS_PROXY", "https_proxy"),
		NoProxy:    get("NO_PROXY", "no_proxy"),
	}
}

// Transport returns a transport with n's settings.
func (n Network) Transport() (http.RoundTripper, error) {
	t := http.DefaultTransport.(*http.Transport).Clone()
	proxy := n.Proxy.ProxyFunc()
	t.Proxy = func(r *http.Request) (*url.URL, error) { return proxy(r.URL) }
	t.MaxIdleConnsPerHost = 32 // concurrent scenarios reuse their connections
	if n.CAFile != "" {
		pem, err := os.ReadFile(n.CAFile)
		if err != nil {
			return nil, fmt.Errorf("CA file: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA file %s holds no PEM certificate", n.CAFile)
		}
		t.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return t, nil
}
