package suite

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"eventsvc/conformance/inprocess"
	"eventsvc/conformance/report"
	"eventsvc/conformance/target"
)

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
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ModifyResponse = func(resp *http.Response) error {
		if !resp.Request.URL.Query().Has("access_token") {
			return nil
		}
		resp.Body.Close()
		resp.Body = io.NopCloser(strings.NewReader(hostileBody))
		resp.ContentLength = int64(len(hostileBody))
		resp.Header.Set("Content-Length", strconv.Itoa(len(hostileBody)))
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
