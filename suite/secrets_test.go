package suite

import (
	"bytes"
	"encoding/base64"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"eventsvc/conformance/inprocess"
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
