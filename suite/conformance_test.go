package suite

import (
	"bytes"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"eventsvc/conformance/contract"
	"eventsvc/conformance/inprocess"
	"eventsvc/conformance/target"
	"eventsvc/docs/openapi"
	"eventsvc/server/servertest"
)

// TestConformance runs the suite: against the in-process reference server,
// or against BASE_URL when it is set. Each scenario is a subtest:
//
//	go test ./suite -run 'TestConformance/A_user_exchanges_their_email_and_password_for_tokens'
//
// In-process, it then reads the servers' request logs of the whole run:
// they must tell every request and hold no password, secret or token.
func TestConformance(t *testing.T) {
	o, err := FromEnv(os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	o.TestingT = t
	var log servertest.Log
	if l, ok := o.Target.Launcher.(inprocess.Launcher); ok {
		l.Log = &log
		o.Target.Launcher = l
	}
	if _, err := Run(o); err != nil {
		t.Fatal(err)
	}
	if o.Target.Launcher == nil {
		return
	}
	text := log.String()
	if !strings.Contains(text, "method=POST path=/oauth/token status=200") {
		t.Fatalf("the request log does not tell the requests: %.500s", text)
	}
	c := o.Target.Credentials
	for _, line := range strings.Split(text, "\n") {
		for _, secret := range []string{c.ClientSecret, c.Password, c.OtherPass, "Bearer", "Basic", "access_token"} {
			if strings.Contains(line, secret) {
				t.Errorf("the request log holds %q: %s", secret, line)
			}
		}
		if m := tokenShape.FindString(line); m != "" {
			t.Errorf("the request log holds a token: %s", line)
		}
	}
}

// tokenShape matches a token of the reference server standing alone: 43
// base64url characters.
var tokenShape = regexp.MustCompile(`(^|[^A-Za-z0-9_-])[A-Za-z0-9_-]{43}([^A-Za-z0-9_-]|$)`)

// TestSlowScenariosInProcess runs the @slow scenarios, which wait in real
// time against a remote target, against the in-process server, where the
// waits move the server's clock and take no time.
func TestSlowScenariosInProcess(t *testing.T) {
	if os.Getenv("BASE_URL") != "" {
		t.Skip("BASE_URL is set: @slow scenarios against a deployment run only when CONFORMANCE_TAGS selects them")
	}
	o, err := FromEnv(os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	o.Tags, o.DefaultTags, o.TestingT, o.NoSummary = "@slow", false, t, true
	if _, err := Run(o); err != nil {
		t.Fatal(err)
	}
}

const rootFeature = `Feature: The API root
  @spec @API-1
  Scenario: Anyone can read the API root
    When a caller reads the API root
    Then the answer has status 200

  @ref @API-11
  Scenario: The reference server names its documentation
    When a caller reads the API root
    Then the answer offers the links "events, profile"
`

// TestRefScenariosAreCheckedAgainstTheOpenAPIDocument: when the document
// and the server disagree, the @ref scenarios fail and say so; the @spec
// ones, which any deployment must pass, are not checked against it.
func TestRefScenariosAreCheckedAgainstTheOpenAPIDocument(t *testing.T) {
	// A document that has drifted: the API root would have a third link.
	drifted := bytes.Replace(openapi.Document(), []byte(`"required": [
              "events",
              "profile"
            ]`), []byte(`"required": [
              "events",
              "profile",
              "help"
            ]`), 1)
	if bytes.Equal(drifted, openapi.Document()) {
		t.Fatal("the edit of the document changed nothing")
	}
	c, err := contract.Load(drifted)
	if err != nil {
		t.Fatal(err)
	}
	creds := target.DemoCredentials
	run := func(tags string, ct target.Contract) (string, error) {
		var out bytes.Buffer
		rep, err := Run(Options{
			Target:    target.Target{Credentials: creds, Launcher: inprocess.Launcher{Credentials: creds}, RunID: "contract", Contract: ct},
			Features:  fstest.MapFS{"root.feature": {Data: []byte(rootFeature)}},
			Tags:      tags,
			Output:    &out,
			NoSummary: true,
		})
		for _, sc := range rep.Scenarios {
			if sc.Failure != nil {
				out.WriteString("\n" + sc.Failure.Text())
			}
		}
		return out.String(), err
	}
	if out, err := run("@spec", c); err != nil {
		t.Fatalf("a @spec scenario against the drifted document: %v\n%s", err, out)
	}
	out, err := run("@ref", c)
	if !errors.Is(err, ErrFailed) || !strings.Contains(out, "does not match the OpenAPI document") {
		t.Fatalf("a @ref scenario against the drifted document: %v\n%s", err, out)
	}
	if out, err := run("@ref", nil); err != nil {
		t.Fatalf("a @ref scenario against the project's document: %v\n%s", err, out)
	}
}
