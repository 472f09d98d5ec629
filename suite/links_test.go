package suite

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"eventsvc/conformance/origin"
	"eventsvc/conformance/origin/origintest"
	"eventsvc/conformance/othersvc"
	"eventsvc/conformance/report"
	"eventsvc/conformance/report/reporttest"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
	"eventsvc/server"
)

// proxyPage is the page nginx answers for what it does not serve.
const proxyPage = "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"

// prefixProxy serves the server at backend under prefix, as an ingress
// does: /events-service/api reaches it as /api, with the client's Host;
// any other path gets the proxy's own 404 page.
func prefixProxy(t *testing.T, backend, prefix string) *httptest.Server {
	t.Helper()
	to, err := url.Parse(backend)
	if err != nil {
		t.Fatal(err)
	}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(to)
		r.Out.URL.Path = strings.TrimPrefix(r.In.URL.Path, prefix)
		r.Out.URL.RawPath = ""
		r.Out.Host = r.In.Host // nginx's proxy_set_header Host $http_host
	}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, prefix+"/") {
			w.Header().Set("Server", "nginx")
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, proxyPage)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// remoteRun runs the default remote selection against base, read-only
// or not, and returns its report, output and error.
func remoteRun(t *testing.T, base string, readOnly bool, vars map[string]string) (*report.Report, string, error) {
	t.Helper()
	if vars == nil {
		vars = map[string]string{}
	}
	vars["BASE_URL"] = base
	o, err := FromEnv(lookup(vars))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	o.Output, o.ReadOnly, o.ReportDir = &out, readOnly, t.TempDir()
	rep, err := Run(o)
	return rep, out.String(), err
}

// deadLinkFindings are the run's findings of dead links.
func deadLinkFindings(rep *report.Report) []*report.ScenarioResult {
	var out []*report.ScenarioResult
	for _, s := range rep.Scenarios {
		if s.File == report.DeadLinkFile {
			out = append(out, s)
		}
	}
	return out
}

// requireOneDeadLink requires the run to fail API-10 alone, by one
// finding of a dead link that says each of says, and to leave the rules
// the link kept from being checked not checked, with that reason.
func requireOneDeadLink(t *testing.T, rep *report.Report, out string, err error, says ...string) {
	t.Helper()
	if !errors.Is(err, ErrFailed) || rep.Outcome != report.OutcomeFailed {
		t.Fatalf("Run = %v, outcome %s, want a failed run\n%s", err, rep.Outcome, out)
	}
	if failed := failedRules(rep); failed != "API-10" {
		t.Errorf("the run fails %s, want API-10 alone%s", failed, failedSteps(out))
	}
	found := deadLinkFindings(rep)
	if len(found) != 1 {
		t.Fatalf("%d findings of dead links, want 1:%s", len(found), failedSteps(out))
	}
	for _, want := range says {
		if !strings.Contains(found[0].Failure.Message, want) {
			t.Errorf("the finding does not say %q: %s", want, found[0].Failure.Message)
		}
	}
	notChecked := 0
	for _, s := range rep.Scenarios {
		if s.Verdict == report.NotRun && s.Reason == selection.ReasonDeadLink {
			notChecked++
		}
		if s.Verdict == report.Failed && s.File != report.DeadLinkFile {
			t.Errorf("%s failed: %s", s.Place(), s.Failure.Message)
		}
	}
	if notChecked == 0 {
		t.Error("no scenario is not checked for the dead link")
	}
	if n := strings.Count(out, "leads nowhere:"); n > 2 {
		t.Errorf("the output tells the dead link %d times, want once (its line and its failure)", n)
	}
}

// TestAPrefixTheServerWasNotToldOfIsOneAPI10Finding: a reference server
// served under a path prefix it was not told of writes links without
// it, which lead to the proxy's 404. A run, read-only or not, fails
// API-10 alone, once, saying the prefix is lost and which setting brings
// it back; the rules that needed the links are not checked, not failed.
func TestAPrefixTheServerWasNotToldOfIsOneAPI10Finding(t *testing.T) {
	ref := startReference(t, target.ServerConfig{}, nil)
	front := prefixProxy(t, ref, "/events-service")
	for _, readOnly := range []bool{false, true} {
		rep, out, err := remoteRun(t, front.URL+"/events-service", readOnly, nil)
		requireOneDeadLink(t, rep, out, err, `the "events" link of GET /events-service/api`, "without the path prefix /events-service", "-public-url "+front.URL+"/events-service", "X-Forwarded-Prefix")
	}
}

