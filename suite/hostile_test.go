package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"
	"unicode/utf8"

	"eventsvc/conformance/explore"
	"eventsvc/conformance/inprocess"
	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
	"eventsvc/server"
	"eventsvc/server/servertest"
)

// shellProxy serves a reference server at backend as a target that
// wants the shell of whoever replays its answers: every text it chooses
// holds shell syntax that runs `touch marker` if a shell reads it as
// anything but data.
//
//   - Its tokens end with such text; it takes them back without it.
//   - A creation's Location is the event's address followed by such text,
//     in turn as it is, percent-encoded, in double quotes, in backquotes
//     and between semicolons, or by curl's globs; there, it answers 404
//     with such text in its status text (with an escape sequence), a
//     header, and a body that holds escape sequences, line breaks and a
//     NUL.
//   - Every answer has such a header; every JSON object of /api holds
//     such a "remark", with a line break and a NUL.
type shellProxy struct {
	backend string
	touch   string // the command, without spaces: touch${IFS}marker

	mu        sync.Mutex
	creations int
}

// tokenTail ends every token the hostile target hands out.
func (p *shellProxy) tokenTail() string {
	return "'$(" + p.touch + ")'`" + p.touch + "`;" + p.touch + ";"
}

// locationTails are what follows a created event's address, in turn.
func (p *shellProxy) locationTails() []string {
	return []string{
		"'$(" + p.touch + ")'",
		url.PathEscape("'$(" + p.touch + ")'"),
		`";` + p.touch + `;"`,
		"`" + p.touch + "`",
		"';" + p.touch + ";'",
		"{a,b}[1-2]", // curl's globs
	}
}

// evil is the text of the hostile target's headers, bodies and status
// text.
func (p *shellProxy) evil() string {
	return "'$(" + p.touch + ")'\";" + p.touch + ";\"`" + p.touch + "`"
}

// hostileEvent is the address of an event the hostile target named: its
// id followed by something that is not a digit.
var hostileEvent = regexp.MustCompile(`^/api/events/[0-9]+[^0-9/]`)

