package suite

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"eventsvc/conformance/inprocess"
	"eventsvc/conformance/mutate"
	"eventsvc/conformance/report"
	"eventsvc/conformance/report/reporttest"
	"eventsvc/conformance/target"
)

// leakyFeature's scenarios fail right after exchanging every kind of secret,
// so that their failure messages carry requests and responses full of them.
const leakyFeature = `Feature: Failures that carry secrets
  @spec @TOK-5
  Scenario: A token response that was expected to be refused
    When the client asks for a token with:
      | grant_type | password            |
      | username   | the user's email    |
      | password   | the user's password |
    Then the token request is refused with status 400 and error "invalid_grant"

  @spec @TOK-4
  Scenario: A refresh that was expected to be refused
    Given the user has a token
    When the client asks for a refresh of the refresh token
    Then no token is issued

  @spec @API-4
  Scenario: A bearer request that was expected to fail
    When the other user reads the API root
    And the user lists the events
    Then the answer does not offer the link "create-new-event"

  @spec @SVC-4
  Scenario: A token in the query that was expected to be accepted
    When a caller sends a new event to the event list with the user's access token as the query parameter "access_token"
    Then the answer has status 200
`

// TestNoSecretInTheOutputOrReportsOfAFailingRun runs failing scenarios
// against a reference server on a loopback port, as a remote target, with
// distinctive credentials, and looks for them in everything the run wrote.
func TestNoSecretInTheOutputOrReportsOfAFailingRun(t *testing.T) {
	creds := target.Credentials{
		ClientID: "leak-check-app", ClientSecret: "Client-S3cret/with+chars",
		Username: "ursula@example.com", Password: "Ursula-P4ssword-xyz",
		OtherUsername: "oscar@example.com", OtherPass: "Oscar-P4ssword-xyz",
	}
	inst, err := inprocess.Launcher{Credentials: creds}.Launch(target.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()

	dir := t.TempDir()
	var out bytes.Buffer
	_, err = Run(Options{
		Target:    target.Target{BaseURL: inst.BaseURL(), Credentials: creds, RunID: "leak-check"},
		Features:  fstest.MapFS{"leaky.feature": {Data: []byte(leakyFeature)}},
		ReportDir: dir,
		Output:    &out,
	})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("Run = %v, want the scenarios to fail", err)
	}
	texts := map[string]string{"output": out.String()}
	reporttest.Check(t, dir)
	for _, name := range []string{report.JUnitReport, report.CucumberReport, report.JSONReport, report.HTMLReport} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		texts[name] = string(b)
	}
	if !strings.Contains(texts["output"], "request:") || !strings.Contains(texts[report.JUnitReport], "Authorization: Bearer ***") ||
		!strings.Contains(texts[report.JSONReport], "Authorization: Bearer ***") || !strings.Contains(texts[report.HTMLReport], "Authorization: Bearer ***") {
		t.Fatal("the failures do not show the masked exchanges this test is about")
	}
	var forbidden []string
	for _, s := range []string{creds.ClientSecret, creds.Password, creds.OtherPass} {
		forbidden = append(forbidden, s, url.QueryEscape(s), base64.StdEncoding.EncodeToString([]byte(s)))
	}
	forbidden = append(forbidden, base64.StdEncoding.EncodeToString([]byte(creds.ClientID+":"+url.QueryEscape(creds.ClientSecret))))
	// The reference server's tokens: 32 random bytes in base64url, standing
	// alone, with capitals and digits (a lower-case slug is not one).
	token := regexp.MustCompile(`(^|[^A-Za-z0-9_-])([A-Za-z0-9_-]{43})([^A-Za-z0-9_-]|$)`)
	looksRandom := regexp.MustCompile(`[A-Z].*[0-9]|[0-9].*[A-Z]`)
	for where, text := range texts {
		for _, s := range forbidden {
			if strings.Contains(text, s) {
				t.Errorf("%s holds the secret %q", where, s)
			}
		}
		for _, m := range token.FindAllStringSubmatch(text, -1) {
			if looksRandom.MatchString(m[2]) {
				t.Errorf("%s holds a token: %s", where, m[2])
			}
		}
	}
}

// echoKey is where echoProxy keeps a request's body for its answer.
type echoKey struct{}

