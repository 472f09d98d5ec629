package suite

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"eventsvc/conformance/contract"
	"eventsvc/conformance/inprocess"
	"eventsvc/conformance/target"
	"eventsvc/docs/openapi"
)

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