func (p *shellProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if hostileEvent.MatchString(r.URL.Path) {
		p.rawNotFound(w)
		return
	}
	body, _ := io.ReadAll(r.Body)
	tail := p.tokenTail()
	body = bytes.ReplaceAll(bytes.ReplaceAll(body, []byte(url.QueryEscape(tail)), nil), []byte(tail), nil)
	req, _ := http.NewRequest(r.Method, p.backend+r.URL.RequestURI(), bytes.NewReader(body))
	req.Header = r.Header.Clone()
	if a := req.Header.Get("Authorization"); a != "" {
		req.Header.Set("Authorization", strings.ReplaceAll(a, tail, ""))
	}
	req.Host = r.Host
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	answer = p.answer(r, resp, answer)
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.Header().Del("Content-Length")
	w.Header().Set("X-Remark", p.evil())
	if loc := resp.Header.Get("Location"); loc != "" && r.Method == http.MethodPost && resp.StatusCode == http.StatusCreated {
		p.mu.Lock()
		tails := p.locationTails()
		w.Header().Set("Location", loc+tails[p.creations%len(tails)])
		p.creations++
		p.mu.Unlock()
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(answer)
}

// answer is the backend's answer as the hostile target sends it: tokens
// with their tail, JSON objects of /api with a remark.
func (p *shellProxy) answer(r *http.Request, resp *http.Response, body []byte) []byte {
	var doc map[string]any
	if json.Unmarshal(body, &doc) != nil {
		return body
	}
	switch {
	case r.URL.Path == "/oauth/token":
		for _, f := range []string{"access_token", "refresh_token"} {
			if tok, ok := doc[f].(string); ok {
				doc[f] = tok + p.tokenTail()
			}
		}
	case strings.HasPrefix(r.URL.Path, "/api"):
		doc["remark"] = p.evil() + "\n\x00" + p.evil()
	default:
		return body
	}
	b, _ := json.Marshal(doc)
	return b
}

// rawNotFound answers 404 with hostile text where Go's server would not
// write it: in the status text, with an escape sequence.
func (p *shellProxy) rawNotFound(w http.ResponseWriter) {
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	body := "\x1b]0;owned\x07\x1b[2J\r\n" + p.evil() + "\n\x00\x1b[31m" + p.evil() + "\n"
	fmt.Fprintf(buf, "HTTP/1.1 404 Not Found%s\x1b[2J\r\nX-Remark: %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		p.evil(), p.evil(), len(body), body)
	buf.Flush()
}

// startShellHostile starts a reference server and the hostile proxy in front
// of it, whose texts touch marker, and returns the proxy's address. The
// server has the demo credentials and no budget of token requests: the
// runs and the scripts' replays ask for some ninety tokens in seconds.
func startShellHostile(t *testing.T, marker string) string {
	t.Helper()
	ref := servertest.New(t, server.New(server.Options{Config: servertest.DemoConfig(t), TokenRate: -1}))
	srv := httptest.NewServer(&shellProxy{backend: ref.URL, touch: "touch${IFS}" + marker})
	t.Cleanup(srv.Close)
	return srv.URL
}

// statusLine is the first line of the answer in a masked exchange.
var statusLine = regexp.MustCompile(`(?m)^ *HTTP/1\.1 ([0-9]{3})`)

// TestScriptsRunNothingAHostileTargetChose: the scenario runner and the
// explorer, run against a target whose tokens, Locations, header values,
// status texts and bodies hold shell syntax, escape sequences, line
// breaks and NULs, fail and write scripts; each of them, run by sh and by
// bash against the same target with the run's credentials, runs nothing
// the target chose, lets no escape sequence through to the terminal, and
// ends with the failing request, whose answer has the status it had in
// the run.
func TestScriptsRunNothingAHostileTargetChose(t *testing.T) {
	for _, tool := range []string{"curl", "sh", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("no %s: .ci/run installs it for this check", tool)
			}
			t.Skipf("no %s on this machine: this check runs in CI", tool)
		}
	}
	marker := filepath.Join(t.TempDir(), "pwned")
	base := startShellHostile(t, marker)
	tgt := target.Target{BaseURL: base, Credentials: target.DemoCredentials, RunID: "hostile", Timeout: 20 * time.Second}

	var failures []*report.ScenarioResult
	scenarios, explored := t.TempDir(), t.TempDir()
	var out bytes.Buffer
	rep, err := Run(Options{Target: tgt, Tags: selection.RemoteTags + " and (@API-6 or @API-7 or @TOK-5)",
		ReportDir: scenarios, Output: &out})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	dirs := map[*report.ScenarioResult]string{}
	for _, s := range rep.Scenarios {
		if s.Failure != nil && s.Failure.ScriptFile != "" {
			failures, dirs[s] = append(failures, s), scenarios
		}
	}
	out.Reset()
	rep, err = explore.Run(context.Background(), explore.Options{Target: tgt, Seed: 1, MaxActions: 60, Output: &out, ReportDir: explored})
	if !errors.Is(err, explore.ErrFailed) {
		t.Fatalf("explore.Run = %v\n%s", err, out.String())
	}
	for _, s := range rep.Scenarios {
		if s.Failure != nil && s.Failure.ScriptFile != "" {
			failures, dirs[s] = append(failures, s), explored
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the runs themselves ran a command the target chose")
	}
	written, _ := filepath.Glob(filepath.Join(scenarios, report.ReproDir, "*.sh"))
	more, _ := filepath.Glob(filepath.Join(explored, report.ReproDir, "*.sh"))
	if len(failures) < 4 || len(written)+len(more) != len(failures) {
		t.Fatalf("the runs wrote %d scripts, for %d failures", len(written)+len(more), len(failures))
	}

	for _, s := range failures {
		t.Logf("%s: %s, %d exchanges, failing %d: %s", s.Place(), s.Verdict, len(s.Failure.Exchanges), s.Failure.FailingExchange, s.Failure.ScriptFile)
	}
	c := target.DemoCredentials
	env := append(os.Environ(), "BASE_URL="+base, "CONFORMANCE_CLIENT_ID="+c.ClientID, "CONFORMANCE_CLIENT_SECRET="+c.ClientSecret,
		"CONFORMANCE_USERNAME="+c.Username, "CONFORMANCE_PASSWORD="+c.Password, "CONFORMANCE_OTHER_USERNAME="+c.OtherUsername, "CONFORMANCE_OTHER_PASSWORD="+c.OtherPass)
	for _, s := range failures {
		f := s.Failure
		script := filepath.Join(dirs[s], f.ScriptFile)
		for _, shell := range []string{"sh", "bash"} {
			cmd := exec.Command(shell, script)
			cmd.Env = env
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			text, _ := os.ReadFile(script)
			if _, serr := os.Stat(marker); serr == nil {
				t.Fatalf("%s %s (%s) ran a command the target chose:\n%s", shell, script, s.Place(), text)
			}
			if err != nil {
				t.Errorf("%s %s (%s): %v\n%s\n%s", shell, script, s.Place(), err, stderr.String(), text)
				continue
			}
			got := stdout.String()
			if strings.ContainsAny(got, "\x00\x07\x1b") || strings.Contains(got, "\u009b") {
				t.Errorf("%s %s: its output passes control characters on to the terminal:\n%q", shell, script, got)
			}
			if f.FailingExchange == 0 {
				continue
			}
			last := got[strings.LastIndex(got, "\n== ")+1:]
			heading, _, _ := strings.Cut(last, "\n")
			want := statusLine.FindStringSubmatch(f.Exchanges[f.FailingExchange-1])
			replayed := statusLine.FindStringSubmatch(last)
			if !strings.HasSuffix(heading, "(the failing request)") || want == nil || replayed == nil || replayed[1] != want[1] {
				t.Errorf("%s %s (%s): the last request, %q, is not the failing one again, answered %v as in the run (%v):\n%s",
					shell, script, s.Place(), heading, replayed, want, got)
			}
		}
	}
}

// tokenInQueryFeature fails on an answer that hostileProxy rewrites.
const tokenInQueryFeature = `Feature: An answer that talks to the terminal
  @spec @SVC-4
  Scenario: A token in the query that was expected to be accepted
    When a caller sends a new event to the event list with the user's access token as the query parameter "access_token"
    Then the answer has status 200
`

// hostileBody changes the terminal's title, erases the line and prints
// another in its place, and holds an 8-bit CSI (a byte that is not UTF-8,
// and the character U+009B) and a right-to-left override.
const hostileBody = "\x1b]0;pwned\x07 \x1b[2K\rall rules passed \x9b31m \u009b32m \u202eevil"

// hostileHeader is what of hostileBody Go's client takes in a header: no
// C0 control.
const hostileHeader = "\x9b31m \u009b32m \u202eevil"

// hostileProxy is a reference server behind a proxy that answers a
// request with a token in its query with hostileBody, as text, and the
// header X-Note: hostileHeader.
func hostileProxy(t *testing.T, target string) *httptest.Server {
	proxy := proxyTo(t, target)
	proxy.ModifyResponse = func(resp *http.Response) error {
		if !resp.Request.URL.Query().Has("access_token") {
			return nil
		}
		resp.Body.Close()
		answerWith(resp, []byte(hostileBody))
		resp.Header.Set("Content-Type", "text/plain")
		resp.Header.Set("X-Note", hostileHeader)
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv
}

// colourCode is an escape sequence the console writes itself.
var colourCode = regexp.MustCompile("\x1b\\[[0-9;]*m")

// obeyed finds what a terminal acts on: C0 controls but newline and tab,
// DEL, C1 controls, bidirectional overrides and isolates.
var obeyed = regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]")

// TestATargetCannotTalkToTheTerminal runs a failing scenario whose answer
// holds escape sequences, in both console formats, coloured: the console
// shows them written out and writes no escape sequence but its colours,
// JUnit is XML and holds them written out, and the JSON reports escape
// them.
func TestATargetCannotTalkToTheTerminal(t *testing.T) {
	creds := target.DemoCredentials
	inst, err := inprocess.Launcher{Credentials: creds}.Launch(target.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	proxy := hostileProxy(t, inst.BaseURL())
	for _, format := range []string{report.FormatCompact, report.FormatPretty} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			var out bytes.Buffer
			_, err := Run(Options{
				Target:    target.Target{BaseURL: proxy.URL, Credentials: creds, RunID: "terminal-check"},
				Features:  fstest.MapFS{"hostile.feature": {Data: []byte(tokenInQueryFeature)}},
				ReportDir: dir,
				Output:    &out,
				Format:    format,
				Color:     true,
			})
			if !errors.Is(err, ErrFailed) {
				t.Fatalf("Run = %v, want the scenario to fail\n%s", err, out.String())
			}
			console := out.String()
			if m := obeyed.FindAllString(colourCode.ReplaceAllString(console, ""), -1); m != nil || !utf8.ValidString(console) {
				t.Errorf("the console holds %q, or is not UTF-8:\n%s", m, console)
			}
			for _, shown := range []string{`\x1b]0;pwned\x07 \x1b[2K\x0dall rules passed \x9b31m \u009b32m \u202eevil`, `X-Note: \x9b31m \u009b32m \u202eevil`} {
				if !strings.Contains(console, shown) {
					t.Errorf("the console does not show %s:\n%s", shown, console)
				}
			}
			if !strings.Contains(console, "\x1b[31m") {
				t.Errorf("the console lost its colours:\n%s", console)
			}
			junit, err := os.ReadFile(filepath.Join(dir, report.JUnitReport))
			if err != nil {
				t.Fatal(err)
			}
			for d := xml.NewDecoder(bytes.NewReader(junit)); ; {
				if _, err := d.Token(); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					t.Fatalf("junit.xml is not XML: %v", err)
				}
			}
			if !strings.Contains(string(junit), `\x1b]0;pwned\x07`) {
				t.Errorf("junit.xml does not show what the target sent:\n%s", junit)
			}
			for _, name := range []string{report.JUnitReport, report.JSONReport, report.CucumberReport} {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if m := obeyed.FindAllString(string(b), -1); m != nil || !utf8.Valid(b) {
					t.Errorf("%s holds %q, or is not UTF-8", name, m)
				}
			}
		})
	}
}