// echoProxy is a hostile target: a reference server behind a proxy that
// echoes what each request carried in its answer. Header X-Echo-Basic
// holds the request's Authorization header as it is, X-Echo-Json the
// credentials it carried, decoded, as a JSON list (Go's encoding: & < > as
// \u0026 …), and a JSON answer gains a property "echo" with the
// Authorization header, the request's body, and the decoded credentials.
func echoProxy(t *testing.T, target string) *httptest.Server {
	proxy := proxyTo(t, target)
	proxy.ModifyResponse = func(resp *http.Response) error {
		body, _ := resp.Request.Context().Value(echoKey{}).([]byte)
		auth := resp.Request.Header.Get("Authorization")
		var creds []string
		if scheme, cred, ok := strings.Cut(auth, " "); ok && strings.EqualFold(scheme, "Basic") {
			raw, _ := base64.StdEncoding.DecodeString(cred)
			id, secret, _ := strings.Cut(string(raw), ":")
			id, _ = url.QueryUnescape(id)
			secret, _ = url.QueryUnescape(secret)
			creds = append(creds, id, secret)
		}
		if form, err := url.ParseQuery(string(body)); err == nil {
			for _, k := range []string{"password", "refresh_token", "token"} {
				creds = append(creds, form[k]...)
			}
		}
		listed, _ := json.Marshal(creds)
		resp.Header.Set("X-Echo-Basic", auth)
		resp.Header.Set("X-Echo-Json", string(listed))
		if !strings.Contains(resp.Header.Get("Content-Type"), "json") {
			return nil
		}
		answer, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		var doc map[string]any
		if json.Unmarshal(answer, &doc) == nil && doc != nil {
			doc["echo"] = map[string]any{"authorization": auth, "body": string(body), "values": creds}
			answer, _ = json.Marshal(doc)
		}
		answerWith(resp, answer)
		return nil
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), echoKey{}, body)))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// secretForms are the forms of secret a report must not hold: as it is,
// percent-encoded, JSON-escaped as Go writes it (with and without
// \u0026 for &), HTML- and XML-escaped, in base64, and every
// window of 8 characters of the part of each Basic credential of id that
// encodes the secret alone.
func secretForms(id, secret string) []string {
	goJSON, _ := json.Marshal(secret)
	var plain bytes.Buffer
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	enc.Encode(secret)
	out := []string{
		secret, url.QueryEscape(secret), url.PathEscape(secret), html.EscapeString(secret),
		strings.Trim(string(goJSON), `"`), strings.Trim(strings.TrimSpace(plain.String()), `"`),
		base64.StdEncoding.EncodeToString([]byte(secret)), base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(secret))),
	}
	for _, pair := range [][2]string{{url.QueryEscape(id) + ":", url.QueryEscape(secret)}, {id + ":", secret}} {
		cred := base64.StdEncoding.EncodeToString([]byte(pair[0] + pair[1]))
		from := (len(pair[0])*8 + 5) / 6 // past the characters that hold the id
		to := len(cred) - 3              // before a partial character and padding
		for i := from; i+8 <= to; i++ {
			out = append(out, cred[i:i+8])
		}
	}
	return out
}

// TestNoFormOfASecretInTheReportsOfAnEchoingTarget runs failing scenarios
// against a target that echoes every credential it is sent, in headers and
// in JSON, with client ids of each length modulo 3 (the place the secret
// starts at in the base64 of "id:secret") and secrets that hold every
// character an encoding changes. No form of a secret is in the output, the
// reports or the reproductions.
func TestNoFormOfASecretInTheReportsOfAnEchoingTarget(t *testing.T) {
	for _, id := range []string{"ab1", "abc1", "abcd1"} {
		t.Run(id, func(t *testing.T) {
			creds := target.Credentials{
				ClientID: id, ClientSecret: `s3cr&t<>"'%+:x`,
				Username: "ursula@example.com", Password: `P4ss w&rd<>"'%+:é`,
				OtherUsername: "oscar@example.com", OtherPass: `Oth3r&<>"'%+:€`,
			}
			inst, err := inprocess.Launcher{Credentials: creds}.Launch(target.ServerConfig{})
			if err != nil {
				t.Fatal(err)
			}
			defer inst.Close()
			proxy := echoProxy(t, inst.BaseURL())

			dir := t.TempDir()
			var out bytes.Buffer
			_, err = Run(Options{
				Target:    target.Target{BaseURL: proxy.URL, Credentials: creds, RunID: "echo-check"},
				Features:  fstest.MapFS{"leaky.feature": {Data: []byte(leakyFeature)}},
				ReportDir: dir,
				Output:    &out,
			})
			if !errors.Is(err, ErrFailed) {
				t.Fatalf("Run = %v, want the scenarios to fail\n%s", err, out.String())
			}
			texts := map[string]string{"output": out.String()}
			for _, name := range []string{report.JUnitReport, report.CucumberReport, report.JSONReport, report.HTMLReport} {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				texts[name] = string(b)
			}
			scripts, _ := filepath.Glob(filepath.Join(dir, report.ReproDir, "*.sh"))
			for _, s := range scripts {
				b, err := os.ReadFile(s)
				if err != nil {
					t.Fatal(err)
				}
				texts[filepath.Base(s)] = string(b)
			}
			if len(scripts) == 0 || !strings.Contains(texts["output"], "X-Echo-Basic: Basic ") || !strings.Contains(texts[report.JSONReport], `\"echo\":{`) {
				t.Fatalf("the failures do not show the echoes this test is about:\n%s", texts["output"])
			}
			for _, secret := range creds.Secrets() {
				for _, form := range secretForms(id, secret) {
					for where, text := range texts {
						if strings.Contains(text, form) {
							t.Errorf("%s holds %q, a form of the secret %q", where, form, secret)
						}
					}
				}
			}
		})
	}
}

