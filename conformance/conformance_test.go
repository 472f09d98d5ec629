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
