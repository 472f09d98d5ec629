package suite

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"encoding/xml"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"eventsvc/conformance/inprocess"
	"eventsvc/conformance/othersvc"
	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
	"eventsvc/server"
	"eventsvc/server/config"
	"eventsvc/server/servertest"
)

// The fixtures the runner's tests share: reference servers and the second
// implementation as targets (startReference, remote, runOther), what a
// run's output and reports say (failedSteps, failures, count, failedRules,
// scenarioNamed, ruleNamed, readJUnit, readHTML), variables (lookup), a
// private CA (testCA), and the replay of a reproduction script (needCurl,
// replay). The fixtures of one concern stay beside its tests.

// startReference starts a reference server on a loopback port with the
// demo credentials, as inprocess.Launcher would, after options changes opts.
func startReference(t testing.TB, cfg target.ServerConfig, options func(*server.Options)) string {
	t.Helper()
	l := inprocess.Launcher{Credentials: target.DemoCredentials}
	file, err := l.ConfigFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	conf, err := config.New(file)
	if err != nil {
		t.Fatal(err)
	}
	opts := server.Options{Config: conf}
	if options != nil {
		options(&opts)
	}
	srv, err := servertest.Start(server.New(opts))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv.URL
}

// remote is the reference server at base as a run's target: a
// deployment, with the demo credentials.
func remote(base string) target.Target {
	return target.Target{BaseURL: base, Credentials: target.DemoCredentials, RunID: "preflight-test"}
}

// writing says that the run writes.
const writing = true

// runOther runs the scenarios a remote run selects against a second
// implementation (package othersvc) configured with c. With t, each scenario
// is a subtest of t.
func runOther(t *testing.T, c othersvc.Config, tags string, subtests bool) (*report.Report, string, error) {
	t.Helper()
	srv := othersvc.Start(t, c)
	creds := c.Creds
	if creds == (target.Credentials{}) {
		creds = othersvc.Creds
	}
	o := Options{
		Target: target.Target{BaseURL: srv.URL, Credentials: creds, RunID: "portable", EventBody: []byte(c.Body())},
		Tags:   tags,
	}
	var buf bytes.Buffer
	o.Output = &buf
	if subtests {
		o.TestingT = t
	}
	rep, err := Run(o)
	return rep, buf.String(), err
}

// failedSteps returns the "Failures:" section of a run's output.
func failedSteps(out string) string {
	if i := strings.Index(out, "\nFailures:"); i >= 0 {
		section, _, _ := strings.Cut(out[i:], "\nRules: ")
		return section
	}
	return ""
}

// failures returns the failed scenarios of a run, each with its place.
func failures(rep *report.Report) (scenarios []string) {
	if rep == nil {
		return nil
	}
	for _, s := range rep.Scenarios {
		if s.Verdict == report.Failed {
			scenarios = append(scenarios, s.Name+" ("+s.Place()+")")
		}
	}
	return scenarios
}

// count is how many scenarios of a run have the verdict.
func count(rep *report.Report, verdict string) int {
	n := 0
	if rep == nil {
		return 0
	}
	for _, s := range rep.Scenarios {
		if s.Verdict == verdict {
			n++
		}
	}
	return n
}

// failedRules are the rules a failed run failed, or "finding" when its
// failures blame none.
func failedRules(rep *report.Report) string {
	var ids []string
	for _, r := range rep.Rules {
		if r.Verdict == report.Failed {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) == 0 {
		return "finding"
	}
	return strings.Join(ids, " ")
}

// requireFails runs the scenarios of a remote run against the second
// implementation configured with c and fails the test unless the run
// fails, and fails the rules want (as failedRules tells them) and no
// other. It returns the run's report and output.
func requireFails(t *testing.T, c othersvc.Config, want string) (*report.Report, string) {
	t.Helper()
	rep, out, err := runOther(t, c, selection.RemoteTags, false)
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("the run does not fail (Run returned %v)%s", err, failedSteps(out))
	}
	if failed := failedRules(rep); failed != want {
		t.Errorf("the run fails %s, want %s alone:%s", failed, want, failedSteps(out))
	}
	return rep, out
}

// scenarioNamed is the scenario of rep whose name starts with prefix;
// without one, it fails t.
func scenarioNamed(t *testing.T, rep *report.Report, prefix string) *report.ScenarioResult {
	t.Helper()
	for _, s := range rep.Scenarios {
		if strings.HasPrefix(s.Name, prefix) {
			return s
		}
	}
	t.Fatalf("no scenario %q", prefix)
	return nil
}

// ruleNamed is the verdict of rule id in rep, nil when rep has none.
func ruleNamed(rep *report.Report, id string) *report.RuleResult {
	for _, r := range rep.Rules {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// junitDoc reads the parts of a JUnit report the tests look at.
type junitDoc struct {
	Suites []struct {
		Name  string `xml:"name,attr"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Props     []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"error"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// readJUnit reads the junit.xml a run wrote in dir.
func readJUnit(t *testing.T, dir string) junitDoc {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, report.JUnitReport))
	if err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("junit.xml: %v\n%s", err, b)
	}
	return doc
}

// readHTML reads the conformance.html a run wrote in dir.
func readHTML(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, report.HTMLReport))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lookup reads variables from vars, as os.LookupEnv reads the
// environment.
func lookup(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

// testCA makes a CA and a certificate it signs for 127.0.0.1, and writes
// the CA's certificate to a PEM file.
func testCA(t *testing.T) (caFile string, leaf tls.Certificate) {
	t.Helper()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Conformance test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caKey, caDER := certify(t, caTmpl, nil, nil)
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	key, der := certify(t, tmpl, ca, caKey)
	caFile = filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return caFile, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// certify makes a key and a certificate of tmpl for it, signed by
// parentKey as parent, or by itself when parent is nil.
func certify(t *testing.T, tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*ecdsa.PrivateKey, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	return key, der
}

// proxyTo is a reverse proxy to the server at address.
func proxyTo(t *testing.T, address string) *httputil.ReverseProxy {
	t.Helper()
	u, err := url.Parse(address)
	if err != nil {
		t.Fatal(err)
	}
	return httputil.NewSingleHostReverseProxy(u)
}

// answerWith replaces the body of a proxied answer with body.
func answerWith(resp *http.Response, body []byte) {
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
}

// needCurl returns curl's path: in CI, where .ci/run installs it, a
// missing curl fails the test; elsewhere it skips it.
func needCurl(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("curl")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no curl: .ci/run installs Debian's curl for this check")
		}
		t.Skip("no curl on this machine (apt-get install curl): this check runs in CI")
	}
	return p
}

// replay runs a reproduction script against base with creds.
func replay(t *testing.T, script, base string, creds target.Credentials) string {
	t.Helper()
	cmd := exec.Command("sh", script)
	cmd.Env = append(os.Environ(), "BASE_URL="+base,
		"CONFORMANCE_CLIENT_ID="+creds.ClientID, "CONFORMANCE_CLIENT_SECRET="+creds.ClientSecret,
		"CONFORMANCE_USERNAME="+creds.Username, "CONFORMANCE_PASSWORD="+creds.Password,
		"CONFORMANCE_OTHER_USERNAME="+creds.OtherUsername, "CONFORMANCE_OTHER_PASSWORD="+creds.OtherPass)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sh %s: %v\n%s", script, err, out)
	}
	return string(out)
}
