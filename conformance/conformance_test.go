package conformance

import (
	"os"
	"testing"
)

// TestConformance runs the suite: against the in-process reference server,
// or against BASE_URL when it is set. Each scenario is a subtest:
//
//	go test ./conformance -run 'TestConformance/A_wrong_password_gets_no_token'
func TestConformance(t *testing.T) {
	o, err := FromEnv(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	o.TestingT = t
	if err := Run(o); err != nil {
		t.Fatal(err)
	}
}

// TestSlowScenariosInProcess runs the @slow scenarios, which wait in real
// time against a remote target, against the in-process server, where the
// waits move the server's clock and take no time.
func TestSlowScenariosInProcess(t *testing.T) {
	if os.Getenv("BASE_URL") != "" {
		t.Skip("BASE_URL is set: @slow scenarios against a deployment run only when CONFORMANCE_TAGS selects them")
	}
	o, err := FromEnv(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	o.Tags, o.TestingT, o.NoSummary = "@slow", t, true
	if err := Run(o); err != nil {
		t.Fatal(err)
	}
}