// TestALinkToAnAddressThatRefusesConnectionsIsNotTheTargetDown: links
// that lead where nothing listens are a dead link, API-10, while the base
// URL answers; never the target that stopped answering (exit 4).
func TestALinkToAnAddressThatRefusesConnectionsIsNotTheTargetDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	ref := startReference(t, target.ServerConfig{}, func(o *server.Options) { o.PublicURL = closed })
	rep, out, err := remoteRun(t, ref, false, nil)
	if errors.Is(err, ErrUnreachable) || rep.Outcome == report.OutcomeUnreachable {
		t.Fatalf("the run ends as the target unreachable: %v", err)
	}
	requireOneDeadLink(t, rep, out, err, closed+"/api/events", "nothing answered", "lose the port")
}

// TestHTTPLinksUnderHTTPSAreNeverAdvisedDown: TLS ends in front of a
// server that was not told, which writes http links; the finding says so
// and never advises an http BASE_URL.
func TestHTTPLinksUnderHTTPSAreNeverAdvisedDown(t *testing.T) {
	caFile, leaf := testCA(t)
	ref, err := url.Parse(startReference(t, target.ServerConfig{}, nil))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(ref)
		r.Out.Host = r.In.Host
	}})
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{leaf}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // http sent to the TLS port is the point
	srv.StartTLS()
	defer srv.Close()
	rep, out, err := remoteRun(t, srv.URL, false, map[string]string{"CONFORMANCE_CA_FILE": caFile})
	requireOneDeadLink(t, rep, out, err, "TLS ends in front of the server", "X-Forwarded-Proto", "-public-url "+srv.URL)
	if strings.Contains(out, "-public-url http:") || strings.Contains(out, "BASE_URL http:") || strings.Contains(out, "give that origin as BASE_URL") {
		t.Errorf("the run advises leaving https:\n%s", out)
	}
}

// TestAProxysOwnPageIsToldApart: a request the proxy in front refuses
// with a page of its own (413 for a body over its limit) fails with a
// hint that the page is the proxy's, not the API's.
func TestAProxysOwnPageIsToldApart(t *testing.T) {
	rp := proxyTo(t, startReference(t, target.ServerConfig{}, nil))
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && r.ContentLength > 450 {
			w.Header().Set("Server", "nginx")
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			io.WriteString(w, "<html><body><h1>413 Request Entity Too Large</h1></body></html>")
			return
		}
		rp.ServeHTTP(w, r)
	}))
	defer front.Close()
	_, out, err := remoteRun(t, front.URL, false, nil)
	if err == nil {
		t.Fatal("a run whose creations the proxy refuses passes")
	}
	if !strings.Contains(out, "client_max_body_size") {
		t.Errorf("no failure says the 413 is the proxy's (%v):\n%s", err, out)
	}
}

// TestAnAPIRootThatDemandsATokenFailsAPI1: a root that answers 401 with a
// bearer challenge, and the API's root once a token is sent, is the API
// breaking API-1: the run goes on, and fails API-1, rather than stopping
// as "not the Event Service API".
func TestAnAPIRootThatDemandsATokenFailsAPI1(t *testing.T) {
	// GET /api is a GET under /api/, open to everyone too (AUTH-2).
	requireFails(t, othersvc.Config{Flaws: othersvc.Flaws{RootNeedsToken: true}}, "API-1 AUTH-2")
}