// TestTheWrongLoginsAreNearMissesOfEveryKind: the scenarios' wrong client
// secrets are near-misses of the client's, every kind of them in a run,
// and their wrong password the password with its letters' case swapped;
// no report holds any of them.
func TestTheWrongLoginsAreNearMissesOfEveryKind(t *testing.T) {
	c := target.Credentials{ClientID: "nearMissClient", ClientSecret: "Client-Secret-Of-The-Run-4711", Username: "near@example.org",
		Password: "Password-Of-The-User-0815", OtherUsername: "other@example.org", OtherPass: "Password-Of-The-Other-2342"}
	var mu sync.Mutex
	secrets, passwords := map[string]bool{}, map[string]bool{}
	base := &http.Transport{}
	seen := recording{base: base, rt: func(r *http.Request) (*http.Response, error) {
		if r.URL.Path == "/oauth/token" {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			mu.Lock()
			if id, secret, ok := r.BasicAuth(); ok && id == c.ClientID && secret != c.ClientSecret {
				secrets[secret] = true
			}
			if form, err := url.ParseQuery(string(body)); err == nil && form.Get("username") == c.Username && form.Has("password") && form.Get("password") != c.Password {
				passwords[form.Get("password")] = true
			}
			mu.Unlock()
		}
		return base.RoundTrip(r)
	}}
	dir := t.TempDir()
	var out bytes.Buffer
	in := target.Target{Credentials: c, RunID: "near-miss", Launcher: inprocess.Launcher{Credentials: c}, Transport: seen}
	if _, err := Run(Options{Target: in, Tags: "@spec && (@TOK-1 || @TOK-3 || @TOK-16)", Output: &out, ReportDir: dir}); err != nil {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	others := []string{c.ClientID, c.ClientSecret, c.Username, c.Password, c.OtherUsername, c.OtherPass}
	var sent []string
	for _, way := range mutate.NearMissWays {
		nm, _ := mutate.NearMiss(mutate.Var{Value: c.ClientSecret, Name: "${CONFORMANCE_CLIENT_SECRET}"}, way, others)
		if !secrets[nm.Value] {
			t.Errorf("no wrong client secret is the secret with %s (%s); %d wrong secrets sent", way, nm.Name, len(secrets))
		}
		sent = append(sent, nm.Value)
	}
	swapped, _ := mutate.NearMiss(mutate.Var{Value: c.Password, Name: "${CONFORMANCE_PASSWORD}"}, mutate.NearMissWays[0], others)
	if !passwords[swapped.Value] || len(passwords) != 1 {
		t.Errorf("%d wrong passwords sent, want the password with its case swapped alone", len(passwords))
	}
	sent = append(sent, swapped.Value)
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, v := range sent {
			if bytes.Contains(b, []byte(v)) {
				t.Errorf("%s holds a near-miss of a credential", filepath.Base(f))
			}
		}
	}
}

// recording is an http.RoundTripper of a function over base, whose idle
// connections the run closes as it closes any transport's: a connection
// left open would keep a server from shutting down.
type recording struct {
	base *http.Transport
	rt   func(*http.Request) (*http.Response, error)
}

func (r recording) RoundTrip(req *http.Request) (*http.Response, error) { return r.rt(req) }

func (r recording) CloseIdleConnections() { r.base.CloseIdleConnections() }
