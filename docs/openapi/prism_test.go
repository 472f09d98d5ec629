package openapi_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"eventsvc/docs/openapi"
	"eventsvc/internal/redact"
	"eventsvc/server"
	"eventsvc/server/servertest"
)

// prismReady is the line Prism writes once it listens.
var prismReady = regexp.MustCompile(`Prism is listening on (http://127\.0\.0\.1:[0-9]+)`)

// prismLog is what Prism writes, kept for failure messages, with the
// test's secrets masked.
type prismLog struct {
	mu    sync.Mutex
	lines []string
	mask  *redact.Redactor
}

func (l *prismLog) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
}

func (l *prismLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mask.String(strings.Join(l.lines, "\n"))
}

// startPrism starts Prism's validating proxy for the document in front of
// upstream, on a loopback port it picks, with --errors: a request or an
// answer the document does not allow is answered by Prism with an error
// (422 for a request, 500 for an answer) instead of being passed on. It
// returns the proxy's base URL once it listens (within 15 seconds), and
// stops it when the test ends.
func startPrism(t *testing.T, prism, document, upstream string, log *prismLog) string {
	t.Helper()
	cmd := exec.Command(prism, "proxy", document, upstream, "--errors", "--host", "127.0.0.1", "--port", "0")
	cmd.Env = toolEnv()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatalf("start prism: %v", err)
	}
	done := make(chan struct{})
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
		_ = cmd.Wait()
	})
	ready := make(chan string, 1)
	go func() {
		defer close(done)
		lines := bufio.NewScanner(out)
		for lines.Scan() {
			log.add(lines.Text())
			if m := prismReady.FindStringSubmatch(lines.Text()); m != nil {
				select {
				case ready <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case base := <-ready:
		return base
	case <-done:
		t.Fatalf("prism ended before it listened:\n%s", log)
	case <-time.After(15 * time.Second):
		t.Fatalf("prism did not listen within 15 seconds:\n%s", log)
	}
	return ""
}

// TestPrismChecksRequestsAndAnswersAgainstTheDocument puts Prism's
// validating proxy, a tool client developers use, in front of a reference
// server: it reads the document's schemas, so that a create the document
// does not allow is stopped before it reaches the server (the document's
// jsonSchemaDialect line once switched that off), and the server's answers
// to normal requests pass its checks.
func TestPrismChecksRequestsAndAnswersAgainstTheDocument(t *testing.T) {
	prism := tool(t, "prism")
	document, err := filepath.Abs("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := servertest.New(t, server.New(server.Options{Config: servertest.DemoConfig(t)}))
	log := &prismLog{mask: redact.New()}
	proxy := startPrism(t, prism, document, srv.URL, log)

	send := func(method, base, path, token, body string, basic ...string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if len(basic) == 2 {
			req.SetBasicAuth(basic[0], basic[1])
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		} else if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, string(b)
	}
	// passes sends a request through Prism and wants the server's answer,
	// with the status given and no violation of the document.
	passes := func(method, path, token, body string, status int, basic ...string) string {
		t.Helper()
		resp, b := send(method, proxy, path, token, body, basic...)
		if v := resp.Header.Get("sl-violations"); v != "" || resp.StatusCode != status {
			t.Fatalf("%s %s through prism: %d (want %d), violations %s\n%s\nprism:\n%s", method, path, resp.StatusCode, status, log.mask.String(v), log.mask.String(b), log)
		}
		return b
	}
	count := func() float64 {
		t.Helper()
		_, b := send("GET", srv.URL, "/api/events", "", "")
		var page struct {
			Page struct{ TotalElements float64 }
		}
		if err := json.Unmarshal([]byte(b), &page); err != nil {
			t.Fatalf("the list: %v: %s", err, b)
		}
		return page.Page.TotalElements
	}

	form := url.Values{"grant_type": {"password"}, "username": {"user@email.com"}, "password": {"user"}}.Encode()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal([]byte(passes("POST", "/oauth/token", "", form, http.StatusOK, "myApp", "pass")), &tok); err != nil || tok.AccessToken == "" {
		t.Fatalf("no access token through prism (%v)", err)
	}
	log.mask.Add(tok.AccessToken)
	token := tok.AccessToken

	before := count()
	resp, b := send("POST", proxy, "/api/events", token, `{"id":5}`)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/problem+json") {
		t.Fatalf("{\"id\":5} posted to /api/events through prism: %d %s, want prism's 422 problem: prism does not check request bodies against the document\n%s\nprism:\n%s",
			resp.StatusCode, resp.Header.Get("Content-Type"), log.mask.String(b), log)
	}
	var problem struct {
		Validation []struct{ Code, Message string }
	}
	if err := json.Unmarshal([]byte(b), &problem); err != nil {
		t.Fatalf("prism's 422: %v: %s", err, b)
	}
	flagged := map[string]bool{}
	for _, v := range problem.Validation {
		flagged[v.Code] = true
	}
	if !flagged["required"] || !flagged["additionalProperties"] {
		t.Errorf(`prism flags {"id":5} with %+v; want the required fields missing and "id" not allowed`, problem.Validation)
	}
	if after := count(); after != before {
		t.Errorf("the create prism flagged reached the server: %v events before, %v after", before, after)
	}

	created := passes("POST", "/api/events", token, `{"name": "Prism", "description": "Checked by a proxy", "beginEnrollmentDateTime": "2026-11-01T09:00",
 "closeEnrollmentDateTime": "2026-11-10T17:00:00", "beginEventDateTime": "2026-11-20T18:00:00", "endEventDateTime": "2026-11-20T20:00:00",
 "location": "Room 7", "basePrice": 10, "maxPrice": 20}`, http.StatusCreated)
	var event struct {
		Links struct{ Self struct{ Href string } } `json:"_links"`
	}
	if err := json.Unmarshal([]byte(created), &event); err != nil || !strings.HasPrefix(event.Links.Self.Href, srv.URL+"/api/events/") {
		t.Fatalf("the created event has no self link (%v): %s", err, created)
	}
	if after := count(); after != before+1 {
		t.Errorf("after a create through prism: %v events, want %v", after, before+1)
	}
	self := strings.TrimPrefix(event.Links.Self.Href, srv.URL)
	passes("GET", "/api", "", "", http.StatusOK)
	passes("GET", "/api/events?page=0&size=5&sort=name,desc", "", "", http.StatusOK)
	passes("GET", "/api/events", token, "", http.StatusOK)
	passes("GET", self, "", "", http.StatusOK)
	passes("GET", self, token, "", http.StatusOK)
}

// TestPrismFlagsAnAnswerTheDocumentDoesNotAllow: the proxy of the test
// above checks answers too, so that its "no violation" means something.
// With a copy of the document whose API root must also link to
// "nowhere", the server's answer to GET /api is flagged.
func TestPrismFlagsAnAnswerTheDocumentDoesNotAllow(t *testing.T) {
	prism := tool(t, "prism")
	var doc map[string]any
	if err := json.Unmarshal(openapi.Document(), &doc); err != nil {
		t.Fatal(err)
	}
	links := doc["components"].(map[string]any)["schemas"].(map[string]any)["Index"].(map[string]any)["properties"].(map[string]any)["_links"].(map[string]any)
	links["required"] = append(links["required"].([]any), "nowhere")
	stricter, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	document := filepath.Join(t.TempDir(), "stricter.json")
	if err := os.WriteFile(document, stricter, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := servertest.New(t, server.New(server.Options{Config: servertest.DemoConfig(t)}))
	log := &prismLog{mask: redact.New()}
	proxy := startPrism(t, prism, document, srv.URL, log)

	resp, err := http.Get(proxy + "/api")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(resp.Header.Get("sl-violations"), "nowhere") {
		t.Fatalf("GET /api through prism with a document that wants a link the server does not send: %d, violations %q, want prism's 500 naming it\n%s\nprism:\n%s",
			resp.StatusCode, resp.Header.Get("sl-violations"), b, log)
	}
}
