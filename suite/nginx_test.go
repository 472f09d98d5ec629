package suite

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"eventsvc/conformance/target"
	"eventsvc/server"
	"eventsvc/server/backendtest"
)

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