// TestAnAPIRootThatDemandsSomethingElseGetsNoCredential: a refusal of the
// root without a bearer challenge is not the API's: the preflight stops
// the run before any credential is sent.
func TestAnAPIRootThatDemandsSomethingElseGetsNoCredential(t *testing.T) {
	var tokens int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/oauth/token" {
			tokens++
		}
		w.Header().Set("WWW-Authenticate", `Basic realm="intranet"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	_, _, err := remoteRun(t, srv.URL, false, nil)
	if err == nil || !strings.Contains(err.Error(), "is not the Event Service API") || tokens != 0 {
		t.Errorf("Run = %v, %d token requests; want a preflight error and none", err, tokens)
	}
}

// runElsewhere runs o against a reference server behind a proxy whose
// answers send the run to another origin for the addresses under prefix
// (origintest.Start), with a short timeout, and returns the proxy.
func runElsewhere(t *testing.T, prefix string, o Options) (*origintest.Target, *report.Report, error) {
	t.Helper()
	x := origintest.Start(t, startReference(t, target.ServerConfig{}, nil), prefix)
	o.Target = remote(x.URL)
	o.Target.Timeout = 5 * time.Second
	rep, err := Run(o)
	return x, rep, err
}

// TestCredentialsGoOnlyToTheTargetsOrigin runs the scenarios that create
// and update events against a target whose creations answer with a
// Location at another origin (another loopback port), and whose links to
// its events lead there too. The run goes there, as the links say, but
// without the bearer token or the target's cookies; and every report
// names that origin.
func TestCredentialsGoOnlyToTheTargetsOrigin(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	x, rep, err := runElsewhere(t, "/api/events/", Options{Tags: "@spec and @writes and (@API-6 or @API-9)", ReportDir: dir, Output: &out})
	if rep == nil {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	requests, credentials := x.Seen()
	if requests == 0 {
		t.Fatalf("the run never went to the other origin:\n%s", out.String())
	}
	if len(credentials) > 0 {
		t.Errorf("the other origin was sent %d credentials in %d requests: %q", len(credentials), requests, credentials)
	}

	i := slices.IndexFunc(rep.Foreign, func(f origin.Foreign) bool { return f.Origin == x.Other })
	if i < 0 || rep.Foreign[i].Requests != requests || !slices.Contains(rep.Foreign[i].Via, "named by the Location of POST /api/events") {
		t.Errorf("the report says %+v, want %s with %d requests, named by the Location of POST /api/events", rep.Foreign, x.Other, requests)
	}
	if !strings.Contains(out.String(), "\n  "+x.Other+": ") {
		t.Errorf("the console does not name %s:\n%s", x.Other, out.String())
	}
	if f := reporttest.Foreign(t, dir, x.Other); f.Requests != requests {
		t.Errorf("conformance.json says %d requests went to %s, the other listener saw %d", f.Requests, x.Other, requests)
	}
	if rep.Counts()[report.Failed] > 0 && reporttest.NoCredentialsTo(t, dir, x.Other) == 0 {
		t.Errorf("no reproduction script goes to %s, as the failed scenarios did", x.Other)
	}
}

// TestThePreflightSendsNoCredentialsToAnotherOrigin: the target's API
// root sends the run to an event list at another origin. The preflight
// reads it there, without the token, so the list offers it no
// create-new-event link, and the run cannot start; the reports say where
// the preflight went.
func TestThePreflightSendsNoCredentialsToAnotherOrigin(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	x, rep, err := runElsewhere(t, "/api/events", Options{Tags: "@spec and @writes and @API-6", ReportDir: dir, Output: &out})
	requests, credentials := x.Seen()
	if requests == 0 {
		t.Fatalf("the preflight never went to the other origin: %v", err)
	}
	if len(credentials) > 0 {
		t.Errorf("the other origin was sent %q", credentials)
	}
	if !errors.Is(err, target.ErrPreflight) || rep == nil || rep.Outcome != report.OutcomeNotStarted {
		t.Fatalf("Run = %v, want the preflight to stop it\n%s", err, out.String())
	}
	if want := "the event list is at " + x.Other + ", another origin than BASE_URL's, where the run sends no credentials"; !strings.Contains(err.Error(), want) {
		t.Errorf("the preflight's error does not say %q:\n%v", want, err)
	}
	reporttest.Foreign(t, dir, x.Other)
}

// TestThePreflightSaysWhenTheCreateLinkLeadsToAnotherOrigin: the event
// list's create-new-event link names another origin, which refuses a
// creation without a token. The preflight sent it none, and says why the
// creation failed rather than blaming the event body.
func TestThePreflightSaysWhenTheCreateLinkLeadsToAnotherOrigin(t *testing.T) {
	var mu sync.Mutex
	var sent []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sent = append(sent, r.Header.Values("Authorization")...)
		mu.Unlock()
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer other.Close()
	tgt := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api":
			w.Write([]byte(`{"_links": {"events": {"href": "/api/events"}}}`))
		case "/oauth/token":
			w.Write([]byte(`{"access_token": "a-token-of-the-target", "token_type": "bearer"}`))
		case "/api/events":
			w.Write([]byte(`{"_links": {"create-new-event": {"href": "` + other.URL + `/api/events"}}}`))
		}
	}))
	defer tgt.Close()
	log := &origin.Log{}
	checked := remote(tgt.URL)
	checked.Origins = log
	_, err := target.Preflight(checked, writing)
	if want := "the create-new-event link is at " + other.URL + ", another origin than BASE_URL's, where the run sends no credentials"; !errors.Is(err, target.ErrPreflight) || !strings.Contains(err.Error(), want) {
		t.Errorf("Preflight = %v, want it to say %q", err, want)
	}
	mu.Lock()
	if len(sent) > 0 {
		t.Errorf("the other origin was sent %d Authorization headers", len(sent))
	}
	mu.Unlock()
	if f := log.Foreign(); len(f) != 1 || f[0].Origin != other.URL || f[0].Requests != 1 {
		t.Errorf("the log says %+v", f)
	}
}
